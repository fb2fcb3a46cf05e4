"""`initialize`: capabilities, settings from initializationOptions, no litellm on the way."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcMethodNotFound

from tests.lsp.harness import Starter


async def test_capabilities_advertise_what_the_protocol_promises(start: Starter) -> None:
    client = await start()
    assert client.init_result is not None
    result = client.init_result.capabilities
    sync = result.text_document_sync
    assert isinstance(sync, types.TextDocumentSyncOptions)
    assert sync.change == types.TextDocumentSyncKind.Incremental
    assert sync.open_close is True
    code_actions = result.code_action_provider
    assert isinstance(code_actions, types.CodeActionOptions)
    assert list(code_actions.code_action_kinds or []) == [types.CodeActionKind.QuickFix]
    assert result.execute_command_provider is not None
    assert set(result.execute_command_provider.commands) == {
        "cairn.fix",
        "cairn.compact",
        "cairn.fork",
    }
    assert result.workspace is not None and result.workspace.workspace_folders is not None
    assert result.workspace.workspace_folders.supported is True
    # Neovim offers UTF-8 first; the server keeps UTF-16, which its buffers count in.
    assert result.position_encoding == types.PositionEncodingKind.Utf16


async def test_litellm_is_not_imported_on_the_initialize_path(start: Starter) -> None:
    client = await start()
    info = await client.request("cairn/_debug", {})
    assert info["litellmAtInitialize"] is False


async def test_initialization_options_override_cairn_toml(start: Starter) -> None:
    client = await start(settings={"max_output_tokens": 1000}, options={"maxOutputTokens": 1234})
    stats = await client.request("cairn/contextStats", {})
    assert stats["maxOutputTokens"] == 1234
    assert client.messages == []


async def test_invalid_options_are_shown_naming_the_key_and_defaults_are_used(
    start: Starter,
) -> None:
    client = await start(options={"maxOutputTokens": -5, "safetyMargin": 100, "noSuchKey": 1})
    stats = await client.request("cairn/contextStats", {})
    assert stats["maxOutputTokens"] == 4096  # the default, the bad value dropped
    assert stats["safetyMargin"] == 100  # the valid key still applies
    shown = [m.message for m in client.messages]
    assert len(shown) == 1, shown
    assert "maxOutputTokens" in shown[0] and "noSuchKey" in shown[0]
    assert "defaults are used" in shown[0]


async def test_unknown_methods_are_method_not_found_and_the_server_keeps_serving(
    start: Starter,
) -> None:
    client = await start()
    with pytest.raises(JsonRpcMethodNotFound):
        await client.request("cairn/noSuchMethod", {})
    with pytest.raises(JsonRpcMethodNotFound):
        await client.request("cairn/noSuchMethod")  # no params key at all
    client.protocol.notify("cairn/noSuchNotification", {"x": 1})
    tree = await client.request("cairn/goalTree")
    assert set(tree) == {"sessionId", "tree", "rendered"}


async def test_without_a_model_the_editor_is_told_how_to_set_one(start: Starter) -> None:
    client = await start(settings={"model": ""})
    with pytest.raises(JsonRpcException, match="no model configured") as raised:
        await client.request("cairn/turn", {"message": "hello"})
    assert "Set `cairn.model` in the editor's settings, or `model` in cairn.toml" in str(
        raised.value
    )
    shown = [m.message for m in client.messages]
    assert any(m.startswith("Cairn: no model configured.") and 'model = "' in m for m in shown)
    sessions = await client.request("cairn/sessions", {})
    assert sessions["sessions"] == []  # nothing was recorded
