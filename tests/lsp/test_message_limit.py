"""The `max_message_bytes` setting: validated in the settings model, applied by the reader."""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn.errors import SettingsError
from cairn.files.workspace import path_to_uri
from cairn.frontends.codes import INVALID_REQUEST
from cairn.settings import (
    DEFAULT_MAX_MESSAGE_BYTES,
    MAX_MAX_MESSAGE_BYTES,
    MIN_MAX_MESSAGE_BYTES,
    Settings,
    validate_settings,
)
from tests.lsp.harness import write_workspace
from tests.lsp.raw_client import RawServer


def test_the_setting_is_bounded_and_defaults_to_64_mib() -> None:
    assert Settings().max_message_bytes == DEFAULT_MAX_MESSAGE_BYTES == 64 * 1024 * 1024
    assert validate_settings({"maxMessageBytes": MIN_MAX_MESSAGE_BYTES}).max_message_bytes == (
        MIN_MAX_MESSAGE_BYTES
    )
    for bad in (0, MIN_MAX_MESSAGE_BYTES - 1, MAX_MAX_MESSAGE_BYTES + 1, "big"):
        with pytest.raises(SettingsError, match="max_message_bytes"):
            validate_settings({"max_message_bytes": bad})


async def test_a_message_above_the_configured_limit_is_refused(tmp_path: Path) -> None:
    limit = MIN_MAX_MESSAGE_BYTES
    root = write_workspace(tmp_path / "ws", settings={"max_message_bytes": limit})
    server = await RawServer.start(root, tmp_path / "stderr.log")
    try:
        await server.initialize(root)
        uri = path_to_uri(root / "big.txt")
        for size in (2 * limit, limit // 2):
            text = "x" * size
            await server.notify(
                "textDocument/didOpen",
                {"textDocument": {"uri": uri, "languageId": "text", "version": 1, "text": text}},
            )
            if size > limit:
                error = (await server.response(None))["error"]
                assert error["code"] == INVALID_REQUEST and str(limit) in error["message"]
            debug = await server.request("cairn/_debug", {"uri": uri})
            assert debug["result"]["text"] == (text if size < limit else None)
        assert await server.stop() == 0
    finally:
        await server.kill()
    log = server.stderr.read_text(encoding="utf-8")
    assert f"larger than the limit of {limit} bytes" in log
