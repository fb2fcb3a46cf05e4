"""`notice` session updates: what the user should know that is not part of the conversation.

ACP's `notice` (a severity, a plain-text title, an optional description) may
only go to a client that advertised `clientCapabilities.session.notices`
(`AcpServer.tell` checks); the line is logged either way. Cairn sends one
when an MCP server a session uses crashes and is restarted or is given up
(`mcp_notice`: the status sentence, its exit and last stderr lines), when
a provider refused a call as too long and the session now builds for the
limit it stated (`limit_notice`, with the command that clears it), and
when a folder stays restricted because the client could not be asked
whether to trust it (`trust.py`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from cairn.agent.api import LearnedLimit
    from cairn.mcp.state import ServerStatus

Severity = Literal["info", "warning", "error"]
# Lines of a crashed server's stderr shown in its notice.
STDERR_LINES = 5


def notice(severity: Severity, title: str, description: str | None = None) -> dict[str, Any]:
    """One `notice` update (the title must not be empty)."""
    update: dict[str, Any] = {
        "sessionUpdate": "notice",
        "severity": severity,
        "title": title or "Cairn",
    }
    if description:
        update["description"] = description
    return update


def mcp_notice(status: ServerStatus) -> dict[str, Any] | None:
    """The notice of an MCP server's status change: a crash being restarted (`warning`) or a
    server given up (`error`); None for the other changes."""
    from cairn.mcp.state import status_sentence

    if status.state not in ("restarting", "failed"):
        return None
    title = status_sentence(status) or f"MCP server {status.name} {status.state}"
    lines = [f"Its process {status.exit}." if status.exit else ""]
    if status.stderr:
        lines.append("Last lines on stderr:\n" + "\n".join(status.stderr[-STDERR_LINES:]))
    if status.restarts:
        lines.append(f"Restarts so far: {status.restarts}.")
    description = "\n".join(line for line in lines if line)
    return notice("warning" if status.state == "restarting" else "error", title, description)


def limit_notice(event: LearnedLimit) -> dict[str, Any]:
    """The notice of a limit a provider stated and the session kept (`warning`)."""
    title = f"{event.model}: this session now builds for {event.window:,} tokens"
    description = (
        f"The provider refused a call as too long: {event.reason}. The limit is kept for "
        f"this session; clear it with `cairn trace forget-limits {event.session_id}`."
    )
    return notice("warning", title, description)
