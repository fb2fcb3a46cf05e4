"""`cairn acp`: a session's waits (a retry's wait here) reach the client as an agent message,
as a compaction does for a client without compaction updates."""

from __future__ import annotations

from pathlib import Path

from tests.acp.raw_client import RawAcpClient
from tests.lsp.harness import write_workspace


async def test_a_retrys_wait_is_an_agent_message_before_the_answer(tmp_path: Path) -> None:
    root = write_workspace(
        tmp_path / "ws", script=[{"error": "rate_limit"}, {"text": "Recovered."}]
    )
    client = await RawAcpClient.start(root)
    await client.initialize()
    session = (await client.call("session/new", {"cwd": str(root), "mcpServers": []}))["sessionId"]
    mark = client.mark()
    result = await client.call(
        "session/prompt", {"sessionId": session, "prompt": [{"type": "text", "text": "hi"}]}
    )
    chunks = [
        (u["content"]["text"], u.get("messageId"))
        for u in client.updates(session, mark)
        if u["sessionUpdate"] == "agent_message_chunk"
    ]
    assert result["stopReason"] == "end_turn"
    notices = [(text, mid) for text, mid in chunks if "Waiting to retry the model call" in text]
    assert len(notices) == 1 and "rate limited" in notices[0][0]
    answer_ids = {mid for text, mid in chunks if "Recovered" in text}
    assert notices[0][1] not in answer_ids  # a message of its own, not part of the answer
    texts = [text for text, _ in chunks]
    assert texts.index(notices[0][0]) < next(i for i, t in enumerate(texts) if "Recovered" in t)
    await client.close()
