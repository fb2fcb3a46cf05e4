"""A server's tool listing: read page by page, kept while fresh, replaced only when it changed.

`fetch_listing` reads every page of `tools/list` and turns the tools into
specs (`cairn.mcp.tools.tool_specs`: sorted by name, whatever order the
server sends). A `ToolListing` knows when it was read and how long it stays
fresh: a 2026-07-28 server's `ttlMs` on the result (0: stale at once, so
every turn lists again; the SDK's response cache honours it between), and
a server that sends none, or an older revision, is listed again only when
it announces a change (`notifications/tools/list_changed`, or a
`subscriptions/listen` event). `same_tools` compares two listings by each
tool's name and a hash of everything the model or the approvals see of it
(its schema with keys in order, description, hints), so a listing that comes
back equal keeps the earlier specs and the tools zone keeps its bytes: the
prompt cache breaks only when the tools really changed.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import xxhash

from cairn.mcp.tools import McpToolSpec, tool_specs
from cairn.settings import McpServerSettings

if TYPE_CHECKING:
    import mcp
    import mcp_types

# Pages of `tools/list` read at most (a server that never stops paginating).
MAX_TOOL_PAGES = 100
MS_PER_S = 1000.0


@dataclass(frozen=True)
class ToolListing:
    """One reading of a server's tools (see the module docstring)."""

    specs: tuple[McpToolSpec, ...] = ()
    # When it was read (time.monotonic()) and for how many seconds it is fresh (None: until
    # the server announces a change).
    read_at: float = field(default_factory=time.monotonic)
    ttl_s: float | None = None

    def expired(self, now: float | None = None) -> bool:
        """Whether its `ttlMs` has run out (never, without one)."""
        if self.ttl_s is None:
            return False
        return (time.monotonic() if now is None else now) >= self.read_at + self.ttl_s


def spec_hash(spec: McpToolSpec) -> str:
    """A hash of what the model and the approvals see of a tool (key order left out)."""
    seen = {
        "description": spec.description,
        "schema": spec.input_schema,
        "hints": [spec.read_only, spec.destructive, spec.open_world, spec.allowed],
    }
    return xxhash.xxh3_64_hexdigest(json.dumps(seen, sort_keys=True, default=str).encode())


def same_tools(old: Sequence[McpToolSpec], new: Sequence[McpToolSpec]) -> bool:
    """Whether two listings offer the same tools (by name and `spec_hash`)."""
    return [(s.name, spec_hash(s)) for s in old] == [(s.name, spec_hash(s)) for s in new]


def _ttl_s(result: mcp_types.ListToolsResult, modern: bool) -> float | None:
    """The result's `ttlMs` in seconds, when a 2026-era server sent one."""
    if modern and "ttl_ms" in result.model_fields_set:
        return max(result.ttl_ms, 0) / MS_PER_S
    return None


async def fetch_listing(
    client: mcp.Client, server: str, settings: McpServerSettings, *, refresh: bool = False
) -> ToolListing:
    """Every tool of the server, page after page (`refresh`: not from the SDK's cache)."""
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    modern = client.protocol_version in MODERN_PROTOCOL_VERSIONS
    tools: list[mcp_types.Tool] = []
    cursor: str | None = None
    ttl: float | None = None
    for page_number in range(MAX_TOOL_PAGES):
        page = await client.list_tools(cursor=cursor, cache_mode="refresh" if refresh else "use")
        if page_number == 0:
            ttl = _ttl_s(page, modern)
        tools += page.tools
        cursor = page.next_cursor
        if cursor is None:
            break
    return ToolListing(tuple(tool_specs(server, tools, settings)), ttl_s=ttl)
