"""One start of an MCP server: its transport, process, stderr and client, from opening to its end.

`Attempt.open` opens the transport, negotiates the protocol (the SDK's
`Client` in its `auto` mode: a 2026-07-28 server answers `server/discover`,
an older one the `initialize` handshake) and reads the tool listing, all
within the server's `startup_timeout_s`. When that time runs out, or the
server is stopped while starting (`cut`), the server's processes are killed
first and the opening cancelled then, so the SDK's unwinding does not wait
on a process that will never answer: the start fails at once, quietly, with
its reason (`start_failure`). `serve` waits for a started server's end (or
its stop), watching for tool-list changes; `ending` names how it ended: its exit status or
signal (a stdio server: `exited with status 3`, `was killed by signal 9
(SIGKILL)`), else that the connection was lost, with the stderr lines it
wrote since it was ready (not its startup banner).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cairn.mcp.leftovers import kill_processes
from cairn.mcp.listing import ToolListing, fetch_listing
from cairn.mcp.state import describe_error, describe_exit
from cairn.mcp.stderr import StderrTail
from cairn.mcp.stdio import ServerProcess
from cairn.mcp.transport import open_transport
from cairn.settings import McpServerSettings

if TYPE_CHECKING:
    import mcp
    import mcp_types
    from mcp.client.session import ElicitationFnT, MessageHandlerFnT

logger = logging.getLogger(__name__)

CLIENT_NAME = "cairn"
# Seconds a server that failed to start gets to finish writing its stderr (for the reason).
LAST_WORDS_S = 1.0
# Seconds a server whose connection ended gets to exit, so its exit status can be named.
EXIT_WAIT_S = 1.0


def client_info() -> mcp_types.Implementation:
    import mcp_types

    try:
        version = metadata.version(CLIENT_NAME)
    except metadata.PackageNotFoundError:
        version = "0"
    return mcp_types.Implementation(name=CLIENT_NAME, version=version)


class Attempt:
    """One start of one server (see the module docstring)."""

    def __init__(self, name: str, settings: McpServerSettings) -> None:
        self.name = name
        self.settings = settings
        stdio = settings.transport == "stdio"
        self.tail = StderrTail(name) if stdio else None
        self.process = ServerProcess() if stdio else None
        self.client: mcp.Client | None = None
        self.lost = asyncio.Event()
        # Stderr lines written before it was ready (its banner) are left out of `ending`.
        self._ready_lines = 0
        self._cut: Callable[[], None] | None = None
        self.cut_short = False

    @property
    def protocol(self) -> str | None:
        return self.client.protocol_version if self.client is not None else None

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    def notes(self) -> tuple[str, ...]:
        """The non-protocol lines it printed on stdout, as one note (none: empty)."""
        noise = self.process.noise.sentence(self.name) if self.process is not None else None
        return (noise,) if noise else ()

    async def open(
        self,
        stack: AsyncExitStack,
        root: Path,
        on_message: MessageHandlerFnT,
        on_elicit: ElicitationFnT | None = None,
    ) -> ToolListing:
        """Start the server, connect, and read its tools (within `startup_timeout_s`);
        `on_elicit`: the server's questions to the user (None: the capability is not
        declared)."""
        from mcp import Client

        tail = self.tail
        errlog = tail.errlog if tail is not None else sys.stderr
        transport = open_transport(self.name, self.settings, root, errlog, self.process)
        if tail is not None:
            tail.start()
        loop = asyncio.get_running_loop()
        async with asyncio.timeout(None) as deadline:
            self._cut = lambda: self._cut_now(deadline)
            timer = loop.call_later(self.settings.startup_timeout_s, self._cut)
            try:
                client = await stack.enter_async_context(
                    Client(
                        transport,
                        client_info=client_info(),
                        message_handler=on_message,
                        elicitation_callback=on_elicit,
                    )
                )
                if tail is not None:
                    tail.spawned()
                listing = await fetch_listing(client, self.name, self.settings)
            finally:
                timer.cancel()
                self._cut = None
        self.client = client
        self._ready_lines = tail.count if tail is not None else 0
        return listing

    def cut(self) -> bool:
        """Stop a start still under way now (its processes killed); whether one was."""
        if self._cut is None:
            return False
        self._cut()
        return True

    def _cut_now(self, deadline: asyncio.Timeout) -> None:
        self.cut_short = True
        self.kill()
        deadline.reschedule(asyncio.get_running_loop().time())

    def kill(self) -> list[int]:
        """SIGKILL whatever writes to the server's stderr and its process group; the pids
        found by their stderr."""
        pids = kill_processes(self.tail.writers()) if self.tail is not None else []
        if self.process is not None:
            self.process.kill()
        return pids

    async def serve(self, stopping: asyncio.Event, on_stale: Callable[[], None]) -> str:
        """Until the server ended or `stopping` is set, watching for tool-list changes
        (`on_stale`); how it ended ("stopped" when it was stopped)."""
        assert self.client is not None
        watch = asyncio.ensure_future(self._watch_tools(self.client, on_stale))
        stop = asyncio.ensure_future(stopping.wait())
        end = asyncio.ensure_future(self.wait_end())
        try:
            await asyncio.wait({stop, end}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (watch, stop, end):
                task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watch
        if stopping.is_set():
            return "stopped"
        return self.with_stderr(await self.ending(), since_ready=True)

    async def _watch_tools(self, client: mcp.Client, on_stale: Callable[[], None]) -> None:
        """Subscribe to tool-list changes where the protocol needs it (2026-07-28 on)."""
        try:
            async with client.listen(tools_list_changed=True) as events:
                async for _ in events:
                    on_stale()
        except Exception as exc:  # older protocols notify without a subscription
            logger.debug("mcp %s: no tool-list subscription: %s", self.name, exc)

    async def start_failure(self, exc: Exception) -> tuple[str, bool]:
        """Why the start failed, and whether a retry is pointless (a timed-out start is)."""
        await self.last_words()
        if isinstance(exc, TimeoutError) or self.cut_short:
            timeout = self.settings.startup_timeout_s
            return self.with_stderr(f"no answer within {timeout:g} s (startup_timeout_s)"), True
        exited = self.exit()
        return self.with_stderr(
            f"{exited} while starting" if exited else describe_error(exc)
        ), False

    async def wait_end(self) -> None:
        """Until the connection is lost (a call saw it close) or the server's output ended."""
        waits: list[Awaitable[Any]] = [self.lost.wait()]
        if self.tail is not None:
            waits.append(self.tail.exited.wait())
        if self.process is not None:
            waits.append(self.process.ended.wait())
        tasks = [asyncio.ensure_future(w) for w in waits]
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in tasks:
                task.cancel()

    async def ending(self) -> str:
        """How the started server ended: its exit status or signal (waiting `EXIT_WAIT_S` for
        it), else that the connection was lost."""
        exited = await self.process.ending(EXIT_WAIT_S) if self.process is not None else None
        return exited or "lost the connection"

    def exit(self) -> str | None:
        """How its process ended, if it has (`describe_exit`)."""
        if self.process is None or self.process.returncode is None:
            return None
        return describe_exit(self.process.returncode)

    def stderr(self) -> tuple[str, ...]:
        return tuple(self.tail.lines) if self.tail is not None else ()

    def with_stderr(self, reason: str, *, since_ready: bool = False) -> str:
        """`reason (stderr: its last line)`; `since_ready`: only a line written since ready."""
        tail = self.tail
        if tail is None or (since_ready and tail.count <= self._ready_lines):
            return reason
        last = tail.last()
        return f"{reason} (stderr: {last})" if last else reason

    async def last_words(self) -> None:
        """Give a server that failed to start a moment to finish writing its stderr."""
        if self.tail is not None:
            self.tail.spawned()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.tail.exited.wait(), LAST_WORDS_S)

    def close(self) -> None:
        self.client = None
        if self.tail is not None:
            self.tail.close()
