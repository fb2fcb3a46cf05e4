"""One MCP server's life: started on first use, restarted after a crash, stopped with its owner.

A connection starts when something first needs it (`wait_started`: the first
turn that offers tools, `cairn mcp list`, the editor's first manifest). A
supervisor task owns the SDK client (anyio contexts are entered and left in
one task) and runs one `Attempt` after another: open the transport, list the
tools, wait until the connection is lost (a call saw it close, or a stdio
server's process exited) or the owner stops it. A start that misses
`startup_timeout_s` is `failed` at once with that reason (no retry), as are
failures a retry cannot fix (no such command, an unset variable). A server
that ended starts again after `restart_delay(failures)`, its status saying
how it ended (`exited with status 3`, `was killed by signal 9 (SIGKILL)`);
after `MAX_RESTARTS` failures in a row it is `failed` with its reason. Every
change of state, of the tool list, and the first non-protocol stdout line,
goes to `on_status` as a whole `ServerStatus`. Nothing here raises into a
turn: a call on a server that is not `ready` fails with `McpCallError` (a
tool error for the model); one interrupted by the server's end names its
exit status. A question the server asks during a call goes to that call's
session (`cairn.mcp.elicitation`). The tools are listed again when the
server announces a change or their `ttlMs` ran out (`cairn.mcp.listing`);
the same listing keeps the tools as they were.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import time
from collections.abc import Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cairn.mcp import state
from cairn.mcp.attempt import LAST_WORDS_S, Attempt
from cairn.mcp.elicitation import NO_CALLER, Caller, ElicitationRoute, Elicitor
from cairn.mcp.listing import ToolListing, fetch_listing, same_tools
from cairn.mcp.state import (
    DISABLED,
    DISABLED_HERE,
    NOT_STARTED,
    McpCallError,
    Origin,
    ServerState,
    ServerStatus,
    StatusListener,
    describe_error,
    restart_delay,
)
from cairn.mcp.stdio import KILL_AFTER_S, STOP_GRACE_S
from cairn.mcp.tools import McpToolSpec
from cairn.mcp.transport import McpConfigError, describe_target, expanded
from cairn.settings import McpServerSettings

if TYPE_CHECKING:
    import mcp
    import mcp_types

logger = logging.getLogger(__name__)

# Seconds stopping servers get to end (stdin closed; after 2 s they get SIGTERM) before
# what is left of them is killed: a hung server must not hold up the editor's shutdown.
STOP_TIMEOUT_S = 3.0
# Seconds a killed server's supervisor gets to see the end, and again once cancelled.
KILLED_WAIT_S = 2.0
# Seconds past its startup timeout an attempt may take to end: importing the SDK, its last
# words, stopping what it started (stdin closed, SIGTERM, SIGKILL: STOP_GRACE_S + KILL_AFTER_S).
SETTLE_S = 2 * LAST_WORDS_S + STOP_GRACE_S + KILL_AFTER_S + 10.0
# Stderr lines a status carries (the newest).
STATUS_STDERR_LINES = 5
# Errors of starting a process that a retry cannot fix.
_PERMANENT_START_ERRORS = (FileNotFoundError, PermissionError, NotADirectoryError)
_SETTLED: tuple[ServerState, ...] = ("failed", "disabled", "stopped")


class McpConnection:
    """One configured server (see the module docstring)."""

    def __init__(
        self,
        name: str,
        settings: McpServerSettings,
        root: Path,
        origin: Origin = "settings",
        *,
        session_id: str | None = None,
        on_status: StatusListener | None = None,
        disabled_here: bool = False,
        elicitor: Elicitor | None = None,
    ) -> None:
        self.name = name
        self.settings = settings
        self.root = root
        self.origin: Origin = origin
        self.session_id = session_id
        self.on_status = on_status
        self.questions = ElicitationRoute(name, session_id, elicitor)
        # Disabled by the user for this engine's life (the editor's action), not the settings.
        self.disabled_here = disabled_here
        self.state: ServerState = "not started" if self.enabled else "disabled"
        self.reason: str | None = NOT_STARTED
        if not self.enabled:
            self.reason = DISABLED_HERE if disabled_here else DISABLED
        self.listing = ToolListing()
        self.attempt: Attempt | None = None
        self.attempting = False
        self.restarts = 0
        # How the server's last process ended (kept while it restarts).
        self.exit: str | None = None
        self._tools_stale = False
        self._failures = 0
        self._client: mcp.Client | None = None
        self._task: asyncio.Task[None] | None = None
        self._changed = asyncio.Event()
        self._stopping = asyncio.Event()

    # -- state ---------------------------------------------------------------

    @property
    def tools(self) -> tuple[McpToolSpec, ...]:
        return self.listing.specs

    @property
    def enabled(self) -> bool:
        return self.settings.enabled and not self.disabled_here

    def _set(self, state: ServerState, reason: str | None = None) -> None:
        self.state, self.reason = state, reason
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()
        self._notify()

    def _notify(self) -> None:
        if self.on_status is not None:
            self.on_status(self.status())

    async def _until(self, done: Callable[[], bool], timeout: float) -> bool:
        """Wait (at most `timeout` s) until `done()`; whether it is."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                while not done():
                    await self._changed.wait()
        return done()

    def status(self) -> ServerStatus:
        attempt = self.attempt
        running = attempt is not None and attempt.exit() is None and self._client is not None
        return ServerStatus(
            name=self.name,
            transport=self.settings.transport,
            target=describe_target(self.settings),
            origin=self.origin,
            state=self.state,
            reason=self.reason,
            tools=self.tools if self.state == "ready" else (),
            session_id=self.session_id,
            protocol=attempt.protocol if attempt is not None else None,
            pid=attempt.pid if attempt is not None and running else None,
            exit=self.exit,
            stderr=attempt.stderr()[-STATUS_STDERR_LINES:] if attempt is not None else (),
            restarts=self.restarts,
            notes=attempt.notes() if attempt is not None else (),
        )

    # -- starting --------------------------------------------------------------

    def start(self) -> None:
        """Start the supervisor (once; on the running event loop)."""
        if self._task is None and self.state == "not started":
            self.attempting = True
            self._set("starting")
            self._task = asyncio.get_running_loop().create_task(self._supervise())

    async def wait_started(self, *, relist: bool = True) -> ServerStatus:
        """Start if needed and wait (up to the startup timeout) for the current attempt;
        `relist`: list the tools again when the server said they changed or their `ttlMs`
        ran out (not when they were read during this wait)."""
        began = time.monotonic()
        self.start()
        # The attempt's own timeout starts later than this wait (after the SDK is imported),
        # and a server that misses it gets LAST_WORDS_S to say why: wait past all of it, so
        # its reason is seen (an attempt always ends: each of its steps is bounded).
        await self._until(lambda: not self.attempting, self.settings.startup_timeout_s + SETTLE_S)
        if relist and self.listing.read_at < began:
            await self._list_again()
        return self.status()

    async def _list_again(self) -> None:
        client = self._client
        if client is None or not (self._tools_stale or self.listing.expired()):
            return
        self._tools_stale = False
        try:
            listing = await fetch_listing(client, self.name, self.settings, refresh=True)
        except Exception as exc:  # keep the tools it had; the next call will tell
            logger.warning("mcp %s: listing tools again failed: %s", self.name, exc)
            return
        self._take(listing)

    def _take(self, listing: ToolListing) -> bool:
        """Keep a new listing; the tools as they were when it offers the same (whether the
        tools changed)."""
        if same_tools(self.listing.specs, listing.specs):
            self.listing = dataclasses.replace(listing, specs=self.listing.specs)
            return False
        self.listing = listing
        if self.state == "ready":
            self._notify()
        return True

    def _mark_stale(self) -> None:
        self._tools_stale = True

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
            self.restarts += 1
            delay = restart_delay(self._failures)
            logger.info("mcp %s: %s; restarting in %g s", self.name, reason, delay)
            count = f"restart {self._failures} of {state.MAX_RESTARTS}"
            self._set("restarting", f"{reason}; restarting in {delay:g} s ({count})")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), delay)
            self.attempting = True
        self.attempting = False
        if self.state != "failed":
            self._set("stopped", "stopped")

    async def _run_once(self) -> tuple[str, bool]:
        """One attempt from start to end: why it ended, and whether a retry is pointless."""
        attempt: Attempt | None = None
        try:
            attempt = self.attempt = Attempt(self.name, self._expanded())
            async with AsyncExitStack() as stack:
                self._take(
                    await attempt.open(stack, self.root, self._on_message, self.questions.callback)
                )
                self._client = attempt.client
                self.attempting = False
                self._set("ready")
                logger.info("mcp %s: ready with %d tools", self.name, len(self.tools))
                if attempt.process is not None:
                    attempt.process.noise.on_first = self._notify
                ended = await attempt.serve(self._stopping, self._mark_stale)
                self._client = None
                return ended, False
        except McpConfigError as exc:
            return str(exc), True
        except _PERMANENT_START_ERRORS as exc:
            return f"cannot start {self.settings.command!r}: {exc.strerror or exc}", True
        except Exception as exc:
            if attempt is None:
                return describe_error(exc), False
            if self._stopping.is_set() and attempt.cut_short:
                return "stopped", True
            return await attempt.start_failure(exc)
        finally:
            self._client = None
            self.attempting = False
            if attempt is not None:
                if not attempt.cut_short:  # else it is Cairn's own kill: nothing to tell
                    self.exit = attempt.exit() or self.exit
                attempt.close()

    def _expanded(self) -> McpServerSettings:
        """The settings with `${VAR}` expanded; a session's servers (an ACP client's) are
        used as given: their values are literal."""
        return expanded(self.name, self.settings) if self.origin == "settings" else self.settings

    # -- calls -----------------------------------------------------------------

    async def _ready_client(self) -> tuple[mcp.Client, Attempt]:
        self.start()
        await self._until(
            lambda: self._client is not None or self.state in _SETTLED,
            self.settings.startup_timeout_s,
        )
        client, attempt = self._client, self.attempt
        if client is None or attempt is None:
            raise McpCallError(f"the MCP server {self.name} is {self.state}: {self.reason}")
        return client, attempt

    async def _lose(self, client: mcp.Client, attempt: Attempt, during: str) -> McpCallError:
        """Mark the connection lost (calls from now on wait for the restart); the error the
        model reads, naming how the server ended."""
        if self._client is client:
            self._client = None
            attempt.lost.set()
        why = attempt.with_stderr(f"{await attempt.ending()} {during}", since_ready=True)
        return McpCallError(
            f"the MCP server {self.name} {why}; it is being restarted: call the tool again"
        )

    async def _request(self, send: Callable[[mcp.Client], Any], caller: Caller) -> Any:
        from mcp import MCPError
        from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT
        from pydantic import ValidationError

        client, attempt = await self._ready_client()
        timeout = self.settings.timeout_s
        try:
            with self.questions.during(caller):
                result = await send(client)
        except MCPError as exc:
            if exc.code == CONNECTION_CLOSED:
                raise await self._lose(client, attempt, "during the call") from None
            late = f"did not answer within {timeout:g} s (timeout_s)"
            why = late if exc.code == REQUEST_TIMEOUT else f"answered with an error: {exc.message}"
            raise McpCallError(f"the MCP server {self.name} {why}") from None
        except (TimeoutError, ValidationError) as exc:
            raise McpCallError(f"the MCP server {self.name}: {describe_error(exc)}") from None
        except Exception as exc:  # a broken transport: reconnect, and tell the model why
            during = f"during the call ({describe_error(exc)})"
            raise await self._lose(client, attempt, during) from None
        self._failures = 0
        return result

    async def call_tool(
        self, tool: str, arguments: dict[str, Any], caller: Caller = NO_CALLER
    ) -> mcp_types.CallToolResult:
        """Call one tool for `caller`; `McpCallError` when the server is unavailable or the
        call broke."""
        timeout = self.settings.timeout_s
        return await self._request(
            lambda client: client.call_tool(tool, arguments, read_timeout_seconds=timeout),
            caller,
        )

    async def read_resource(
        self, uri: str, caller: Caller = NO_CALLER
    ) -> mcp_types.ReadResourceResult:
        """Read one resource of the server."""
        return await self._request(lambda client: client.read_resource(uri), caller)

    # -- stopping --------------------------------------------------------------

    @property
    def finished(self) -> bool:
        """No supervisor runs (never started, or ended)."""
        return self._task is None or self._task.done()

    def stop(self) -> None:
        """Ask the supervisor to stop (the process ends when it leaves the client); a start
        under way is cut short at once."""
        self._stopping.set()
        if self.attempt is not None:
            self.attempt.cut()
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
        attempt = self.attempt
        pids = attempt.kill() if attempt is not None else []
        if pids:
            what = "killed process " + ", ".join(map(str, pids))
        elif attempt is not None and attempt.tail is not None:
            what = "no process of it runs any more; closing its connection"
        else:
            what = "closing its connection"
        logger.warning("mcp %s did not stop within %g s: %s", self.name, timeout, what)
        return bool(pids)
