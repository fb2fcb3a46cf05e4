"""The tools one turn offers the model, and how that set grows (`tool_search`).

`make_offer` decides once per turn: the mode's built-in tools (`MODE_TOOLS`,
narrowed for explore branches), then the MCP tools of the turn's catalog
that the mode allows — all of them in build mode; in plan and review mode
and in explore branches only those their server marks read-only — sorted by
name. When the allowed MCP schemas take more than `mcp.tool_search_share`
of the model's input (`defer_mcp_schemas`; the input as the session's context
build budgets it: within a window the provider stated, in calibrated tokens,
`WindowTerms`), they are not offered:
`tool_search` is, and what it finds joins the offer for the rest of the
session (`reveal`; a later turn's offer reveals what earlier ones found and
the last call still sent, `carry_found`, but drops those never called when
the provider's cache is cold anyway), after the initial tools and in name
order. A call's tools are
therefore the same list in the same order on every call of a session (until
a search adds some, or a server's tools change), which keeps the prompt
cache. `lines()` is every tool the turn knows, for the manifest: offered,
deferred (with the reason), refused by the mode, and the servers that are
not available (with their state and reason).
"""

from __future__ import annotations

import copy
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from cairn.agent.tools import READ_ONLY_TOOLS, Explore, ToolRegistry
from cairn.agent.tools.mcp_tool import McpTool, mcp_tool
from cairn.agent.tools.tool_search import ToolCarry, ToolSearch
from cairn.context.gather import budget_for
from cairn.context.sources.mode import MODE_TOOLS
from cairn.context.tool_schemas import (
    DROPPED_REASON,
    FOUND_REASON,
    ToolLine,
    defer_mcp_schemas,
    deferral_reason,
    schema_text,
)
from cairn.errors import BudgetError
from cairn.mcp import EMPTY_CATALOG, MCP_REF_PREFIX, McpCatalog, McpToolSpec, ServerStatus
from cairn.settings import Mode, Settings
from cairn.tokens.counter import counter_for


def offered_tools(
    registry: ToolRegistry, mode: Mode, *, read_only: bool = False, explore: bool = True
) -> tuple[str, ...]:
    """The mode's built-in allowlist (`MODE_TOOLS`) that the registry has, narrowed for a branch."""
    names = [name for name in MODE_TOOLS[mode] if registry.get(name) is not None]
    if read_only:
        names = [name for name in names if name in READ_ONLY_TOOLS]
    if not explore:
        names = [name for name in names if name != Explore.name]
    return tuple(names)


def mode_refusal(mode: Mode, read_only: bool) -> str:
    where = "explore branches offer" if read_only else f"{mode} mode offers"
    return f"not marked read-only by its server (readOnlyHint); {where} read-only tools only"


def split_by_mode(
    specs: Iterable[McpToolSpec], mode: Mode, read_only: bool
) -> tuple[list[McpToolSpec], list[McpToolSpec]]:
    """The MCP tools the mode offers, and those it refuses (not read-only outside build)."""
    only_read = read_only or mode != "build"
    allowed = [s for s in specs if s.read_only or not only_read]
    refused = [s for s in specs if not (s.read_only or not only_read)]
    return allowed, refused


@dataclass(frozen=True)
class WindowTerms:
    """What a session knows of its model's window beyond the settings, as its context build
    uses it (`Contexts.window_terms`): the window a provider stated (`window_limit`, learned
    from a refusal), a role's own model's window, the model's token calibration factor."""

    window_limit: int | None = None
    role_window: int | None = None
    calibration: float = 1.0


def model_input_tokens(
    model: str, settings: Settings, terms: WindowTerms = WindowTerms()
) -> int | None:
    """The model's input as the context build budgets it (`budget_for`: its window within
    the learned limit, less the reserved output, in our counter's units); None when unknown."""
    try:
        budget, _ = budget_for(
            model, settings, (), terms.window_limit, terms.role_window, terms.calibration
        )
    except BudgetError:
        return None
    return budget.input_room


@dataclass
class ToolOffer:
    """One turn's tools (see the module docstring); only `found` grows during the turn."""

    registry: ToolRegistry
    initial: tuple[str, ...]
    catalog: McpCatalog = EMPTY_CATALOG
    deferred: tuple[McpToolSpec, ...] = ()
    deferral: str | None = None
    refused: tuple[McpToolSpec, ...] = ()
    refusal: str | None = None
    found: list[str] = field(default_factory=list)
    # Tools earlier searches found that this turn dropped (never called; the cache was cold).
    dropped: tuple[McpToolSpec, ...] = ()
    drop_reason: str | None = None
    # Each tool's schema, made once per offer (a built-in tool's comes from pydantic: slow).
    _schemas: dict[str, dict[str, Any]] = field(default_factory=dict, init=False, repr=False)

    def _schema(self, name: str) -> dict[str, Any] | None:
        schema = self._schemas.get(name)
        if schema is None:
            tool = self.registry.get(name)
            if tool is None:
                return None
            schema = self._schemas[name] = tool.schema()
        return schema

    def offered(self) -> tuple[str, ...]:
        """The tools of the next call, in the order the model sees them."""
        return (*self.initial, *sorted(self.found))

    def schemas(self) -> list[dict[str, Any]]:
        """The schemas of the next call (copies: a provider adapter may add to them)."""
        offered = [self._schema(name) for name in self.offered()]
        return [copy.deepcopy(s) for s in offered if s is not None]

    def reveal(self, specs: Iterable[McpToolSpec]) -> None:
        """Offer these deferred tools from the next call on."""
        deferred = {s.name for s in self.deferred}
        for spec in specs:
            if spec.name in deferred and spec.name not in self.found:
                self.found.append(spec.name)

    def carry_found(self, found: Sequence[str], called: Collection[str], carry: ToolCarry) -> None:
        """Offer the deferred tools earlier turns' searches `found` that the session's last
        call still sent; when the provider's cache is cold (`carry.cold`), only those that
        were `called`, the others dropped with the reason. A name this offer does not defer
        (gone, or refused by the mode) is skipped."""
        by_name = {s.name: s for s in self.deferred}
        specs = [by_name[n] for n in found if n in by_name]
        if carry.cold is not None:
            self.dropped = tuple(s for s in specs if s.name not in called)
            self.drop_reason = f"{DROPPED_REASON} ({carry.cold})"
            specs = [s for s in specs if s.name in called]
        elif carry.sent is not None:
            specs = [s for s in specs if s.ref in carry.sent]
        self.reveal(specs)

    def held_reason(self, name: str) -> str | None:
        """Why an MCP tool of this turn is held back (refused or deferred), else None."""
        if any(s.name == name for s in self.refused):
            return f"tool {name!r} is {self.refusal}"
        if any(s.name == name for s in self.deferred):
            return f"tool {name!r} is deferred: find it with tool_search first"
        return None

    def why_not(self, name: str, mode: Mode) -> str:
        """Why a call of `name` is refused (the model reads it)."""
        held = self.held_reason(name)
        if held is not None:
            return held
        return f"tool {name!r} is not available in {mode} mode (available: {', '.join(self.offered())})"

    def lines(self) -> list[ToolLine]:
        """Every tool of the turn for the manifest, offered ones first in their order."""
        out: list[ToolLine] = []
        for name in self.offered():
            tool, schema = self.registry.get(name), self._schema(name)
            if tool is None or schema is None:
                continue
            ref = tool.spec.ref if isinstance(tool, McpTool) else name
            reason = FOUND_REASON if name in self.found else None
            out.append(ToolLine(ref=ref, schema=schema, reason=reason))
        dropped = {s.name for s in self.dropped}
        waiting = [s for s in self.deferred if s.name not in self.found]
        out += [
            ToolLine(s.ref, s.schema(), False, self.drop_reason)
            for s in waiting
            if s.name in dropped
        ]
        out += [
            ToolLine(s.ref, s.schema(), False, self.deferral)
            for s in waiting
            if s.name not in dropped
        ]
        out += [ToolLine(s.ref, s.schema(), False, self.refusal) for s in self.refused]
        out += [
            ToolLine(f"{MCP_REF_PREFIX}{s.name}", None, False, unavailable_reason(s))
            for s in self.catalog.unavailable
        ]
        return out


def unavailable_reason(status: ServerStatus) -> str:
    """`server failed: cannot start …` (the manifest line of a server that offers nothing)."""
    return f"server {status.state}: {status.reason}" if status.reason else f"server {status.state}"


def builtin_offer(
    registry: ToolRegistry, mode: Mode, *, read_only: bool = False, explore: bool = True
) -> ToolOffer:
    """The offer of a turn without MCP tools."""
    return ToolOffer(registry, offered_tools(registry, mode, read_only=read_only, explore=explore))


def make_offer(
    registry: ToolRegistry,
    mode: Mode,
    catalog: McpCatalog,
    *,
    model: str,
    settings: Settings,
    window: WindowTerms = WindowTerms(),
    read_only: bool = False,
    explore: bool = True,
) -> ToolOffer:
    """The tools of a turn in `mode` with `catalog`'s MCP tools (see the module docstring);
    `window`: what the session's context build knows of the model's window."""
    builtin = offered_tools(registry, mode, read_only=read_only, explore=explore)
    allowed, refused = split_by_mode(catalog.tools, mode, read_only)
    tools: Sequence[McpTool] = [mcp_tool(spec, catalog) for spec in allowed]
    common: dict[str, Any] = {
        "catalog": catalog,
        "refused": tuple(refused),
        "refusal": mode_refusal(mode, read_only),
    }
    count = counter_for(model)
    tokens = sum(count(schema_text(spec.schema())) for spec in allowed)
    room = model_input_tokens(model, settings, window)
    share = settings.mcp.tool_search_share
    if allowed and room is not None and defer_mcp_schemas(tokens, room, share):
        search = ToolSearch(
            allowed, settings.mcp.tool_search_limit, settings.mcp.tool_search_threshold
        )
        return ToolOffer(
            registry.with_tools([*tools, search]),
            (*builtin, search.name),
            deferred=tuple(allowed),
            deferral=deferral_reason(tokens, room, share),
            **common,
        )
    return ToolOffer(registry.with_tools(tools), (*builtin, *(s.name for s in allowed)), **common)
