"""A stdio MCP server's process: spawned, read and written as JSON-RPC lines, stopped, its end named.

Cairn runs stdio servers through this transport rather than the SDK's
`stdio_client` for what the SDK keeps to itself: the process's exit status
(a crash names it: `exited with status 3`, `was killed by signal 9
(SIGKILL)`), the lines a server prints on stdout that are not JSON-RPC
(startup banners: counted in one note, `StdoutNoise`, where the SDK logs a
traceback for each), and killing a server at once (`ServerProcess.kill`: a
start that missed its timeout, a stop while starting). Otherwise it does what
the SDK's does: the server runs in a session of its own (its own process
group) in `cwd`, with the SDK's minimal environment plus `env`; each
message is one line of JSON; stopping closes its stdin, waits
`STOP_GRACE_S` for it to exit, then SIGTERMs its group and SIGKILLs it
`KILL_AFTER_S` later, its stdout read and dropped meanwhile so a server
blocked on a full pipe can exit. The end of its stdout is `ended` (the
server exited or closed it). Windows keeps the SDK's transport (no exit
status there).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from cairn.mcp.state import describe_exit

if TYPE_CHECKING:
    from anyio.abc import ObjectReceiveStream, ObjectSendStream, Process
    from mcp.client._transport import TransportStreams
    from mcp.shared.message import SessionMessage

# Seconds a server gets to exit after its stdin closes, then after SIGTERM (the SDK's too).
STOP_GRACE_S = 2.0
KILL_AFTER_S = 2.0
# Seconds to wait for the event loop to see a killed process end.
REAP_S = 2.0
# How often an exit is looked for while waiting for one.
EXIT_POLL_S = 0.01
# Characters of the first non-protocol stdout line kept for the note.
NOISE_LINE_CHARS = 200


@dataclass
class StdoutNoise:
    """The lines a server printed on stdout that are not JSON-RPC messages; `on_first` is
    called when the first one comes (after the start; those of the start are in its status)."""

    count: int = 0
    first: str | None = None
    on_first: Callable[[], None] | None = None

    def note(self, line: str) -> None:
        self.count += 1
        if self.first is None:
            text = line.strip()
            self.first = (
                text if len(text) <= NOISE_LINE_CHARS else text[: NOISE_LINE_CHARS - 1] + "…"
            )
        if self.count == 1 and self.on_first is not None:
            self.on_first()

    def sentence(self, server: str) -> str | None:
        """`server X printed N non-protocol lines on stdout (first: '…')`, or None."""
        if not self.count:
            return None
        lines = "line" if self.count == 1 else "lines"
        return (
            f"server {server} printed {self.count} non-protocol {lines} on stdout"
            f" (first: {self.first!r})"
        )


class ServerProcess:
    """One start of a stdio server: its process (once spawned), its stdout's noise and end."""

    def __init__(self) -> None:
        self.process: Process | None = None
        self.noise = StdoutNoise()
        self.ended = asyncio.Event()

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    @property
    def returncode(self) -> int | None:
        return self.process.returncode if self.process is not None else None

    async def exit_code(self, wait_s: float) -> int | None:
        """The process's exit code, waiting at most `wait_s` for it to end (None: it runs)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait_s
        while self.returncode is None and self.process is not None and loop.time() < deadline:
            await asyncio.sleep(EXIT_POLL_S)
        return self.returncode

    async def ending(self, wait_s: float) -> str | None:
        """How the process ended (`describe_exit`), waiting at most `wait_s`; None if it runs."""
        code = await self.exit_code(wait_s)
        return describe_exit(code) if code is not None else None

    def kill(self) -> None:
        """SIGKILL the server's process group now (it leads one), if it runs."""
        pid = self.pid
        if pid is not None and self.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)


def parse_line(line: str, noise: StdoutNoise) -> Any | None:
    """The JSON-RPC message of one stdout line; None for a blank line or noise (counted)."""
    import mcp_types

    if not line.strip():
        return None
    try:
        return mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValueError:
        noise.note(line)
        return None


async def _read_stdout(
    process: Process, sink: ObjectSendStream[SessionMessage | Exception], server: ServerProcess
) -> None:
    """Deliver each message line to the session; after the session is gone, keep reading
    (and dropping) until the server closes its stdout."""
    import anyio
    from anyio.streams.text import TextReceiveStream
    from mcp.shared.message import SessionMessage

    assert process.stdout is not None
    stream = TextReceiveStream(process.stdout, encoding="utf-8", errors="replace")
    buffer, deliver = "", True
    gone = (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream)
    try:
        async with sink:
            async for chunk in stream:
                lines = (buffer + chunk).split("\n")
                buffer = lines.pop()
                for line in lines:
                    message = parse_line(line, server.noise)
                    if message is None or not deliver:
                        continue
                    try:
                        await sink.send(SessionMessage(message))
                    except gone:
                        deliver = False
    except (*gone, OSError):
        pass
    finally:
        server.ended.set()


async def _write_stdin(
    process: Process,
    source: ObjectReceiveStream[SessionMessage],
    sink: ObjectSendStream[SessionMessage | Exception],
) -> None:
    """Send each message as one line; a broken pipe ends the session's reading too."""
    import anyio

    assert process.stdin is not None
    try:
        async with source:
            async for message in source:
                data = message.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
                await process.stdin.send(data.encode("utf-8"))
    except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
        await sink.aclose()


async def _wait_exit(process: Process, timeout: float) -> bool:
    """Whether the process ended within `timeout` (its return code polled: waiting on the
    process would also wait for pipes a child of it may hold)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while process.returncode is None:
        if loop.time() >= deadline:
            return False
        await asyncio.sleep(EXIT_POLL_S)
    return True


def _signal_group(pid: int, number: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, number)


async def stop_process(process: Process) -> None:
    """Close its stdin, wait `STOP_GRACE_S`, SIGTERM its group, SIGKILL it `KILL_AFTER_S`
    later; then release its pipes."""
    import anyio

    closing = (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError)
    assert process.stdin is not None and process.stdout is not None
    with contextlib.suppress(*closing):
        await process.stdin.aclose()
    if not await _wait_exit(process, STOP_GRACE_S):
        _signal_group(process.pid, signal.SIGTERM)
        if not await _wait_exit(process, KILL_AFTER_S):
            _signal_group(process.pid, signal.SIGKILL)
            await _wait_exit(process, REAP_S)
    with contextlib.suppress(*closing):
        await process.stdout.aclose()
    transport = getattr(getattr(process, "_process", None), "_transport", None)
    close = getattr(transport, "close", None)
    if callable(close):  # else it warns when collected while a child holds a pipe
        with contextlib.suppress(PermissionError):
            close()


@asynccontextmanager
async def stdio_transport(
    command: str,
    args: list[str],
    env: dict[str, str],
    cwd: Path,
    errlog: TextIO,
    server: ServerProcess,
) -> AsyncIterator[TransportStreams]:
    """The streams of a server run as `command args` (see the module docstring)."""
    import anyio
    from mcp.client.stdio import get_default_environment
    from mcp.shared.message import SessionMessage

    if sys.platform == "win32":  # pragma: no cover - the SDK's transport (no exit status)
        from mcp.client.stdio import StdioServerParameters, stdio_client

        params = StdioServerParameters(command=command, args=args, env=env or None, cwd=cwd)
        async with stdio_client(params, errlog=errlog) as streams:
            yield streams
        return
    process = await anyio.open_process(
        [command, *args],
        env=get_default_environment() | env,
        stderr=errlog,
        cwd=cwd,
        start_new_session=True,
    )
    server.process = process
    read_in, read_out = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_in, write_out = anyio.create_memory_object_stream[SessionMessage](0)
    async with anyio.create_task_group() as group:
        group.start_soon(_read_stdout, process, read_in, server)
        group.start_soon(_write_stdin, process, write_out, read_in)
        try:
            yield read_out, write_in
        finally:
            # Stopping must finish even when the caller is cancelled, or the server leaks.
            with anyio.CancelScope(shield=True):
                read_out.close()
                write_in.close()
                await stop_process(process)
            group.cancel_scope.cancel()
