"""The MCP servers counted for the user: one `McpReport` for `cairn mcp list` and the editor.

`mcp_report(statuses, model, settings, model_input)` turns the servers'
statuses into the wire shape of `cairn.models.mcp_status`: each tool's schema
tokens with the tokenizer of `model` (the default tokenizer without one), the
hints, whether the user allowed it; each server's total; and whether the
schemas of all of them together pass `mcp.tool_search_share` of the model's
input (`model_input`, as the caller's turn offer measures it), which defers
them behind `tool_search` in a build-mode turn (the same test and reason as
the turn's offer: `defer_mcp_schemas`, `deferral_reason`).

The sentences the user reads are written here once, for both: a server's
`facts` (why it is not ready, its MCP revision, restarts, how its last
process ended, its notes), a tool's `facts` (whether it asks first, the
server's hints in words) and the report's `summary` (the total against the
model's input, offered directly or deferred). `cairn mcp list` prints them
and the editor's "MCP servers" tree shows them.
"""

from __future__ import annotations

from collections.abc import Iterable

from cairn.context.tool_schemas import defer_mcp_schemas, deferral_reason, schema_text
from cairn.mcp.state import ServerStatus
from cairn.mcp.tools import McpToolSpec, hint_words
from cairn.models.mcp_status import McpReport, McpServerView, McpToolView
from cairn.settings import Settings
from cairn.tokens.counter import FALLBACK_ENCODING, counter_for

ALLOWED = "allowed"
ASKS_FIRST = "asks first"


def tool_view(spec: McpToolSpec, model: str | None) -> McpToolView:
    permission = ALLOWED if spec.allowed else ASKS_FIRST  # hints never decide it
    return McpToolView(
        name=spec.name,
        tool=spec.tool,
        tokens=counter_for(model or FALLBACK_ENCODING)(schema_text(spec.schema())),
        read_only=spec.read_only,
        destructive=spec.destructive,
        open_world=spec.open_world,
        allowed=spec.allowed,
        facts=[permission, *hint_words(spec.read_only, spec.destructive, spec.open_world)],
    )


def server_facts(status: ServerStatus) -> list[str]:
    """Why it is not ready, its MCP revision, restarts, how it last ended, its notes."""
    facts = [status.reason] if status.state != "ready" and status.reason else []
    if status.protocol:
        facts.append(f"MCP {status.protocol}")
    if status.restarts:
        facts.append(f"{status.restarts} restart{'s' if status.restarts != 1 else ''}")
    if status.exit:
        facts.append(f"its last process {status.exit}")
    return facts + list(status.notes)


def server_view(status: ServerStatus, model: str | None) -> McpServerView:
    tools = [tool_view(spec, model) for spec in status.tools]
    return McpServerView(
        name=status.name,
        transport=status.transport,
        target=status.target,
        origin=status.origin,
        state=status.state,
        reason=status.reason,
        session_id=status.session_id,
        protocol=status.protocol,
        pid=status.pid,
        exit=status.exit,
        stderr=list(status.stderr),
        restarts=status.restarts,
        notes=list(status.notes),
        facts=server_facts(status),
        tools=tools,
        schema_tokens=sum(t.tokens for t in tools),
    )


def summary(model: str | None, total: int, window: int | None, share: float, deferred: bool) -> str:
    """The servers' schema tokens against the model's input, and what that means."""
    if model is None:
        return (
            f"MCP tool schemas: {total} tokens ({FALLBACK_ENCODING}; no model set, so no window"
            " to compare with: pass --model or set `model`)"
        )
    if window is None:
        return f"MCP tool schemas: {total} tokens (model {model}: window unknown)"
    threshold = int(share * window)
    verdict = "deferred behind tool_search" if deferred else "offered directly"
    return (
        f"MCP tool schemas: {total} tokens, {total / window:.1%} of the input of {model}"
        f" ({window}); {verdict} (above {share:.0%} = {threshold} tokens they are deferred)"
    )


def mcp_report(
    statuses: Iterable[ServerStatus],
    model: str | None,
    settings: Settings,
    model_input: int | None,
) -> McpReport:
    """Every server counted for `model` (see the module docstring)."""
    servers = [server_view(status, model) for status in statuses]
    total = sum(s.schema_tokens for s in servers)
    window = model_input
    share = settings.mcp.tool_search_share
    deferred = window is not None and total > 0 and defer_mcp_schemas(total, window, share)
    return McpReport(
        model=model,
        servers=servers,
        schema_tokens=total,
        model_input=window,
        tool_search_share=share,
        deferred=deferred,
        deferral=deferral_reason(total, window, share) if deferred and window else None,
        summary=summary(model, total, window, share, deferred),
    )
