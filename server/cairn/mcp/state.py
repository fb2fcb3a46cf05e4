"""What is known of an MCP server besides its connection: its state, the status record, the
restart policy (exponential backoff, a limit), and how errors and exits are named.

`restart_delay(failures)` is the wait before restart number `failures`:
`RESTART_BASE_S`, doubling, at most `RESTART_MAX_S`; after `MAX_RESTARTS`
failures in a row a server is given up (`failed`). `describe_exit` names a
process's end the way every message says it (`exited with status 3`,
`was killed by signal 9 (SIGKILL)`); `status_sentence` is the one line a
terminal or a log shows for a status change.
"""

from __future__ import annotations

import signal
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from cairn.errors import CairnError
from cairn.mcp.tools import McpToolSpec

ServerState = Literal[
    "not started", "starting", "ready", "restarting", "failed", "disabled", "stopped"
]
Origin = Literal["settings", "session"]

RESTART_BASE_S = 0.5
RESTART_MAX_S = 30.0
# Failures in a row (crashes, failed starts) after which a server is given up.
MAX_RESTARTS = 5
NOT_STARTED = "starts when a turn, or the editor's context, first needs its tools"
DISABLED = "disabled in the settings (enabled = false)"
DISABLED_HERE = "disabled by the user until enabled again (or Cairn restarts)"


class McpCallError(CairnError):
    """A call to an MCP server could not be made or did not complete; the model reads why."""


def restart_delay(failures: int) -> float:
    """Seconds to wait before restart number `failures` (1, 2, …)."""
    return min(RESTART_BASE_S * 2 ** max(failures - 1, 0), RESTART_MAX_S)


def leaf_error(exc: BaseException) -> BaseException:
    """The first real error inside (nested) exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def describe_error(exc: BaseException) -> str:
    """`Type: message` of the error (of the first error inside exception groups)."""
    exc = leaf_error(exc)
    message = str(getattr(exc, "message", None) or exc).strip()
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


def describe_exit(returncode: int) -> str:
    """`exited with status 3`, or `was killed by signal 9 (SIGKILL)` (a negative code)."""
    if returncode >= 0:
        return f"exited with status {returncode}"
    number = -returncode
    try:
        name = signal.Signals(number).name
    except ValueError:
        return f"was killed by signal {number}"
    return f"was killed by signal {number} ({name})"


@dataclass(frozen=True)
class ServerStatus:
    """What `cairn mcp list`, the manifest and the editor know of one server."""

    name: str
    transport: Literal["stdio", "http"]
    target: str
    origin: Origin
    state: ServerState
    reason: str | None
    tools: tuple[McpToolSpec, ...]
    # The session a session's server belongs to (None: a server of the settings).
    session_id: str | None = None
    # The MCP revision negotiated with the server (e.g. "2025-11-25", "2026-07-28").
    protocol: str | None = None
    # The server's process while one runs (stdio).
    pid: int | None = None
    # How its last process ended (`describe_exit`), once one has.
    exit: str | None = None
    # Its last lines on stderr (stdio), oldest first.
    stderr: tuple[str, ...] = ()
    # How many times it was started again after a crash or a failed start.
    restarts: int = 0
    # What else to know (lines it printed on stdout that are not the protocol).
    notes: tuple[str, ...] = ()


StatusListener = Callable[[ServerStatus], None]
"""Called with a server's new status each time it changes (on the event loop)."""


def status_sentence(status: ServerStatus) -> str | None:
    """The line a terminal or a log shows for a status change; None for the quiet ones
    (starting, stopped, not started, disabled)."""
    if status.state == "ready":
        facts = [f"{len(status.tools)} tools"]
        if status.protocol:
            facts.append(f"MCP {status.protocol}")
        if status.restarts:
            facts.append(f"{status.restarts} restart{'s' if status.restarts != 1 else ''}")
        notes = "".join(f"; {note}" for note in status.notes)
        return f"MCP server {status.name} ready ({', '.join(facts)}){notes}"
    if status.state in ("restarting", "failed"):
        return f"MCP server {status.name} {status.state}: {status.reason}"
    return None
