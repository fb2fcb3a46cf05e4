"""`shutdown`, and `exit` or the end of stdin without it, stop what the server started.

`shutdown` is answered only once the running turns have ended and recorded
it (their requests answered `cancelled` first) and every MCP server process
is gone, a hung one included (killed). `exit` alone, EOF on stdin and a stop
signal (SIGTERM: exit code 143) stop the turns and the MCP servers too before
the process ends, within the same bound (a hung server is named in the log
and killed). The MCP server is the real fixture
server (tests/fakes/mcp_server.py) over stdio, started by a turn; it writes
its pid to a file.
"""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path
from typing import Any

from cairn.files.trust import grant
from cairn.trace.store import TraceStore
from tests.fakes.mcp_fixture import fixture_server
from tests.lsp.harness import CairnClient, start_client, write_workspace
from tests.lsp.raw_client import READ_TIMEOUT_S, RawServer
from tests.unit.test_mcp_servers import alive, pids

HELLO = [{"text": "Hello."}]
SLOW_TEXT = "slowly " * 400
CHUNK_DELAY_S = 0.05
EXIT_WITHOUT_SHUTDOWN = 1


def mcp_workspace(tmp_path: Path, *args: str, script: list[dict[str, Any]] = HELLO) -> Path:
    """A workspace whose `cairn.toml` runs the fixture MCP server `fx` (pids to starts.txt)."""
    server = fixture_server("--starts", str(tmp_path / "starts.txt"), *args)
    root = write_workspace(tmp_path / "ws", script=script, mcp_servers={"fx": server})
    grant(root)  # the user trusts it: its cairn.toml may start the server
    return root


def mcp_pid(tmp_path: Path) -> int:
    """The fixture server's one process, checked to be running."""
    [pid] = pids(tmp_path / "starts.txt")
    assert alive(pid)
    return pid


async def client_with_mcp(editor: str, tmp_path: Path, *args: str) -> tuple[CairnClient, int]:
    """A client whose server has run a turn, which started the MCP server; and its pid."""
    root = mcp_workspace(tmp_path, *args)
    client = await start_client(editor, root)
    result = await client.request("cairn/turn", {"message": "hi"})
    assert result["finishReason"] == "stop"
    return client, mcp_pid(tmp_path)


async def test_shutdown_is_answered_once_the_mcp_server_process_is_gone(
    editor: str, tmp_path: Path
) -> None:
    client, pid = await client_with_mcp(editor, tmp_path)
    try:
        await client.shutdown_async(None)
        assert not alive(pid)
    finally:
        client.exit(None)
        await client.stop()


async def test_a_hung_mcp_server_is_killed_and_shutdown_still_answers(
    editor: str, tmp_path: Path
) -> None:
    client, pid = await client_with_mcp(editor, tmp_path, "--hang-at-exit")
    try:
        assert await client.shutdown_async(None) is None
        assert not alive(pid)
    finally:
        client.exit(None)
        await client.stop()


async def test_a_turn_running_at_shutdown_is_answered_and_recorded_cancelled_first(
    editor: str, tmp_path: Path
) -> None:
    root = write_workspace(
        tmp_path / "ws", script=[{"text": SLOW_TEXT, "chunkDelay": CHUNK_DELAY_S}]
    )
    client = await start_client(editor, root)
    mark = client.log.mark()
    _, turn = client.start_request("cairn/turn", {"message": "write a lot"})
    await client.log.wait_for("cairn/turnEvent", mark, lambda e: e["kind"] == "text")
    try:
        await client.shutdown_async(None)
        assert turn.done()  # its answer came before the shutdown answer
        result = turn.result()
        assert result["finishReason"] == "cancelled"
        assert result["text"] and SLOW_TEXT.startswith(result["text"])
        [record] = TraceStore(root / ".cairn").open(result["sessionId"]).meta().turns
        assert record.id == result["turnId"]
        assert record.finish_reason == "cancelled" and record.ended_at is not None
    finally:
        client.exit(None)
        await client.stop()


async def start_raw(tmp_path: Path, *args: str) -> tuple[RawServer, int]:
    """`cairn serve` over raw stdio, after a turn that started the MCP server; and its pid."""
    root = mcp_workspace(tmp_path, *args)
    server = await RawServer.start(root, tmp_path / "stderr.log")
    await server.initialize(root)
    answer = await server.request("cairn/turn", {"message": "hi"})
    assert answer["result"]["finishReason"] == "stop"
    return server, mcp_pid(tmp_path)


async def test_exit_without_shutdown_stops_the_mcp_servers(tmp_path: Path) -> None:
    server, pid = await start_raw(tmp_path, "--hang-at-exit")
    try:
        await server.notify("exit", None)
        code = await asyncio.wait_for(server.process.wait(), READ_TIMEOUT_S)
        assert code == EXIT_WITHOUT_SHUTDOWN
        assert not alive(pid)
        assert "mcp fx did not stop within" in server.stderr.read_text()
    finally:
        await server.kill()


async def test_the_end_of_stdin_stops_the_mcp_servers(tmp_path: Path) -> None:
    server, pid = await start_raw(tmp_path, "--hang-at-exit")
    try:
        server.writer.close()
        await asyncio.wait_for(server.process.wait(), READ_TIMEOUT_S)
        assert not alive(pid)
        assert "mcp fx did not stop within" in server.stderr.read_text()
    finally:
        await server.kill()


async def test_sigterm_stops_the_mcp_servers_and_exits_with_143(tmp_path: Path) -> None:
    server, pid = await start_raw(tmp_path, "--hang-at-exit")
    try:
        server.process.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(server.process.wait(), READ_TIMEOUT_S)
        assert code == 128 + signal.SIGTERM
        assert not alive(pid)
        log = server.stderr.read_text()
        assert "SIGTERM received: stopping" in log and "mcp fx did not stop within" in log
    finally:
        await server.kill()


async def start_turn(server: RawServer, request_id: int) -> None:
    """Ask for a turn and wait until the model's first words arrive."""
    await server.send(
        {"jsonrpc": "2.0", "id": request_id, "method": "cairn/turn", "params": {"message": "go"}}
    )
    while True:
        message = await server.read()
        params = message.get("params") or {}
        if message.get("method") == "cairn/turnEvent" and params.get("kind") == "text":
            return


async def test_a_turn_running_at_sigterm_is_answered_and_recorded_cancelled(
    tmp_path: Path,
) -> None:
    root = write_workspace(
        tmp_path / "ws", script=[{"text": SLOW_TEXT, "chunkDelay": CHUNK_DELAY_S}]
    )
    server = await RawServer.start(root, tmp_path / "stderr.log")
    try:
        await server.initialize(root)
        await start_turn(server, 99)
        server.process.send_signal(signal.SIGTERM)
        result = (await server.response(99))["result"]
        assert result["finishReason"] == "cancelled"
        code = await asyncio.wait_for(server.process.wait(), READ_TIMEOUT_S)
        assert code == 128 + signal.SIGTERM
        [record] = TraceStore(root / ".cairn").open(result["sessionId"]).meta().turns
        assert record.finish_reason == "cancelled" and record.ended_at is not None
    finally:
        await server.kill()


async def test_a_turn_running_when_stdin_ends_is_recorded_cancelled(tmp_path: Path) -> None:
    """The editor went away (its end of the pipe closed, no shutdown, no exit): the turn
    stops and its end is recorded before the process exits."""
    root = write_workspace(
        tmp_path / "ws", script=[{"text": SLOW_TEXT, "chunkDelay": CHUNK_DELAY_S}]
    )
    server = await RawServer.start(root, tmp_path / "stderr.log")
    try:
        await server.initialize(root)
        await start_turn(server, 99)
        server.writer.close()
        await asyncio.wait_for(server.process.wait(), READ_TIMEOUT_S)
        [session] = TraceStore(root / ".cairn").list()
        [record] = TraceStore(root / ".cairn").open(session.id).meta().turns
        assert record.finish_reason == "cancelled" and record.ended_at is not None
    finally:
        await server.kill()
