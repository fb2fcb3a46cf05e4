"""`cairn/compact`, the `cairn.compact` command and `cairn/compaction` notifications."""

from __future__ import annotations

from lsprotocol import types

from tests.lsp.harness import Starter

RESULT_KEYS = {"sessionId", "tokensBefore", "tokensAfter", "kind"}
EVENT_KEYS = {"sessionId", "stage", "kind", "tokensBefore", "tokensAfter", "error"}


async def test_compact_reports_its_result_and_notifies_start_and_end(start: Starter) -> None:
    client = await start(
        script=[
            {"text": "Read everything. " * 40},
            {"agent": "compaction", "text": "Objective: read everything."},
        ]
    )
    turn = await client.request("cairn/turn", {"message": "read it all"})
    assert turn["finishReason"] == "stop"

    mark = client.log.mark()
    result = await client.request("cairn/compact", {"sessionId": turn["sessionId"]})
    assert set(result) == RESULT_KEYS
    assert result["sessionId"] == turn["sessionId"]
    assert result["kind"] in {"prune", "summary", "none"}
    events = client.log.since(mark, "cairn/compaction")
    assert [e["stage"] for e in events][:1] == ["start"]
    assert events[-1]["stage"] in {"done", "failed"}
    assert all(set(e) == EVENT_KEYS and e["sessionId"] == turn["sessionId"] for e in events)
    logs = [params["message"] for params in client.log.since(mark, "window/logMessage")]
    assert any("compaction" in line for line in logs)

    mark = client.log.mark()
    command = await client.request(
        types.WORKSPACE_EXECUTE_COMMAND, types.ExecuteCommandParams(command="cairn.compact")
    )
    assert set(command) == RESULT_KEYS
    assert command["sessionId"] == turn["sessionId"]
    assert client.log.since(mark, "cairn/compaction")[0]["stage"] == "start"
