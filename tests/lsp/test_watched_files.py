"""Files created outside the agent reach the engine through watched-file events and saves."""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from tests.lsp.harness import CairnClient, Starter

RULES = "# Rules\nNo globals.\n"


async def rules_files(client: CairnClient) -> list[str]:
    profile: dict[str, Any] = await client.request("cairn/projectProfile", {})
    return [rule["path"] for rule in profile["rulesFiles"]]


async def test_new_rules_files_reach_the_profile_through_watched_files_and_saves(
    start: Starter,
) -> None:
    client = await start(files={"pkg/mod.py": "def mod():\n    return 1\n", "sub/x.py": "x = 1\n"})
    assert await rules_files(client) == []  # waits for the engine

    (client.root / "pkg" / "AGENTS.md").write_text(RULES, encoding="utf-8")
    assert await rules_files(client) == []  # the engine's file listing is cached...
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[
                types.FileEvent(uri=client.uri("pkg/AGENTS.md"), type=types.FileChangeType.Created)
            ]
        )
    )
    assert await rules_files(client) == ["pkg/AGENTS.md"]  # ...until a watcher reports a file

    (client.root / "sub" / "AGENTS.md").write_text(RULES, encoding="utf-8")
    client.text_document_did_save(
        types.DidSaveTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=client.uri("sub/AGENTS.md"))
        )
    )
    assert await rules_files(client) == ["pkg/AGENTS.md", "sub/AGENTS.md"]

    (client.root / "pkg" / "AGENTS.md").unlink()
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[
                types.FileEvent(uri=client.uri("pkg/AGENTS.md"), type=types.FileChangeType.Deleted)
            ]
        )
    )
    assert await rules_files(client) == ["sub/AGENTS.md"]


async def test_clients_with_dynamic_registration_are_asked_to_watch_every_file(
    start: Starter,
) -> None:
    client = await start()
    await client.request("cairn/goalTree")
    capabilities = client.capabilities
    dynamic = bool(
        capabilities is not None
        and capabilities.workspace
        and capabilities.workspace.did_change_watched_files
        and capabilities.workspace.did_change_watched_files.dynamic_registration
    )
    watched = [r for r in client.registrations if r.method == "workspace/didChangeWatchedFiles"]
    patterns = [
        watcher["globPattern"]
        for registration in watched
        if isinstance(registration.register_options, dict)
        for watcher in registration.register_options["watchers"]
    ]
    assert patterns == (["**/*"] if dynamic else [])
