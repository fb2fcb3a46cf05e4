"""What is known of an MCP server besides its connection: its state, the status record, the
restart policy (exponential backoff, a limit), and how errors are named.

`restart_delay(failures)` is the wait before restart number `failures`:
`RESTART_BASE_S`, doubling, at most `RESTART_MAX_S`; after `MAX_RESTARTS`
failures in a row a server is given up (`failed`).
"""

from __future__ import annotations

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
NOT_STARTED = "starts when a turn first needs its tools"
DISABLED = "disabled in the settings (enabled = false)"


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


@dataclass(frozen=True)
class ServerStatus:
    """What `cairn mcp list` and the manifest say about one server."""

    name: str
    transport: Literal["stdio", "http"]
    target: str
    origin: Origin
    state: ServerState
    reason: str | None
    tools: tuple[McpToolSpec, ...]
