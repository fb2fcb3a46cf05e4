"""One MCP server's life: started on first use, restarted after a crash, stopped with its owner.

A connection starts when something first needs it (`wait_started`: the first
turn that offers tools, `cairn mcp list`, a dry run). A supervisor task owns
the SDK client (anyio contexts must be entered and left in one task): it
opens the transport, lists the tools, and then waits until the connection is
lost (a call saw it close, or a stdio server's stderr pipe ended because the
process exited) or the owner stops it. A lost connection is reopened after
`restart_delay(failures)` (exponential backoff); after `MAX_RESTARTS`
failures in a row, or at once for a failure a retry cannot fix (a command
that does not exist, an unset variable), the server is `failed` and stays
so, with its reason. Nothing here raises into a turn: a server that is not
`ready` is reported with its state and reason, and a call on it fails with
`McpCallError`, which the tool registry turns into a tool error. A server
that announces a changed tool list (`notifications/tools/list_changed`) is
listed again the next time a turn asks for its tools.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
from collections.abc import Callable
from contextlib import AsyncExitStack
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cairn.mcp import state
from cairn.mcp.leftovers import kill_processes
from cairn.mcp.state import (
    DISABLED,
    NOT_STARTED,
    McpCallError,
    Origin,
    ServerState,
    ServerStatus,
    describe_error,
    restart_delay,
)
from cairn.mcp.stderr import StderrTail
from cairn.mcp.tools import McpToolSpec, tool_specs
from cairn.mcp.transport import McpConfigError, describe_target, expanded, open_transport
from cairn.settings import McpServerSettings

if TYPE_CHECKING:
    import mcp
    import mcp_types

logger = logging.getLogger(__name__)

# Pages of `tools/list` read at most (a server that never stops paginating).
MAX_TOOL_PAGES = 100
# Seconds stopping servers get to end (stdin closed; after 2 s the SDK sends SIGTERM) before
# what is left of them is killed: a hung server must not hold up the editor's shutdown.
STOP_TIMEOUT_S = 3.0
# Seconds a killed server's supervisor gets to see the end, and again once cancelled.
KILLED_WAIT_S = 2.0
CLIENT_NAME = "cairn"
# Seconds a server that failed to start gets to finish writing its stderr (for the reason).
LAST_WORDS_S = 1.0
# Errors of starting a process that a retry cannot fix.
_PERMANENT_START_ERRORS = (FileNotFoundError, PermissionError, NotADirectoryError)


def _client_info() -> mcp_types.Implementation:
    import mcp_types

    try:
        version = metadata.version(CLIENT_NAME)
    except metadata.PackageNotFoundError:
        version = "0"
    return mcp_types.Implementation(name=CLIENT_NAME, version=version)


async def list_all_tools(client: mcp.Client, refresh: bool = False) -> list[mcp_types.Tool]:
    """Every tool of the server, page after page (`refresh`: bypassing the SDK's cache)."""
    tools: list[mcp_types.Tool] = []
    cursor: str | None = None
    for _ in range(MAX_TOOL_PAGES):
        page = await client.list_tools(cursor=cursor, cache_mode="refresh" if refresh else "use")
        tools += page.tools
        cursor = page.next_cursor
        if cursor is None:
            break
    return tools


class McpConnection:
    """One configured server (see the module docstring)."""

    def __init__(
        self,
        name: str,
        settings: McpServerSettings,
        root: Path,
        origin: Origin = "settings",
    ) -> None:
        self.name = name
        self.settings = settings
        self.root = root
        self.origin: Origin = origin
        self.state: ServerState = "not started" if settings.enabled else "disabled"
        self.reason: str | None = NOT_STARTED if settings.enabled else DISABLED
        self.tools: tuple[McpToolSpec, ...] = ()
        self.attempting = False
        self._tools_stale = False
        self._failures = 0
        self._client: mcp.Client | None = None
        self._tail: StderrTail | None = None
        self._task: asyncio.Task[None] | None = None
        self._changed = asyncio.Event()
        self._lost = asyncio.Event()
        self._stopping = asyncio.Event()

    # -- state ---------------------------------------------------------------

    def _set(self, state: ServerState, reason: str | None = None) -> None:
        self.state, self.reason = state, reason
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    async def _until(self, done: Callable[[], bool], timeout: float) -> bool:
        """Wait (at most `timeout` s) until `done()`; whether it is."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                while not done():
                    await self._changed.wait()
        return done()

    def status(self) -> ServerStatus:
        return ServerStatus(
            name=self.name,
            transport=self.settings.transport,
            target=describe_target(self.settings),
            origin=self.origin,
            state=self.state,
            reason=self.reason,
            tools=self.tools if self.state == "ready" else (),
        )

    # -- starting --------------------------------------------------------------

    def start(self) -> None:
        """Start the supervisor (once; on the running event loop)."""
        if self._task is None and self.state == "not started":
            self.attempting = True
            self._set("starting")
            self._task = asyncio.get_running_loop().create_task(self._supervise())

    async def wait_started(self) -> ServerStatus:
        """Start if needed and wait (up to the startup timeout) for the current attempt;
        list the tools again when the server said they changed."""
        self.start()
        # The attempt's own timeout starts later than this wait, and a server that misses it
        # gets LAST_WORDS_S to say why: wait past both, so its reason is seen.
        await self._until(
            lambda: not self.attempting, self.settings.startup_timeout_s + 2 * LAST_WORDS_S
        )
        client = self._client
        if self._tools_stale and client is not None:
            self._tools_stale = False
            try:
                tools = await list_all_tools(client, refresh=True)
            except Exception as exc:  # keep the tools it had; the next call will tell
                logger.warning("mcp %s: listing tools again failed: %s", self.name, exc)
            else:
                self.tools = tuple(tool_specs(self.name, tools, self.settings))
        return self.status()

    async def _watch_tools(self, client: mcp.Client) -> None:
        """Subscribe to tool-list changes where the protocol needs it (2026-07-28 on)."""
        try:
            async with client.listen(tools_list_changed=True) as events:
                async for _ in events:
                    self._tools_stale = True
        except Exception as exc:  # older protocols notify without a subscription
            logger.debug("mcp %s: no tool-list subscription: %s", self.name, exc)

    async def _on_message(self, message: Any) -> None:
        """Server notifications: a changed tool list marks the tools to be listed again."""
        import mcp_types

        if isinstance(message, mcp_types.ToolListChangedNotification):
            self._tools_stale = True
        elif isinstance(message, Exception):
            logger.debug("mcp %s: transport error: %s", self.name, message)

    async def _supervise(self) -> None:
        while not self._stopping.is_set():
            reason, permanent = await self._run_once()
            if self._stopping.is_set():
                break
            self._failures += 1
            if permanent or self._failures > state.MAX_RESTARTS:
                gave_up = "" if permanent else f" (gave up after {state.MAX_RESTARTS} restarts)"
                self._set("failed", reason + gave_up)
                break
            delay = restart_delay(self._failures)
            logger.info("mcp %s: %s; restarting in %g s", self.name, reason, delay)
            self._set("restarting", f"{reason}; restarting in {delay:g} s")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), delay)
            self.attempting = True
            self._set("restarting", reason)
        self.attempting = False
        if self.state != "failed":
            self._set("stopped", "stopped")

    async def _run_once(self) -> tuple[str, bool]:
        """One connection from start to loss: why it ended, and whether a retry is pointless."""
        self._lost = asyncio.Event()
        tail = StderrTail(self.name) if self.settings.transport == "stdio" else None
        self._tail = tail
        try:
            settings = self._expanded()
            errlog = tail.errlog if tail is not None else sys.stderr
            transport = open_transport(self.name, settings, self.root, errlog)
            if tail is not None:
                tail.start()
            async with AsyncExitStack() as stack:
                client = await self._open(stack, transport, tail)
                return await self._serve(client, tail), False
        except McpConfigError as exc:
            return str(exc), True
        except _PERMANENT_START_ERRORS as exc:
            return f"cannot start {self.settings.command!r}: {exc.strerror or exc}", True
        except TimeoutError:
            await self._last_words(tail)
            return self._with_stderr(
                f"no answer within {self.settings.startup_timeout_s:g} s (startup_timeout_s)"
            ), False
        except Exception as exc:
            await self._last_words(tail)
            return self._with_stderr(describe_error(exc)), False
        finally:
            self._client = None
            self.attempting = False
            if tail is not None:
                tail.close()

    def _expanded(self) -> McpServerSettings:
        """The settings with `${VAR}` expanded; a session's servers (an ACP client's) are
        used as given: their values are literal."""
        return expanded(self.name, self.settings) if self.origin == "settings" else self.settings

    async def _open(
        self, stack: AsyncExitStack, transport: Any, tail: StderrTail | None
    ) -> mcp.Client:
        from mcp import Client

        async with asyncio.timeout(self.settings.startup_timeout_s):
            client = await stack.enter_async_context(
                Client(transport, client_info=_client_info(), message_handler=self._on_message)
            )
            if tail is not None:
                tail.spawned()
            tools = await list_all_tools(client)
        self.tools = tuple(tool_specs(self.name, tools, self.settings))
        self._client = client
        self.attempting = False
        self._set("ready")
        logger.info("mcp %s: ready with %d tools", self.name, len(self.tools))
        return client

    async def _serve(self, client: mcp.Client, tail: StderrTail | None) -> str:
        """Wait until the connection is lost or the server is stopped; why it ended."""
        waits = [self._lost.wait(), self._stopping.wait()]
        if tail is not None:
            waits.append(tail.exited.wait())
        tasks = [asyncio.ensure_future(w) for w in waits]
        watch = asyncio.ensure_future(self._watch_tools(client))
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in [*tasks, watch]:
                task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watch
        if self._lost.is_set():
            return self._with_stderr("the connection was lost")
        return self._with_stderr("the server exited")

    @staticmethod
    async def _last_words(tail: StderrTail | None) -> None:
        """Give a server that failed to start a moment to finish writing its stderr."""
        if tail is not None:
            tail.spawned()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(tail.exited.wait(), LAST_WORDS_S)

    def _with_stderr(self, reason: str) -> str:
        last = self._tail.last() if self._tail is not None else None
        return f"{reason} (stderr: {last})" if last else reason

    # -- calls -----------------------------------------------------------------

    async def _ready_client(self) -> mcp.Client:
        self.start()
        if not await self._until(
            lambda: self.state in ("ready", "failed", "disabled", "stopped"),
            self.settings.startup_timeout_s,
        ):
            raise McpCallError(f"the MCP server {self.name} is {self.state}: {self.reason}")
        if self._client is None:
            raise McpCallError(f"the MCP server {self.name} is {self.state}: {self.reason}")
        return self._client

    def _lose(self, client: mcp.Client, why: str) -> McpCallError:
        """Mark the connection `client` lost (calls from now on wait for the restart)."""
        reason = self._with_stderr(f"the MCP server {self.name} {why}")
        if self._client is client:
            self._client = None
            self._set("restarting", reason)
            self._lost.set()
        return McpCallError(f"{reason}; it is being restarted: call the tool again")

    async def _request(self, send: Callable[[mcp.Client], Any]) -> Any:
        from mcp import MCPError
        from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT
        from pydantic import ValidationError

        client = await self._ready_client()
        timeout = self.settings.timeout_s
        try:
            result = await send(client)
        except MCPError as exc:
            if exc.code == CONNECTION_CLOSED:
                raise self._lose(client, "closed the connection during the call") from None
            if exc.code == REQUEST_TIMEOUT:
                raise McpCallError(
                    f"the MCP server {self.name} did not answer within {timeout:g} s (timeout_s)"
                ) from None
            raise McpCallError(
                f"the MCP server {self.name} answered with an error: {exc.message}"
            ) from None
        except (TimeoutError, ValidationError) as exc:
            raise McpCallError(f"the MCP server {self.name}: {describe_error(exc)}") from None
        except Exception as exc:  # a broken transport: reconnect, and tell the model why
            raise self._lose(client, f"failed during the call ({describe_error(exc)})") from None
        self._failures = 0
        return result

    async def call_tool(self, tool: str, arguments: dict[str, Any]) -> mcp_types.CallToolResult:
        """Call one tool; `McpCallError` when the server is unavailable or the call broke."""
        timeout = self.settings.timeout_s
        return await self._request(
            lambda client: client.call_tool(tool, arguments, read_timeout_seconds=timeout)
        )

    async def read_resource(self, uri: str) -> mcp_types.ReadResourceResult:
        """Read one resource of the server."""
        return await self._request(lambda client: client.read_resource(uri))

    # -- stopping --------------------------------------------------------------

    @property
    def finished(self) -> bool:
        """No supervisor runs (never started, or ended)."""
        return self._task is None or self._task.done()

    def stop(self) -> None:
        """Ask the supervisor to stop (the process ends when it leaves the client)."""
        self._stopping.set()
        if self._task is None and self.state not in ("disabled", "failed"):
            self._set("stopped", "stopped")

    async def aclose(self, timeout: float = STOP_TIMEOUT_S) -> bool:
        """Stop and wait (at most `timeout` s) until the server is gone; past that, kill its
        processes (and cancel its supervisor if it still runs). Whether it ended in time."""
        self.stop()
        task = self._task
        if task is None or task.done():
            return True
        if (await asyncio.wait({task}, timeout=timeout))[0]:
            return True
        if not self._kill(timeout):
            task.cancel()  # nothing to kill (over HTTP, or its process has ended): close it
        # A killed server's end is seen by the SDK, which winds down; cancelling is the last resort.
        if not (await asyncio.wait({task}, timeout=KILLED_WAIT_S))[0]:
            task.cancel()
            if not (await asyncio.wait({task}, timeout=KILLED_WAIT_S))[0]:
                logger.warning("mcp %s: still not stopped after the kill; leaving it", self.name)
        return False

    def _kill(self, timeout: float) -> bool:
        """SIGKILL what runs of the server (a stdio one's processes), saying so; whether any."""
        tail = self._tail
        pids = kill_processes(tail.writers()) if tail is not None else []
        if pids:
            what = "killed process " + ", ".join(map(str, pids))
        elif tail is not None:
            what = "no process of it runs any more; closing its connection"
        else:
            what = "closing its connection"
        logger.warning("mcp %s did not stop within %g s: %s", self.name, timeout, what)
        return bool(pids)
