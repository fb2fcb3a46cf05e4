"""An MCP server's question reaches the user through the ACP client (`elicitation/create`).

The Python ACP SDK (0.12.x) as the client, declaring form elicitation; the
fixture MCP server's `order` tool asks a form (MCP 2026-07-28: an
`InputRequiredResult`). The SDK validates the request against its schema;
the user's answer goes back to the server, which echoes it in the tool's
result. A client that does not declare elicitation is never asked: the
server is told Cairn cannot ask.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from acp.schema import AcceptElicitationResponse, DeclineElicitationResponse

from acp import text_block
from tests.acp.python_client import WAIT_S, SdkClient, error_records, running
from tests.fakes.mcp_fixture import fixture_server
from tests.lsp.harness import write_workspace

ORDER = {"toolCalls": [{"name": "mcp__fx__order", "arguments": {}}]}
ANSWER = {"name": "Ada", "size": "small", "count": 3, "gift": True}


def trust_and_allow(asked: dict[str, Any]) -> str:
    """Trust the folder for this process; allow the MCP call once."""
    ids = {option["optionId"] for option in asked["options"]}
    return "trust-once" if "trust-once" in ids else "allow-once"


class AskedClient(SdkClient):
    """An editor that shows forms: it records each question and gives `answer`."""

    def __init__(self, answer: dict[str, Any] | None) -> None:
        super().__init__(trust_and_allow)
        self.answer_content = answer
        self.questions: list[dict[str, Any]] = []

    async def create_elicitation(self, message: str, mode: Any, **_: Any) -> Any:
        shown = mode.model_dump(by_alias=True, exclude_none=True)
        self.questions.append({"message": message, **shown})
        if self.answer_content is None:
            return DeclineElicitationResponse(action="decline")
        return AcceptElicitationResponse(action="accept", content=self.answer_content)


def order_call_id(client: AskedClient) -> str:
    """The id of the `order` tool call the client was told about."""
    [call] = [u for u in client.kinds("tool_call") if "order" in (u.title or "")]
    return call.tool_call_id


def asking_root(tmp_path: Path) -> Path:
    script = [ORDER, {"text": "ordered"}]
    return write_workspace(
        tmp_path / "ws", script=script, mcp_servers={"fx": fixture_server("--ask")}
    )


async def ordered(client: AskedClient, root: Path, **capabilities: Any) -> tuple[str, str]:
    """The session id and the text of the `order` call's result."""
    with error_records() as errors:
        async with running(client, root, unstable=True) as agent:
            await agent.initialize(**capabilities)
            session = await agent.conn.new_session(cwd=str(root), mcp_servers=[])
            answer = await asyncio.wait_for(
                agent.conn.prompt(session_id=session.session_id, prompt=[text_block("Order")]),
                WAIT_S,
            )
    assert answer.stop_reason == "end_turn"
    assert errors == [], [r.getMessage() for r in errors]
    [done] = [
        u
        for u in agent.raw_updates("tool_call_update")
        if u.get("status") in ("completed", "failed")
        and u.get("content")
        and not u["toolCallId"].startswith("cairn-trust-")
    ]
    text = "\n".join(c["content"]["text"] for c in done["content"] if c["type"] == "content")
    return session.session_id, text


async def test_a_form_is_asked_in_the_session_and_the_answer_reaches_the_server(
    tmp_path: Path,
) -> None:
    client = AskedClient(ANSWER)
    session_id, result = await ordered(client, asking_root(tmp_path), elicitation={"form": {}})
    [question] = client.questions
    assert question["sessionId"] == session_id
    assert question["toolCallId"] == order_call_id(client)
    assert question["message"] == "The MCP server fx asks: Which order should I place?"
    assert set(question["requestedSchema"]["properties"]) == {"name", "size", "count", "gift"}
    assert f"accept {json.dumps(ANSWER, separators=(',', ':'))}" in result


async def test_a_declined_form_is_declined_for_the_server(tmp_path: Path) -> None:
    client = AskedClient(None)
    _, result = await ordered(client, asking_root(tmp_path), elicitation={"form": {}})
    assert len(client.questions) == 1
    assert "decline" in result


async def test_a_client_without_elicitation_is_never_asked(tmp_path: Path) -> None:
    client = AskedClient(ANSWER)
    _, result = await ordered(client, asking_root(tmp_path))
    assert client.questions == []
    assert "accept" not in result and "elicitation" in result.lower()
