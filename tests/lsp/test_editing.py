"""The editing bridge: shell commands need the user's approval (window/showMessageRequest)."""

from __future__ import annotations

from tests.lsp.harness import Starter

SCRIPT = [
    {"toolCalls": [{"name": "run_command", "arguments": {"command": "echo approved-run"}}]},
    {"text": "Ran it."},
    {"toolCalls": [{"name": "run_command", "arguments": {"command": "echo denied-run"}}]},
    {"text": "Did not run."},
]


async def test_commands_run_only_when_the_user_approves(start: Starter) -> None:
    client = await start(script=SCRIPT, settings={"allowed_commands": []})
    mark = client.log.mark()
    first = await client.request("cairn/turn", {"message": "run it"})
    assert first["finishReason"] == "stop"
    assert client.approval_requests == ["Cairn wants to run: echo approved-run"]
    [approved] = [e for e in client.log.since(mark, "cairn/turnEvent") if e["kind"] == "toolEnd"]
    assert approved["tool"] == "run_command" and approved["ok"] is True

    client.approval = "Deny"
    mark = client.log.mark()
    second = await client.request("cairn/turn", {"message": "run the other"})
    assert second["finishReason"] == "stop"
    assert client.approval_requests[-1] == "Cairn wants to run: echo denied-run"
    [denied] = [e for e in client.log.since(mark, "cairn/turnEvent") if e["kind"] == "toolEnd"]
    assert denied["tool"] == "run_command" and denied["ok"] is False
