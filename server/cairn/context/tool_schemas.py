"""The tools zone of a call: one manifest line per tool, and when MCP schemas wait.

Every tool the turn knows is one `ToolLine`: its manifest ref (the tool's
name for a built-in tool, `mcp:server/tool` for an MCP tool, `mcp:server`
for a server that offers nothing, with the reason), its schema, and whether
it is offered on this call. `tool_blocks` turns the lines into the blocks
of the tools zone (`cairn.context.zones.ZONE_TOOLS`), in the lines' order —
the order sent, which the turn keeps fixed so the prompt cache holds: an
offered tool's block is included with its schema's tokens; a deferred or
refused tool's block is excluded with its reason (it is not part of the
cached prefix). The offered tools' tokens, each schema counted once
(`schema_text`), are the call's `tool_schema_tokens`, which the budget takes
off the window before any other block is chosen (they are never in
`usedInput`).

Deferral (`defer_mcp_schemas`): when the MCP tools' schemas would take more
than `share` of the model's input (the window minus the reserved output),
they are not sent; one `tool_search` tool is offered instead. The turn
decides it once, at its start, so the tools zone is the same on every call
of the turn until `tool_search` reveals some (a recorded cache break).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cairn.context.manifest import TOOLS_SOURCE
from cairn.context.priorities import PRIORITY_SYSTEM
from cairn.context.zones import ZONE_TOOLS
from cairn.files.text import content_hash
from cairn.models.manifest import ContextBlock

# The reason on the line of a deferred tool that `tool_search` revealed (offered since).
FOUND_REASON = "found by tool_search"
# The reason on the line of a tool `tool_search` found that a later turn dropped from the tools
# zone (never called, and the provider's cache was cold anyway); the cold reason follows.
DROPPED_REASON = "found by tool_search, never called: dropped at a cache break"
# The cache-break reason of a tools zone that changed between two calls.
TOOLS_CHANGE = "tools: {what}"


@dataclass(frozen=True)
class ToolLine:
    """One tool (or tool source) of a call, for the manifest."""

    ref: str
    schema: Mapping[str, Any] | None
    offered: bool = True
    reason: str | None = None


def schema_name(schema: Mapping[str, Any]) -> str:
    function = schema.get("function")
    return str(function.get("name", "")) if isinstance(function, dict) else ""


def schema_text(schema: Mapping[str, Any]) -> str:
    """The text a schema is counted as (what it costs on the wire, near enough)."""
    return json.dumps(schema, ensure_ascii=False)


def lines_of(schemas: Iterable[Mapping[str, Any]], refs: Sequence[str] = ()) -> list[ToolLine]:
    """Lines for plain offered schemas (refs default to the schemas' function names)."""
    listed = list(schemas)
    names = list(refs) if refs else [schema_name(s) for s in listed]
    return [ToolLine(ref=name, schema=s) for name, s in zip(names, listed, strict=False)]


def offered_schemas(lines: Iterable[ToolLine]) -> tuple[Mapping[str, Any], ...]:
    """The schemas sent, in the order sent."""
    return tuple(line.schema for line in lines if line.offered and line.schema is not None)


def tool_blocks(lines: Sequence[ToolLine], tokens: Sequence[int]) -> list[ContextBlock]:
    """One block of the tools zone per line (see the module docstring), in the lines' order."""
    blocks: list[ContextBlock] = []
    for line, count in zip(lines, tokens, strict=False):
        schema = line.schema
        blocks.append(
            ContextBlock(
                source=TOOLS_SOURCE,
                priority=PRIORITY_SYSTEM,
                text="",
                tokens=count,
                version=content_hash(json.dumps(schema, sort_keys=True) if schema else ""),
                ref=line.ref,
                zone=ZONE_TOOLS,
                included=line.offered and schema is not None,
                reason=line.reason,
            )
        )
    return blocks


# The group of the built-in tools in a tools-change reason (an MCP tool's is `mcp:<server>`).
BUILTIN_GROUP = "built-in tools"


def tool_group(ref: str) -> str:
    """`mcp:<server>` for an MCP tool's ref (`mcp:<server>/<tool>`), else the built-in group."""
    return ref.split("/", 1)[0] if "/" in ref else BUILTIN_GROUP


def _group_change(group: str, added: int, removed: int, changed: int, before: int) -> str:
    if before == 0 and added:
        return f"{group} added ({added} tool{'s' if added != 1 else ''})"
    if removed == before and not added and not changed:
        return f"{group} removed ({removed} tool{'s' if removed != 1 else ''})"
    counts = (("added", added), ("removed", removed), ("changed", changed))
    return f"{group}: " + ", ".join(f"{n} {what}" for what, n in counts if n)


def tools_change(old: Sequence[tuple[str, str]] | None, new: Sequence[ContextBlock]) -> str | None:
    """Why the tools zone differs from the one sent before (`old`: each sent tool's ref and
    version, in order), or None when it is the same: the tools `tool_search` revealed, then per
    MCP server (or the built-in tools) what was added, removed or changed; else the order."""
    sent = [(b.ref or "", b.version) for b in new if b.included]
    if old is None or list(old) == sent:
        return None
    before, after = dict(old), dict(sent)
    found = [b.ref or "" for b in new if b.included and b.reason == FOUND_REASON]
    found = [ref for ref in found if ref not in before]
    dropped = [
        b.ref or ""
        for b in new
        if not b.included and (b.reason or "").startswith(DROPPED_REASON) and b.ref in before
    ]
    parts = [f"tool_search found {', '.join(found)}"] if found else []
    parts += (
        [f"dropped {', '.join(dropped)} (found by tool_search, never called)"] if dropped else []
    )
    for group in sorted({tool_group(r) for r in [*before, *after]}):
        mine_before = [r for r in before if tool_group(r) == group and r not in dropped]
        mine_after = [r for r in after if tool_group(r) == group and r not in found]
        added = sum(1 for r in mine_after if r not in before)
        removed = sum(1 for r in mine_before if r not in after)
        changed = sum(1 for r in mine_after if r in before and before[r] != after[r])
        if added or removed or changed:
            parts.append(_group_change(group, added, removed, changed, len(mine_before)))
    return TOOLS_CHANGE.format(what="; ".join(parts) or "order changed")


def defer_mcp_schemas(mcp_tokens: int, input_tokens: int, share: float) -> bool:
    """Whether MCP schemas of `mcp_tokens` go behind `tool_search` (more than `share` of
    the model's input of `input_tokens`)."""
    return mcp_tokens > share * input_tokens


def deferral_reason(mcp_tokens: int, input_tokens: int, share: float) -> str:
    return (
        f"deferred behind tool_search: MCP tool schemas take {mcp_tokens} tokens, more than"
        f" {share:.0%} of the model's input ({int(share * input_tokens)} of {input_tokens};"
        " mcp.tool_search_share)"
    )
