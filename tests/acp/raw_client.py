"""A small NDJSON JSON-RPC client for `cairn acp`, for protocol details the SDK hides.

It writes raw lines (so malformed ones too), keeps every message the agent
sends in order, answers the agent's requests with handlers a test sets
(`fs/*`, `session/request_permission`; unhandled ones get Method not found),
and waits for responses or notifications from a mark, like the LSP harness.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

WAIT_TIMEOUT_S = 90.0
Answer = Callable[[dict[str, Any]], Any]


class RpcFailure(Exception):
    def __init__(self, error: dict[str, Any]) -> None:
        super().__init__(error.get("message"))
        self.code = error.get("code")
        self.message = str(error.get("message"))


class RawAcpClient:
    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.messages: list[dict[str, Any]] = []
        self.handlers: dict[str, Answer] = {}
        self.requests: list[dict[str, Any]] = []
        self._changed = asyncio.Event()
        self._ids = itertools.count(1)
        self._stderr: list[bytes] = []
        self._reader = asyncio.ensure_future(self._read())
        self._drain = asyncio.ensure_future(self._read_stderr())

    async def _read_stderr(self) -> None:
        assert self.process.stderr is not None
        while chunk := await self.process.stderr.read(65536):
            self._stderr.append(chunk)

    @classmethod
    async def start(cls, cwd: Path) -> RawAcpClient:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "cairn",
            "acp",
            cwd=cwd,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env={**os.environ, "CAIRN_LOG_LEVEL": "INFO"},
            limit=64 * 1024 * 1024,
        )
        return cls(process)

    async def _read(self) -> None:
        assert self.process.stdout is not None
        while line := await self.process.stdout.readline():
            message = json.loads(line)
            self.messages.append(message)
            self._changed.set()
            if "method" in message and "id" in message:
                self.requests.append(message)
                self._answer(message)

    def _answer(self, message: dict[str, Any]) -> None:
        handler = self.handlers.get(message["method"])
        if handler is None:
            error = {"code": -32601, "message": f"no handler for {message['method']}"}
            self.write({"jsonrpc": "2.0", "id": message["id"], "error": error})
            return
        try:
            result = handler(message.get("params") or {})
        except RpcFailure as failure:
            error = {"code": failure.code, "message": failure.message}
            self.write({"jsonrpc": "2.0", "id": message["id"], "error": error})
            return
        self.write({"jsonrpc": "2.0", "id": message["id"], "result": result})

    def write(self, message: Any) -> None:
        self.write_line(json.dumps(message))

    def write_line(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line.encode("utf-8") + b"\n")

    def mark(self) -> int:
        return len(self.messages)

    async def wait(
        self, predicate: Callable[[dict[str, Any]], bool], mark: int = 0
    ) -> dict[str, Any]:
        async def scan() -> dict[str, Any]:
            while True:
                for message in self.messages[mark:]:
                    if predicate(message):
                        return message
                self._changed.clear()
                await self._changed.wait()

        return await asyncio.wait_for(scan(), WAIT_TIMEOUT_S)

    def send(self, method: str, params: Any = None) -> int:
        request_id = next(self._ids)
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        self.write(message)
        return request_id

    async def response(self, request_id: int, mark: int = 0) -> dict[str, Any]:
        return await self.wait(lambda m: m.get("id") == request_id and "method" not in m, mark)

    async def call(self, method: str, params: Any = None) -> Any:
        """Send a request; its result, or RpcFailure with its error."""
        answer = await self.response(self.send(method, params))
        if "error" in answer:
            raise RpcFailure(answer["error"])
        return answer["result"]

    def notify(self, method: str, params: Any) -> None:
        self.write({"jsonrpc": "2.0", "method": method, "params": params})

    def updates(self, session_id: str, mark: int = 0) -> list[dict[str, Any]]:
        return [
            m["params"]["update"]
            for m in self.messages[mark:]
            if m.get("method") == "session/update" and m["params"]["sessionId"] == session_id
        ]

    async def initialize(self, **capabilities: Any) -> dict[str, Any]:
        return await self.call(
            "initialize", {"protocolVersion": 1, "clientCapabilities": capabilities}
        )

    @property
    def stderr(self) -> str:
        return b"".join(self._stderr).decode("utf-8", errors="replace")

    async def close(self) -> str:
        """Close stdin and wait for the agent to exit; its stderr."""
        assert self.process.stdin is not None
        with contextlib.suppress(ConnectionError):
            self.process.stdin.close()
        await asyncio.wait_for(self.process.wait(), WAIT_TIMEOUT_S)
        await asyncio.wait_for(self._drain, WAIT_TIMEOUT_S)
        self._reader.cancel()
        return self.stderr
