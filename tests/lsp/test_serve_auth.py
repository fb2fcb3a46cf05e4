"""`cairn serve --tcp` asks for its token, `--socket` serves a private unix socket (issue 26 item 3).

Real `python -m cairn serve` processes and real sockets; every timeout is a guard only.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import stat
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from cairn.frontends.codes import INVALID_PARAMS, SERVER_NOT_INITIALIZED
from tests.lsp.harness import DEBUG_ENV, SERVER_COMMAND, write_workspace
from tests.lsp.raw_client import (
    LOCALHOST,
    READ_TIMEOUT_S,
    RawConnection,
    connect,
    listening_on,
    spawn_tcp,
)

HTTP_POST = (
    b"POST / HTTP/1.1\r\nHost: 127.0.0.1:2087\r\nContent-Type: text/plain\r\n"
    b"Content-Length: 60\r\n\r\n"
)
ENV_TOKEN = "a-launcher-chosen-token-0123456789"


class TcpServer:
    """A running `cairn serve --tcp`: its process, port, token file and workspace."""

    def __init__(
        self, process: asyncio.subprocess.Process, port: int, where: Path, root: Path
    ) -> None:
        self.process = process
        self.port = port
        self.token_file = where
        self.root = root
        self.stderr = root.parent / "stderr.log"

    async def client(self, token: str | None) -> RawConnection:
        reader, writer = await connect(self.port)
        return RawConnection(reader, writer, token)

    async def finish(self, client: RawConnection) -> int:
        answer = await client.initialize(self.root)
        assert answer["result"]["serverInfo"]["name"] == "cairn", answer
        await client.shutdown()
        return await asyncio.wait_for(self.process.wait(), READ_TIMEOUT_S)


@pytest_asyncio.fixture
async def tcp_server(tmp_path: Path) -> AsyncIterator[TcpServer]:
    root = write_workspace(tmp_path / "ws")
    process = await spawn_tcp(root, tmp_path / "stderr.log", tmp_path / "state")
    try:
        port, where = await listening_on(process)
        yield TcpServer(process, port, where, root)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


def initialize_message(root: Path, options: Any = None) -> dict[str, Any]:
    params: dict[str, Any] = {
        "processId": os.getpid(),
        "rootUri": root.as_uri(),
        "capabilities": {},
    }
    if options is not None:
        params["initializationOptions"] = options
    return {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}


async def refused_with(server: TcpServer, message: dict[str, Any]) -> dict[str, Any]:
    """Send `message` first; the one error answered, after which the server closes."""
    client = await server.client(None)
    await client.send(message)
    answer = await client.read()
    assert "result" not in answer and "data" not in answer["error"], answer
    assert await asyncio.wait_for(client.reader.read(), READ_TIMEOUT_S) == b""
    return answer


async def closed_silently(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, data: bytes
) -> None:
    writer.write(data)
    await writer.drain()
    assert await asyncio.wait_for(reader.read(), READ_TIMEOUT_S) == b""  # nothing answered
    writer.close()


async def test_token_is_required_and_refusals_leave_the_server_listening(
    tcp_server: TcpServer,
) -> None:
    server = tcp_server
    fix = f"pass the token from {server.token_file} as initializationOptions.token"
    missing = await refused_with(server, initialize_message(server.root))
    assert missing["id"] == 1 and missing["error"]["code"] == INVALID_PARAMS
    assert "initializationOptions.token is missing" in missing["error"]["message"]
    assert missing["error"]["message"].endswith(fix)
    wrong = await refused_with(server, initialize_message(server.root, {"token": "guess"}))
    assert wrong["error"]["message"] == f"initialize: wrong initializationOptions.token: {fix}"
    other = await refused_with(server, {"jsonrpc": "2.0", "id": 7, "method": "cairn/goalTree"})
    assert other["id"] == 7 and other["error"]["code"] == SERVER_NOT_INITIALIZED
    token = server.token_file.read_text(encoding="utf-8")
    assert stat.S_IMODE(server.token_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(server.token_file.parent.stat().st_mode) == 0o700
    assert await server.finish(await server.client(token)) == 0
    assert not server.token_file.exists()  # removed when the server stops
    log = server.stderr.read_text(encoding="utf-8")
    assert "refused a connection" in log and token not in log  # never logged
    served = [line for line in log.splitlines() if "refused a connection" not in line]
    assert not [line for line in served if "initializationOptions" in line]  # not a setting


async def test_http_bytes_are_closed_without_an_answer(tcp_server: TcpServer) -> None:
    server = tcp_server
    body = json.dumps(initialize_message(server.root)).encode()
    await closed_silently(*await connect(server.port), HTTP_POST + body)
    await closed_silently(*await connect(server.port), b"GET / HTTP/1.1\r\n\r\n")
    origin = b"Content-Length: %d\r\nOrigin: http://evil.example\r\n\r\n" % len(body) + body
    await closed_silently(*await connect(server.port), origin)
    token = server.token_file.read_text(encoding="utf-8")
    assert await server.finish(await server.client(token)) == 0


async def test_a_silent_squatter_does_not_block_the_client(tcp_server: TcpServer) -> None:
    server = tcp_server
    silent = await connect(server.port)
    half = await connect(server.port)
    half[1].write(b"Content-Length: 100\r\n")  # a header block that never ends
    await half[1].drain()
    client = await server.client(server.token_file.read_text(encoding="utf-8"))
    answer = await client.initialize(server.root)
    assert answer["result"]["serverInfo"]["name"] == "cairn"
    for reader, _ in (silent, half):  # too late once the session runs: closed, unanswered
        assert await asyncio.wait_for(reader.read(), READ_TIMEOUT_S) == b""
    late_reader, late_writer = await connect(server.port)  # while the session runs: closed
    assert await asyncio.wait_for(late_reader.read(), READ_TIMEOUT_S) == b""
    late_writer.close()
    tree = await client.request("cairn/goalTree", {})
    assert set(tree["result"]) == {"sessionId", "tree", "rendered"}
    await client.shutdown()
    assert await asyncio.wait_for(server.process.wait(), READ_TIMEOUT_S) == 0
    for _, writer in (silent, half):
        writer.close()


async def test_the_launchers_token_from_the_environment(tmp_path: Path) -> None:
    root = write_workspace(tmp_path / "ws")
    state = tmp_path / "state"
    env = {"CAIRN_SERVE_TOKEN": ENV_TOKEN}
    process = await spawn_tcp(root, tmp_path / "stderr.log", state, env=env)
    try:
        assert process.stdout is not None
        line = await asyncio.wait_for(process.stdout.readline(), READ_TIMEOUT_S)
        assert line.decode().endswith("; token in $CAIRN_SERVE_TOKEN\n"), line
        port = int(line.split(b":")[2].split(b";")[0])
        assert not (state / "cairn" / "serve").exists() or not any(
            (state / "cairn" / "serve").iterdir()
        )
        server = TcpServer(process, port, Path("unused"), root)
        wrong = await refused_with(server, initialize_message(root, {"token": "x" * 40}))
        assert wrong["error"]["message"].endswith(
            "pass the token from $CAIRN_SERVE_TOKEN as initializationOptions.token"
        )
        assert await server.finish(await server.client(ENV_TOKEN)) == 0
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


def run_serve(*args: str, cwd: Path, state: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*SERVER_COMMAND, *args],
        capture_output=True,
        text=True,
        timeout=READ_TIMEOUT_S,
        cwd=cwd,
        env={**os.environ, **DEBUG_ENV, "XDG_STATE_HOME": str(state)},
        check=False,
    )


@pytest.mark.parametrize("port", ["99999", "-1"])
def test_an_invalid_port_is_one_line(tmp_path: Path, port: str) -> None:
    done = run_serve("--tcp", "--port", port, cwd=tmp_path, state=tmp_path / "state")
    assert done.returncode != 0 and done.stdout == ""
    assert done.stderr.splitlines() == [
        f"error: invalid port {port}: choose one from 1 to 65535 with --port, "
        "or leave --port out to let the system choose a free one"
    ]


def test_a_port_in_use_is_one_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind((LOCALHOST, 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = run_serve("--tcp", "--port", str(port), cwd=tmp_path, state=tmp_path / "state")
    assert done.returncode != 0
    assert done.stderr.splitlines() == [
        f"error: {LOCALHOST}:{port} is already in use by another program: choose another "
        "--port, or leave --port out to let the system choose a free one"
    ]


async def test_a_unix_socket_is_private_and_needs_no_token(tmp_path: Path) -> None:
    root = write_workspace(tmp_path / "ws")
    path = tmp_path / "run" / "s.sock"
    process = await asyncio.create_subprocess_exec(
        *SERVER_COMMAND,
        "--socket",
        str(path),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        cwd=root,
        env={**os.environ, **DEBUG_ENV, "XDG_STATE_HOME": str(tmp_path / "state")},
    )
    try:
        assert process.stdout is not None
        line = await asyncio.wait_for(process.stdout.readline(), READ_TIMEOUT_S)
        assert line.decode() == f"cairn: listening on unix:{path}\n"
        assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
        assert stat.S_ISSOCK(path.stat().st_mode) and stat.S_IMODE(path.stat().st_mode) == 0o600
        await closed_silently(*await asyncio.open_unix_connection(str(path)), HTTP_POST)
        client = RawConnection(*await asyncio.open_unix_connection(str(path)))
        answer = await client.initialize(root)
        assert answer["result"]["serverInfo"]["name"] == "cairn"
        await client.shutdown()
        assert await asyncio.wait_for(process.wait(), READ_TIMEOUT_S) == 0
        assert not path.exists()  # removed at exit
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


def test_a_socket_folder_others_can_write_is_refused(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    done = run_serve("--socket", str(shared / "s.sock"), cwd=tmp_path, state=tmp_path / "state")
    assert done.returncode != 0 and not (shared / "s.sock").exists()
    assert done.stderr.splitlines() == [
        f"error: the socket folder {shared} is writable by other users (mode 777): "
        f"run `chmod go-w {shared}`, or choose a --socket path in a folder only you can write to"
    ]
