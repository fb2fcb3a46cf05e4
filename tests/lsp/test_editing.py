"""The editing bridge: shell commands need the user's approval — inline (`cairn/approval`)
for a client that declares it, else `window/showMessageRequest` — and checkpoint restores
come back as `workspace/applyEdit` labelled `Cairn: restore`."""

from __future__ import annotations

from lsprotocol import types

from cairn.frontends.sentences import sandbox_sentence
from cairn.sandbox.choice import choose_sandbox
from tests.lsp.harness import Starter

SCRIPT = [
    {"toolCalls": [{"name": "run_command", "arguments": {"command": "echo approved-run"}}]},
    {"text": "Ran it."},
    {"toolCalls": [{"name": "run_command", "arguments": {"command": "echo denied-run"}}]},
    {"text": "Did not run."},
]
INLINE = {"cairn": {"approvals": True}}


def tool_ends(client: object, mark: int) -> list[dict[str, object]]:
    log = client.log  # type: ignore[attr-defined]
    return [e for e in log.since(mark, "cairn/turnEvent") if e["kind"] == "toolEnd"]


async def test_commands_run_only_when_the_user_approves(start: Starter) -> None:
    client = await start(script=SCRIPT, settings={"allowed_commands": []})
    mark = client.log.mark()
    first = await client.request("cairn/turn", {"message": "run it"})
    assert first["finishReason"] == "stop"
    where = sandbox_sentence(choose_sandbox("auto", False))  # this machine's sandbox
    assert client.approval_requests == [f"Cairn wants to run: echo approved-run {where}"]
    assert client.approvals_asked == [], "not declared: no cairn/approval"
    [approved] = tool_ends(client, mark)
    assert approved["tool"] == "run_command" and approved["ok"] is True

    client.approval = "Reject"
    mark = client.log.mark()
    second = await client.request("cairn/turn", {"message": "run the other"})
    assert second["finishReason"] == "stop"
    assert client.approval_requests[-1] == f"Cairn wants to run: echo denied-run {where}"
    [denied] = tool_ends(client, mark)
    assert denied["tool"] == "run_command" and denied["ok"] is False


async def test_a_declaring_client_answers_cairn_approval_and_always_is_remembered(
    start: Starter,
) -> None:
    script = [
        {"toolCalls": [{"name": "run_command", "arguments": {"command": "echo inline"}}]},
        {"toolCalls": [{"name": "run_command", "arguments": {"command": "echo inline again"}}]},
        {"toolCalls": [{"name": "run_command", "arguments": {"command": "echo other"}}]},
        {"text": "Done."},
    ]
    client = await start(script=script, settings={"allowed_commands": []}, experimental=INLINE)
    client.decisions = ["always", "reject"]
    mark = client.log.mark()
    result = await client.request("cairn/turn", {"message": "run them"})
    assert result["finishReason"] == "stop"
    assert client.approval_requests == [], "no showMessageRequest for a declaring client"
    asked = [(a["command"], a["tool"], a["sessionId"]) for a in client.approvals_asked]
    assert asked == [
        ("echo inline", "run_command", result["sessionId"]),
        ("echo other", "run_command", result["sessionId"]),
    ]
    starts = [e for e in client.log.since(mark, "cairn/turnEvent") if e["kind"] == "toolStart"]
    assert client.approvals_asked[0]["callId"] == starts[0]["callId"]
    assert client.approvals_asked[0]["turnId"] == result["turnId"]
    assert [e["ok"] for e in tool_ends(client, mark)] == [True, True, False]
    assert "inline again" in str(tool_ends(client, mark)[1]["detail"])


async def test_restore_comes_back_as_an_edit_labelled_restore(start: Starter) -> None:
    script = [
        {"toolCalls": [{"name": "edit_file", "arguments": {"path": "app.py", "new": "x = 2\n"}}]},
        {"text": "Edited."},
    ]
    client = await start(script=script, files={"app.py": "x = 1\n"})
    session = (await client.request("cairn/newSession", {}))["sessionId"]
    assert (await client.request("cairn/sessions", {}))["sessions"] == []
    result = await client.request("cairn/turn", {"sessionId": session, "message": "edit it"})
    assert result["sessionId"] == session
    # The test client applies edits without writing them: write what the editor would save.
    (client.root / "app.py").write_text("x = 2\n", encoding="utf-8")
    transcript = await client.request("cairn/transcript", {"sessionId": session})
    [turn] = transcript["turns"]
    assert turn["changedFiles"] == ["app.py"] and turn["turnId"] == result["turnId"]
    edits_before = len(client.applied_edits)
    restored = await client.request(
        "cairn/restore", {"sessionId": session, "turnId": result["turnId"], "conversation": True}
    )
    assert restored["restoredFiles"] == ["app.py"] and restored["sessionId"] != session
    [edit] = client.applied_edits[edits_before:]
    assert client.edit_labels == ["Cairn", "Cairn: restore"]
    if edit.document_changes:
        [change] = edit.document_changes
        assert isinstance(change, types.TextDocumentEdit)
        [text_edit] = change.edits
    else:
        [text_edit] = (edit.changes or {})[client.uri("app.py")]
    assert isinstance(text_edit, types.TextEdit) and text_edit.new_text == "x = 1\n"
    forked = await client.request("cairn/transcript", {"sessionId": restored["sessionId"]})
    assert forked["turns"] == [] and forked["parentId"] == session
    catalog = await client.request("cairn/models", {})
    assert catalog["current"] == "scripted/script.jsonl"
    assert any(
        p["provider"] == "anthropic" and p["keyEnv"] == "ANTHROPIC_API_KEY"
        for p in catalog["providers"]
    )
