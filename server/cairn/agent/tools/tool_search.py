"""`tool_search(query, limit?)`: find deferred MCP tools and offer them for the rest of the session.

Offered only when a turn's MCP tool schemas were deferred (they pass the
configured share of the model's input). Its description lists the deferred
tools by server, so the model knows what it can ask for; the answer holds
the full schemas of the matches (`cairn.mcp.search`: `select:a,b` for exact
names, else keywords; at most `mcp.tool_search_limit`, only those close to
the best match by `mcp.tool_search_threshold`), and from the next model call
on those tools are offered like any other (the turn scope's
`ToolOffer.reveal`). The names found are recorded in the result's data
(`KEY_FOUND`); `found_in` reads them back, so a later turn of the session
offers them again from its first call (no second search, and no cache break
for dropping them) — until the provider's cache is cold anyway (`ToolCarry`:
idle past its lifetime, another model, another mode): then the tools found
but never called (`called_in`) are dropped from the tools zone, a break that
costs nothing more, and the manifest says why.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from pydantic import Field

from cairn.agent.tools.base import Tool, ToolArgs, ToolContext, ToolFailure, ToolOutcome
from cairn.mcp import McpToolSpec
from cairn.mcp.search import search_tools
from cairn.models.mcp_settings import (
    DEFAULT_TOOL_SEARCH_LIMIT,
    DEFAULT_TOOL_SEARCH_THRESHOLD,
    MAX_TOOL_SEARCH_LIMIT,
)
from cairn.models.messages import Message, ToolCallPart, ToolResultPart

# Deferred tool names listed in the description at most (the rest are counted).
MAX_LISTED_TOOLS = 200
KEY_FOUND = "found"


class ToolSearchArgs(ToolArgs):
    query: str = Field(
        min_length=1,
        description=(
            "Words for what the tool should do (e.g. 'create issue'), or `select:name1,name2`"
            " to load tools by name."
        ),
    )
    limit: int | None = Field(
        default=None,
        ge=1,
        le=MAX_TOOL_SEARCH_LIMIT,
        description="Most tools to return (at most the configured limit, the default).",
    )


def listing(specs: Sequence[McpToolSpec]) -> str:
    """`server: tool, tool; other: tool` (at most `MAX_LISTED_TOOLS` names)."""
    by_server: dict[str, list[str]] = {}
    for spec in specs[:MAX_LISTED_TOOLS]:
        by_server.setdefault(spec.server, []).append(spec.name)
    text = "; ".join(f"{server}: {', '.join(names)}" for server, names in by_server.items())
    more = len(specs) - MAX_LISTED_TOOLS
    return text + (f"; and {more} more" if more > 0 else "")


def found_text(found: Sequence[McpToolSpec]) -> str:
    schemas = [spec.schema()["function"] for spec in found]
    names = ", ".join(spec.name for spec in found)
    return f"Now available to call: {names}\n" + json.dumps(schemas, indent=1, ensure_ascii=False)


@dataclass(frozen=True)
class ToolCarry:
    """What decides which tools earlier searches found a turn offers from its first call: the
    tools (refs) the session's last call sent (None before its first call) and why the
    provider's cache is cold for this turn (None: warm)."""

    sent: tuple[str, ...] | None = None
    cold: str | None = None


def called_in(messages: Iterable[Message]) -> set[str]:
    """The names of the tools these messages called."""
    return {p.name for m in messages for p in m.parts if isinstance(p, ToolCallPart)}


def found_in(messages: Iterable[Message]) -> list[str]:
    """The tool names earlier `tool_search` calls of these messages found, first found first."""
    found: dict[str, None] = {}
    for message in messages:
        for part in message.parts:
            if not isinstance(part, ToolResultPart) or part.name != ToolSearch.name:
                continue
            names = (part.data or {}).get(KEY_FOUND) if part.ok else None
            if isinstance(names, list):
                found.update((str(name), None) for name in names)
    return list(found)


class ToolSearch(Tool[ToolSearchArgs]):
    name: ClassVar[str] = "tool_search"
    description: ClassVar[str] = (
        "Find tools of the connected MCP servers whose schemas are not loaded yet, and load"
        " them: the tools found can be called from your next step on."
    )
    args_model = ToolSearchArgs

    def __init__(
        self,
        deferred: Sequence[McpToolSpec],
        limit: int = DEFAULT_TOOL_SEARCH_LIMIT,
        threshold: float = DEFAULT_TOOL_SEARCH_THRESHOLD,
    ) -> None:
        self.deferred = tuple(deferred)
        self.limit = limit
        self.threshold = threshold

    def schema(self) -> dict[str, Any]:
        schema = super().schema()
        function = schema["function"]
        function["description"] += f" Deferred tools: {listing(self.deferred)}."
        limit = function["parameters"]["properties"]["limit"]
        limit["description"] = f"Most tools to return (default and most: {self.limit})."
        limit["maximum"] = self.limit
        return schema

    async def run(self, args: ToolSearchArgs, ctx: ToolContext) -> ToolOutcome:
        scope = ctx.scope
        if scope is None:
            raise ToolFailure("tool_search is only available in a turn")
        offer = scope.offer
        limit = min(args.limit or self.limit, self.limit)
        found = search_tools(args.query, offer.deferred, limit, self.threshold)
        if not found:
            raise ToolFailure(
                f"no deferred tool matches {args.query!r}; deferred tools: {listing(offer.deferred)}"
            )
        offer.reveal(found)
        return ToolOutcome(output=found_text(found), data={KEY_FOUND: [s.name for s in found]})
