"""The server's lifecycle over raw stdio: before initialize, after shutdown, exit codes, and
an engine that failed to start being started again on the next request."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from cairn.files.workspace import path_to_uri
from cairn.frontends.codes import INVALID_REQUEST, SERVER_NOT_INITIALIZED
from tests.lsp.flaky_engine_server import ENGINE_FAILS_FILE
from tests.lsp.harness import DEBUG_ENV, write_workspace
from tests.lsp.raw_client import READ_TIMEOUT_S, STREAM_LIMIT, RawServer

FLAKY_SERVER = [sys.executable, str(Path(__file__).with_name("flaky_engine_server.py"))]
REQUEST_FAILED = -32803


async def test_requests_before_initialize_are_refused_and_harm_nothing(tmp_path: Path) -> None:
    root = write_workspace(tmp_path / "ws", files={"a.py": "x = 1\n"})
    server = await RawServer.start(root, tmp_path / "stderr.log")
    try:
        early = await server.request("cairn/goalTree", {})
        assert early["error"]["code"] == SERVER_NOT_INITIALIZED
        assert "initialize" in early["error"]["message"]
        typed = await server.request("textDocument/codeAction", {"bad": "params"})
        assert typed["error"]["code"] == SERVER_NOT_INITIALIZED  # before any params check
        uri = path_to_uri(root / "a.py")
        await server.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": "y"}},
        )
        answer = await server.initialize(root)
        assert answer["result"]["serverInfo"]["name"] == "cairn"
        tree = await server.request("cairn/goalTree", {})
        assert set(tree["result"]) == {"sessionId", "tree", "rendered"}  # the engine works
        debug = await server.request("cairn/_debug", {"uri": uri})
        assert debug["result"]["openBuffers"] == 0  # the early didOpen was dropped
        again = await server.initialize(root)
        assert again["error"]["code"] == INVALID_REQUEST
        assert "already initialized" in again["error"]["message"]
        assert await server.stop() == 0
    finally:
        await server.kill()


async def test_requests_after_shutdown_are_invalid_and_exit_ends_the_server(
    tmp_path: Path,
) -> None:
    root = write_workspace(tmp_path / "ws")
    server = await RawServer.start(root, tmp_path / "stderr.log")
    try:
        await server.initialize(root)
        assert "result" in await server.request("shutdown")
        late = await server.request("cairn/goalTree", {})
        assert late["error"]["code"] == INVALID_REQUEST
        assert "shutting down" in late["error"]["message"]
        await server.notify("exit", None)
        assert await asyncio.wait_for(server.process.wait(), READ_TIMEOUT_S) == 0
    finally:
        await server.kill()


async def test_exit_without_shutdown_exits_with_1(tmp_path: Path) -> None:
    root = write_workspace(tmp_path / "ws")
    server = await RawServer.start(root, tmp_path / "stderr.log")
    try:
        await server.initialize(root)
        await server.notify("exit", None)
        assert await asyncio.wait_for(server.process.wait(), READ_TIMEOUT_S) == 1
    finally:
        await server.kill()


async def test_an_engine_that_failed_to_start_is_started_again(tmp_path: Path) -> None:
    root = write_workspace(tmp_path / "ws", files={ENGINE_FAILS_FILE: ""})
    log = tmp_path / "stderr.log"
    with log.open("wb") as sink:
        process = await asyncio.create_subprocess_exec(
            *FLAKY_SERVER,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=sink,
            cwd=root,
            env={**os.environ, **DEBUG_ENV},
            limit=STREAM_LIMIT,
        )
    server = RawServer(process, log)
    try:
        await server.initialize(root)
        for _ in range(2):  # it fails as long as the cause is there, saying why
            failed = await server.request("cairn/goalTree", {})
            assert failed["error"]["code"] == REQUEST_FAILED
            assert "staged failure" in failed["error"]["message"]
        (root / ENGINE_FAILS_FILE).unlink()
        tree = await server.request("cairn/goalTree", {})
        assert set(tree["result"]) == {"sessionId", "tree", "rendered"}
        assert await server.stop() == 0
    finally:
        await server.kill()
    text = log.read_text(encoding="utf-8")
    assert "starting the engine again (attempt 2 failed: RuntimeError: staged failure" in text
