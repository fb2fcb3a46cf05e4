"""Code actions "Fix with Cairn" and the cairn.fix → workspace/applyEdit round trip."""

from __future__ import annotations

from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from tests.lsp.harness import CairnClient, Starter

APP = "x = 1\nprint(y)\n"
FORWARDED = {
    "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 5}},
    "message": "x should be 2",
    "severity": 1,
    "source": "checker",
}
FIX_SCRIPT = [
    {
        "toolCalls": [
            {"name": "edit_file", "arguments": {"path": "app.py", "old": "x = 1", "new": "x = 2"}}
        ]
    },
    {"text": "Fixed."},
]


def lsp_range(start: tuple[int, int], end: tuple[int, int]) -> types.Range:
    return types.Range(
        start=types.Position(line=start[0], character=start[1]),
        end=types.Position(line=end[0], character=end[1]),
    )


async def code_actions(
    client: CairnClient,
    uri: str,
    at: types.Range,
    context: list[types.Diagnostic],
    only: list[str] | None = None,
) -> list[dict[str, Any]]:
    return await client.request(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=at,
            context=types.CodeActionContext(diagnostics=context, only=only),
        ),
    )


async def open_app(client: CairnClient) -> str:
    uri = client.uri("app.py")
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=APP)
        )
    )
    client.protocol.notify("cairn/diagnostics", {"uri": uri, "diagnostics": [FORWARDED]})
    return uri


async def test_quickfixes_cover_forwarded_and_context_diagnostics_in_range(start: Starter) -> None:
    client = await start(files={"app.py": APP})
    uri = await open_app(client)
    context = types.Diagnostic(range=lsp_range((1, 6), (1, 7)), message="y is undefined")
    everything = await code_actions(client, uri, lsp_range((0, 0), (1, 8)), [context])
    assert [a["title"] for a in everything] == [
        "Fix with Cairn: y is undefined",
        "Fix with Cairn: x should be 2",
    ]
    for action in everything:
        assert action["kind"] == "quickfix"
        assert action["command"]["command"] == "cairn.fix"
        assert action["command"]["arguments"][0] == uri
        assert action["diagnostics"] == [action["command"]["arguments"][1]]

    line_two = await code_actions(client, uri, lsp_range((1, 6), (1, 6)), [context])
    assert [a["title"] for a in line_two] == ["Fix with Cairn: y is undefined"]
    same_as_forwarded = types.Diagnostic(
        range=lsp_range((0, 0), (0, 5)), message="x should be 2", source="checker"
    )
    deduplicated = await code_actions(client, uri, lsp_range((0, 2), (0, 2)), [same_as_forwarded])
    assert len(deduplicated) == 1
    assert await code_actions(client, uri, lsp_range((0, 0), (0, 0)), [], only=["refactor"]) == []

    client.protocol.notify("cairn/diagnostics", {"uri": uri, "diagnostics": []})
    assert await code_actions(client, uri, lsp_range((0, 0), (0, 0)), []) == []


async def test_fix_command_runs_a_turn_whose_edit_comes_back_as_apply_edit(start: Starter) -> None:
    client = await start(files={"app.py": APP}, script=FIX_SCRIPT)
    uri = await open_app(client)
    [action] = await code_actions(client, uri, lsp_range((0, 0), (0, 0)), [])
    result = await client.request(
        types.WORKSPACE_EXECUTE_COMMAND,
        types.ExecuteCommandParams(
            command=action["command"]["command"], arguments=action["command"]["arguments"]
        ),
    )
    assert result["finishReason"] == "stop" and "Fixed." in result["text"]

    [edit] = client.applied_edits
    if edit.document_changes is not None:  # VS Code: versioned document edits
        [document_edit] = edit.document_changes
        assert isinstance(document_edit, types.TextDocumentEdit)
        assert document_edit.text_document.uri == uri
        assert document_edit.text_document.version == 1
        edits = list(document_edit.edits)
    else:  # Neovim does not announce documentChanges: the plain `changes` map
        assert edit.changes is not None
        edits = list(edit.changes[uri])
    [text_edit] = edits
    assert isinstance(text_edit, types.TextEdit)
    assert text_edit.range == lsp_range((0, 0), (1, 0))
    assert text_edit.new_text == "x = 2\n"
    # The editor applied it: the file on disk is the editor's business (unsaved buffer).
    assert (client.root / "app.py").read_text(encoding="utf-8") == APP

    manifest = await client.request("cairn/contextManifest", {})
    fix_blocks = [b for b in manifest["blocks"] if b["source"] == "diagnostics"]
    assert fix_blocks and fix_blocks[0]["ref"] == "app.py"

    for arguments, problem in [
        ([uri], "2 or 3 arguments"),
        ([uri, FORWARDED, 5], "third argument must be a session id"),
        ([uri, {"message": "no range"}], "range"),
        (["file:///etc/passwd", FORWARDED], "outside"),
    ]:
        with pytest.raises(JsonRpcInvalidParams, match=problem):
            await client.request(
                types.WORKSPACE_EXECUTE_COMMAND,
                types.ExecuteCommandParams(command="cairn.fix", arguments=arguments),
            )
