"""`find_code(query)`: the workspace's files ranked for a query, read-only.

The same ranking as the first call's "Where to look" block
(`cairn.repomap.where`) for what the model writes: words, a path, a symbol
(`Parser._split_header`), a pasted traceback. Returns the best files, each with
its matched symbols and their line ranges and the reason it ranks, so the
model can read just those lines. The files it returns are in play for the
rest of the turn, like a file it listed or searched.

The ranking reads the workspace's repository-map index (under the trace
folder's `cache/repomap`, where the engine's map keeps it; warm after the
first call) through one `RepoMap` per workspace root, kept by the tool.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import ClassVar

from pydantic import Field

from cairn.agent.tools.base import (
    MAX_SEEN_PER_CALL,
    Tool,
    ToolArgs,
    ToolContext,
    ToolOutcome,
)
from cairn.files.ignore import IgnoreRules
from cairn.repomap.map import RepoMap

DEFAULT_RESULTS = 8
MAX_RESULTS = 20
CACHE_NAME = "cache"
REPOMAP_CACHE = "repomap"


class FindCodeArgs(ToolArgs):
    query: str = Field(
        min_length=1,
        description=(
            "What to find: words ('csv header parsing'), a path, a symbol"
            " ('Parser._split_header') or a pasted traceback or error message."
        ),
    )
    limit: int = Field(
        default=DEFAULT_RESULTS, ge=1, le=MAX_RESULTS, description="How many files to return."
    )


class FindCode(Tool[FindCodeArgs]):
    name: ClassVar[str] = "find_code"
    description: ClassVar[str] = (
        "Rank the workspace's files for a query (words, a path, a symbol, or a pasted"
        " traceback): the best files with their matched symbols, line ranges and why."
        " Cheaper than grep-then-read to find where to look."
    )
    args_model = FindCodeArgs

    def __init__(self) -> None:
        self._maps: dict[Path, RepoMap] = {}

    def _map(self, ctx: ToolContext) -> RepoMap:
        root = ctx.workspace.root
        repo_map = self._maps.get(root)
        if repo_map is None:
            cache = root / ctx.settings.trace_dir / CACHE_NAME / REPOMAP_CACHE
            rules = ctx.ignore or IgnoreRules.for_folder(root)
            repo_map = RepoMap(root, rules, cache, secrets=lambda: ctx.workspace.secrets)
            self._maps[root] = repo_map
        return repo_map

    async def run(self, args: FindCodeArgs, ctx: ToolContext) -> ToolOutcome:
        repo_map = self._map(ctx)
        return await asyncio.to_thread(lambda: _found(repo_map, ctx, args))


def _found(repo_map: RepoMap, ctx: ToolContext, args: FindCodeArgs) -> ToolOutcome:
    ranked = repo_map.where_to_look([], args.query, ctx.settings.where_to_look)[: args.limit]
    if not ranked:
        return ToolOutcome(output=f"nothing in the workspace matches {args.query!r}", data={})
    lines: list[str] = []
    for index, found in enumerate(ranked, start=1):
        lines.append(f"{index}. {found.rel} — {found.reason}")
        for name, first, last in repo_map.symbol_lines(found.rel, found.symbols):
            lines.append(f"   {name}: lines {first}-{last}")
    seen = tuple(ctx.workspace.root / found.rel for found in ranked[:MAX_SEEN_PER_CALL])
    data = {"count": len(ranked), "files": [found.rel for found in ranked]}
    return ToolOutcome(output="\n".join(lines), data=data, seen=seen)
