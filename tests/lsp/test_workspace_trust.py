"""The editor's word on trust: `initializationOptions.workspaceTrusted` (VS Code's Workspace Trust).

true trusts the folder for the server's life, false distrusts it even when
the user's record trusts it (its `cairn.toml`'s MCP server never starts, and
the manifest says why), absent leaves it to the record.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cairn.files.trust import revoke, untrusted_notice
from tests.lsp.harness import CairnClient, start_client
from tests.lsp.test_shutdown import mcp_workspace


def started(tmp_path: Path) -> int:
    marker = tmp_path / "starts.txt"
    return len(marker.read_text().split()) if marker.exists() else 0


async def turn_then_manifest(
    editor: str, tmp_path: Path, root: Path, options: Any
) -> tuple[CairnClient, dict[str, Any]]:
    client = await start_client(editor, root, options)
    result = await client.request("cairn/turn", {"message": "hi"})
    assert result["finishReason"] == "stop"
    return client, await client.request("cairn/contextManifest", {})


async def stop(client: CairnClient) -> None:
    try:
        await client.shutdown_session()
    finally:
        await client.stop()


async def test_workspace_trusted_false_ignores_the_exec_keys_even_when_recorded(
    editor: str, tmp_path: Path
) -> None:
    root = mcp_workspace(tmp_path)  # recorded as trusted by the user
    client, manifest = await turn_then_manifest(editor, tmp_path, root, {"workspaceTrusted": False})
    try:
        assert started(tmp_path) == 0, "the MCP server of an untrusted folder never starts"
        assert manifest["notes"] == [untrusted_notice(["mcp"], root.resolve())]
    finally:
        await stop(client)


async def test_workspace_trusted_true_trusts_an_unrecorded_folder(
    editor: str, tmp_path: Path
) -> None:
    root = mcp_workspace(tmp_path)
    assert revoke(root)
    client, manifest = await turn_then_manifest(editor, tmp_path, root, {"workspaceTrusted": True})
    try:
        assert started(tmp_path) == 1 and "notes" not in manifest
    finally:
        await stop(client)


async def test_without_the_option_the_record_decides(editor: str, tmp_path: Path) -> None:
    root = mcp_workspace(tmp_path)
    (root / "cairn.toml").write_text((root / "cairn.toml").read_text() + 'env = {A = "1"}\n')
    client, manifest = await turn_then_manifest(editor, tmp_path, root, None)
    try:
        assert started(tmp_path) == 0, "edited since the grant: not trusted"
        assert manifest["notes"] == [untrusted_notice(["mcp"], root.resolve())]
    finally:
        await stop(client)
