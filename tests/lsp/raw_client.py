"""A byte-level JSON-RPC client for `cairn serve`: sends anything, even garbage.

pytest-lsp cannot send malformed frames; this one writes raw bytes to the
server's stdin (or a TCP socket: `RawServer.start_tcp`) and reads framed
messages back. Requests the
server sends (progress creation, registrations) are answered with `null`.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import socket
from pathlib import Path
from typing import Any

from cairn.files.workspace import path_to_uri
from tests.lsp.harness import DEBUG_ENV, SERVER_COMMAND

READ_TIMEOUT_S = 60.0
# A JSON-RPC header line is short; 10 MB bodies are read with readexactly.
STREAM_LIMIT = 1 << 16
LOCALHOST = "127.0.0.1"
CONNECT_ATTEMPTS = 200
CONNECT_PAUSE_S = 0.1
# The line `cairn serve --tcp` prints once it listens (cairn.lsp.listen.listening_line).
LISTENING_LINE = re.compile(rb"cairn: listening on 127\.0\.0\.1:([0-9]+); token in (.+)\n")


def frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class RawConnection:
    """Framed JSON-RPC over a pair of asyncio streams."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        token: str | None = None,
    ) -> None:
        self.reader = reader
        self.writer = writer
        self.token = token  # sent as initializationOptions.token (a TCP server asks for it)
        self.notifications: list[dict[str, Any]] = []
        self._next_id = 0

    async def write(self, raw: bytes) -> None:
        self.writer.write(raw)
        await self.writer.drain()

    async def send(self, message: dict[str, Any]) -> None:
        await self.write(frame(json.dumps(message).encode("utf-8")))

    async def notify(self, method: str, params: Any) -> None:
        await self.send({"jsonrpc": "2.0", "method": method, "params": params})

    async def read(self) -> dict[str, Any]:
        length = 0
        while True:
            line = await asyncio.wait_for(self.reader.readline(), READ_TIMEOUT_S)
            if not line:
                raise ConnectionError("the server closed the stream")
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":", 1)[1])
            elif line in (b"\r\n", b"\n") and length:
                body = await asyncio.wait_for(self.reader.readexactly(length), READ_TIMEOUT_S)
                return json.loads(body)

    async def response(self, msg_id: Any) -> dict[str, Any]:
        """Read until the response to `msg_id`, answering server requests, keeping notifications."""
        while True:
            message = await self.read()
            if "method" in message and "id" in message:
                await self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
            elif "method" in message:
                self.notifications.append(message)
            elif message.get("id") == msg_id:
                return message

    async def request(
        self, method: str, params: Any = None, *, omit_params: bool = False
    ) -> dict[str, Any]:
        self._next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self._next_id, "method": method}
        if not omit_params:
            message["params"] = params
        await self.send(message)
        return await self.response(self._next_id)

    async def initialize(self, root: Path) -> dict[str, Any]:
        params: dict[str, Any] = {
            "processId": os.getpid(),
            "rootUri": path_to_uri(root),
            "capabilities": {},
        }
        if self.token is not None:
            params["initializationOptions"] = {"token": self.token}
        answer = await self.request("initialize", params)
        await self.notify("initialized", {})
        return answer

    async def shutdown(self) -> None:
        await self.request("shutdown")
        await self.notify("exit", None)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((LOCALHOST, 0))
        return probe.getsockname()[1]


async def listening_on(process: asyncio.subprocess.Process) -> tuple[int, Path]:
    """The port and the token file a `cairn serve --tcp` process prints on stdout."""
    assert process.stdout is not None
    line = await asyncio.wait_for(process.stdout.readline(), READ_TIMEOUT_S)
    match = LISTENING_LINE.fullmatch(line)
    assert match is not None, line
    return int(match[1]), Path(match[2].decode())


async def spawn_tcp(
    cwd: Path, stderr: Path, state: Path, *args: str, env: dict[str, str] | None = None
) -> asyncio.subprocess.Process:
    """`cairn serve --tcp ARGS` with its state folder at `state`, stdout piped."""
    with stderr.open("wb") as sink:
        return await asyncio.create_subprocess_exec(
            *SERVER_COMMAND,
            "--tcp",
            *args,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=sink,
            cwd=cwd,
            env={**os.environ, **DEBUG_ENV, "XDG_STATE_HOME": str(state), **(env or {})},
        )


async def connect(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """Connect to 127.0.0.1:`port`, waiting for the server to listen."""
    for _ in range(CONNECT_ATTEMPTS):
        try:
            return await asyncio.open_connection(LOCALHOST, port, limit=STREAM_LIMIT)
        except OSError:
            await asyncio.sleep(CONNECT_PAUSE_S)
    raise TimeoutError(f"nothing listens on {LOCALHOST}:{port}")


class RawServer(RawConnection):
    """`cairn serve` over stdio (or TCP with `start_tcp`), its stderr kept in a file."""

    def __init__(
        self,
        process: asyncio.subprocess.Process,
        stderr: Path,
        streams: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None,
    ) -> None:
        if streams is None:
            assert process.stdout is not None and process.stdin is not None
            streams = (process.stdout, process.stdin)
        super().__init__(*streams)
        self.process = process
        self.stderr = stderr

    @classmethod
    async def start(cls, cwd: Path, stderr: Path, args: list[str] | None = None) -> RawServer:
        with stderr.open("wb") as sink:
            process = await asyncio.create_subprocess_exec(
                *SERVER_COMMAND,
                *(args or []),
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=sink,
                cwd=cwd,
                env={**os.environ, **DEBUG_ENV},
                limit=STREAM_LIMIT,
            )
        return cls(process, stderr)

    @classmethod
    async def start_tcp(cls, cwd: Path, stderr: Path) -> RawServer:
        """`cairn serve --tcp` on a port the system chooses, connected with its token."""
        process = await spawn_tcp(cwd, stderr, stderr.parent / "state")
        try:
            port, token_file = await listening_on(process)
            streams = await connect(port)
        except BaseException:
            process.kill()
            await process.wait()
            raise
        server = cls(process, stderr, streams)
        server.token = token_file.read_text(encoding="utf-8")
        return server

    async def stop(self) -> int:
        try:
            await self.shutdown()
            return await asyncio.wait_for(self.process.wait(), READ_TIMEOUT_S)
        finally:
            await self.kill()

    async def kill(self) -> None:
        if self.process.returncode is None:
            self.process.kill()
            await self.process.wait()
