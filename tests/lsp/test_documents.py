"""Document sync into the engine's workspace: incremental edits (UTF-16), folders, watched files."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from cairn.files.workspace import path_to_uri
from tests.lsp.harness import CairnClient, Starter

TEXT = "héllo 😀 world\nline two\n"


def open_document(client: CairnClient, uri: str, text: str, version: int = 1) -> None:
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="plaintext", version=version, text=text
            )
        )
    )


def change(
    client: CairnClient,
    uri: str,
    version: int,
    start: tuple[int, int],
    end: tuple[int, int],
    text: str,
) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(
                        start=types.Position(line=start[0], character=start[1]),
                        end=types.Position(line=end[0], character=end[1]),
                    ),
                    text=text,
                )
            ],
        )
    )


async def server_text(client: CairnClient, uri: str) -> str | None:
    return (await client.request("cairn/_debug", {"uri": uri}))["text"]


async def test_incremental_edits_reach_the_engine_workspace(start: Starter) -> None:
    client = await start(files={"doc.txt": TEXT})
    uri = client.uri("doc.txt")
    # Sent at once: the engine may still be loading; nothing may be lost meanwhile.
    open_document(client, uri, TEXT)
    change(client, uri, 2, (0, 9), (0, 14), "there")  # 😀 counts 2 UTF-16 units
    change(client, uri, 3, (1, 0), (1, 0), "new line\n")
    await client.request("cairn/goalTree")  # waits for the engine
    info = await client.request("cairn/_debug", {"uri": uri})
    assert info["engineReady"] is True
    assert info["text"] == "héllo 😀 there\nnew line\nline two\n"

    client.text_document_did_save(
        types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert await server_text(client, uri) is None


async def test_documents_outside_the_workspace_are_not_tracked(
    start: Starter, tmp_path: Path
) -> None:
    client = await start()
    outside = path_to_uri(tmp_path / "elsewhere.txt")
    open_document(client, outside, "secret\n")
    change(client, outside, 2, (0, 0), (0, 0), "more ")
    open_document(client, "untitled:Untitled-1", "scratch\n")
    info = await client.request("cairn/_debug", {"uri": outside})
    assert info["text"] is None and info["openBuffers"] == 0


async def test_added_folders_are_served_and_cairn_toml_changes_reload_settings(
    start: Starter, tmp_path: Path
) -> None:
    client = await start()
    second = tmp_path / "second"
    second.mkdir()
    (second / "b.txt").write_text("b\n", encoding="utf-8")
    client.workspace_did_change_workspace_folders(
        types.DidChangeWorkspaceFoldersParams(
            event=types.WorkspaceFoldersChangeEvent(
                added=[types.WorkspaceFolder(uri=path_to_uri(second), name="second")], removed=[]
            )
        )
    )
    uri = path_to_uri(second / "b.txt")
    open_document(client, uri, "b\n")
    assert await server_text(client, uri) == "b\n"

    (client.root / "cairn.toml").write_text(
        'model = "scripted/script.jsonl"\nmax_output_tokens = 2222\n', encoding="utf-8"
    )
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[
                types.FileEvent(uri=client.uri("cairn.toml"), type=types.FileChangeType.Changed)
            ]
        )
    )
    assert (await client.request("cairn/contextStats"))["maxOutputTokens"] == 2222
    dynamic = client.capabilities is not None and bool(
        client.capabilities.workspace
        and client.capabilities.workspace.did_change_watched_files
        and client.capabilities.workspace.did_change_watched_files.dynamic_registration
    )
    watched = [r for r in client.registrations if r.method == "workspace/didChangeWatchedFiles"]
    assert bool(watched) == dynamic
