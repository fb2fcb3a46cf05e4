"""The Python ACP SDK (`agent-client-protocol` 0.12.x, schema v1.19) as a client of `cairn acp`.

`SdkClient` is an editor built on the SDK's `ClientSideConnection`: it serves
permissions (a test sets the answer per question), and `terminal/*` with a
`wait_for_exit` that never ends by itself (the command runs until the turn is
cancelled). Every line the agent writes is kept raw (`lines`) before the SDK
reads it, so a test sees fields the SDK's models drop; the SDK's log records
(an error it logs for a message it cannot take) are kept in `errors`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, cast

from acp.client.connection import ClientSideConnection
from acp.exceptions import RequestError
from acp.interfaces import Client
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    CreateTerminalResponse,
    DeniedOutcome,
    Implementation,
    RequestPermissionResponse,
    TerminalOutputResponse,
)

WAIT_S = 90.0
# The answer to a permission request: an option id, "cancelled", or None (an error answer).
Answer = Callable[[dict[str, Any]], str | None]


class ErrorRecords(logging.Handler):
    """Every record of level ERROR or above the SDK (or anything in this process) logs."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


class SdkClient:
    """The SDK's `Client` interface: what an editor built on it serves."""

    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.updates: list[Any] = []
        self.permissions: list[dict[str, Any]] = []
        self.waiting = asyncio.Event()

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        self.updates.append(update)

    async def request_permission(
        self, options: Any, session_id: str, tool_call: Any, **_: Any
    ) -> RequestPermissionResponse:
        asked = {"toolCall": tool_call.model_dump(by_alias=True, exclude_none=True)}
        asked["options"] = [o.model_dump(by_alias=True) for o in options]
        self.permissions.append(asked)
        choice = self.answer(asked)
        if choice is None:
            raise RequestError.internal_error({"details": "this client asks nobody"})
        if choice == "cancelled":
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(
            outcome=AllowedOutcome(option_id=choice, outcome="selected")
        )

    async def create_terminal(self, command: str, session_id: str, **_: Any) -> Any:
        return CreateTerminalResponse(terminal_id="term-1")

    async def wait_for_terminal_exit(self, session_id: str, terminal_id: str, **_: Any) -> Any:
        self.waiting.set()
        await asyncio.sleep(3600)  # the command runs until the agent stops waiting

    async def kill_terminal(self, session_id: str, terminal_id: str, **_: Any) -> None:
        return None

    async def release_terminal(self, session_id: str, terminal_id: str, **_: Any) -> None:
        return None

    async def terminal_output(self, session_id: str, terminal_id: str, **_: Any) -> Any:
        return TerminalOutputResponse(output="", truncated=False)

    def on_connect(self, conn: Any) -> None:
        return None

    def kinds(self, kind: str) -> list[Any]:
        return [u for u in self.updates if u.session_update == kind]


class Agent:
    """A running `cairn acp` and the SDK's connection to it."""

    def __init__(
        self, conn: ClientSideConnection, process: asyncio.subprocess.Process, lines: list[Any]
    ) -> None:
        self.conn = conn
        self.process = process
        self.lines = lines

    async def initialize(self, **capabilities: Any) -> Any:
        return await asyncio.wait_for(
            self.conn.initialize(
                protocol_version=1,
                client_capabilities=ClientCapabilities(**capabilities),
                client_info=Implementation(name="python-sdk-test", version="0.12"),
            ),
            WAIT_S,
        )

    def sent(self, method: str) -> list[dict[str, Any]]:
        """The raw messages of `method` the agent wrote."""
        return [m for m in self.lines if m.get("method") == method]

    def raw_updates(self, kind: str) -> list[dict[str, Any]]:
        return [
            m["params"]["update"]
            for m in self.sent("session/update")
            if m["params"]["update"]["sessionUpdate"] == kind
        ]


@contextlib.asynccontextmanager
async def running(client: SdkClient, root: Path, *, unstable: bool = False) -> AsyncIterator[Agent]:
    """`cairn acp` in `root`, its stdout copied line by line (kept raw) to the SDK
    (`unstable`: with the methods the SDK calls unstable, such as `elicitation/create`)."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "cairn",
        "acp",
        cwd=root,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        env={**os.environ, "CAIRN_LOG_LEVEL": "INFO"},
        limit=64 * 1024 * 1024,
    )
    assert process.stdout is not None and process.stdin is not None
    source = process.stdout
    copy = asyncio.StreamReader(limit=64 * 1024 * 1024)
    lines: list[Any] = []

    async def pump() -> None:
        while line := await source.readline():
            lines.append(json.loads(line))
            copy.feed_data(line)
        copy.feed_eof()

    pumping = asyncio.ensure_future(pump())
    # The SDK's `Client` protocol lists every client method; this editor serves the ones used.
    conn = ClientSideConnection(
        cast("Client", client), process.stdin, copy, use_unstable_protocol=unstable
    )
    try:
        yield Agent(conn, process, lines)
    finally:
        process.stdin.close()
        await asyncio.wait_for(process.wait(), WAIT_S)
        await asyncio.wait_for(pumping, WAIT_S)
        await conn.close()


@contextlib.contextmanager
def error_records() -> Any:
    """The ERROR records logged (by the SDK's connection, on the root logger) meanwhile."""
    handler = ErrorRecords()
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield handler.records
    finally:
        root.removeHandler(handler)
