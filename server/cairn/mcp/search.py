"""Finding deferred MCP tools for `tool_search(query)`: exact names first, then keywords.

`select:a,b` (or a query that is exactly one tool's name, its `server/tool`
ref or its own name) returns those tools. Otherwise the query's words are
matched against each tool's name, server, description and parameter names
(a word also matches a longer word it starts, so `issue` finds `issues`); a
word in the tool's own name weighs most (`NAME_WEIGHT`), then the server
name, then the description and parameters, and each word by how specific it
is among the tools searched (`word_weights`: a word most tools match says
little), scaled by the share of the query's weight the tool matches. Only
tools scoring at least `threshold` of the best match are returned (the
`[mcp]` setting `tool_search_threshold`, a quarter by default), at most
`limit` (`tool_search_limit`, 5), so a query reveals what it is about and not
every tool that shares one of its words. Ties keep the tools' sorted order, so a search
always returns the same tools.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from cairn.mcp.tools import McpToolSpec
from cairn.models.mcp_settings import DEFAULT_TOOL_SEARCH_LIMIT, DEFAULT_TOOL_SEARCH_THRESHOLD

SELECT_PREFIX = "select:"
NAME_WEIGHT = 4
SERVER_WEIGHT = 2
TEXT_WEIGHT = 1
# Shortest query word that may match a longer word by its start.
MIN_PREFIX_CHARS = 3
_WORD = re.compile(r"[a-z0-9]+")


def words(text: str) -> set[str]:
    """Lower-case words of `text`, `camelCase` and `snake_case` split."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text)
    return set(_WORD.findall(spaced.lower()))


def _names(spec: McpToolSpec) -> set[str]:
    return {spec.name.lower(), spec.tool.lower(), f"{spec.server}/{spec.tool}".lower()}


def _selected(query: str, specs: Sequence[McpToolSpec]) -> list[McpToolSpec] | None:
    """The tools a `select:` query (or an exact name) names; None for a keyword query."""
    text = query.strip()
    if text.lower().startswith(SELECT_PREFIX):
        wanted = {w.strip().lower() for w in text[len(SELECT_PREFIX) :].split(",") if w.strip()}
        return [s for s in specs if _names(s) & wanted]
    exact = [s for s in specs if text.lower() in _names(s)]
    return exact or None


def matches(word: str, targets: set[str]) -> bool:
    """`word` is one of `targets`, or starts one of them (at least `MIN_PREFIX_CHARS` long)."""
    if word in targets:
        return True
    return len(word) >= MIN_PREFIX_CHARS and any(t.startswith(word) for t in targets)


Fields = tuple[set[str], set[str], set[str]]
"""A tool's words: its own name's, its server's, its description's and parameters'."""


def _fields(spec: McpToolSpec) -> Fields:
    """A tool's words: its own name's, its server's, its description's and parameters'."""
    properties = spec.input_schema.get("properties")
    params = " ".join(properties) if isinstance(properties, dict) else ""
    return words(spec.tool), words(spec.server), words(spec.description) | words(params)


def word_weights(query_words: set[str], fields: Sequence[Fields]) -> dict[str, float]:
    """Each query word's specificity among the tools: log(1 + tools / tools it matches)."""
    weights: dict[str, float] = {}
    for word in query_words:
        hits = sum(1 for f in fields if any(matches(word, part) for part in f))
        weights[word] = math.log(1.0 + len(fields) / hits) if hits else 0.0
    return weights


def score(query_words: set[str], fields: Fields, weights: dict[str, float]) -> float:
    """How well a tool matches the query's words (0: not at all): each word's weight times
    where it matched, times the share of the query's weight the tool matched at all (a
    tool matching one common word of three scores a third of that word's part)."""
    name, server, text = fields
    total = matched = value = 0.0
    for w in query_words:
        weight = weights.get(w, 0.0)
        where = (
            NAME_WEIGHT * matches(w, name)
            + SERVER_WEIGHT * matches(w, server)
            + TEXT_WEIGHT * matches(w, text)
        )
        total += weight
        matched += weight if where else 0.0
        value += weight * where
    return value * matched / total if total else 0.0


def search_tools(
    query: str,
    specs: Sequence[McpToolSpec],
    limit: int = DEFAULT_TOOL_SEARCH_LIMIT,
    threshold: float = DEFAULT_TOOL_SEARCH_THRESHOLD,
) -> list[McpToolSpec]:
    """The tools matching `query`, best first, at most `limit` (see the module docstring)."""
    selected = _selected(query, specs)
    if selected is not None:
        return selected[:limit]
    query_words = words(query)
    fields = [_fields(s) for s in specs]
    weights = word_weights(query_words, fields)
    scored = [
        (score(query_words, f, weights), i, s)
        for i, (f, s) in enumerate(zip(fields, specs, strict=True))
    ]
    best = max((t[0] for t in scored), default=0.0)
    if best <= 0.0:
        return []
    kept = [t for t in scored if t[0] > 0.0 and t[0] >= threshold * best]
    ranked = sorted(kept, key=lambda t: (-t[0], t[1]))
    return [s for _, _, s in ranked[:limit]]
