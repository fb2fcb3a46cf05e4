"""Finding deferred MCP tools for `tool_search(query)`: exact names first, then keywords.

`select:a,b` (or a query that is exactly one tool's name, its `server/tool`
ref or its own name) returns those tools. Otherwise the query's words are
matched against each tool's name, server, description and parameter names
(a word also matches a longer word it starts, so `issue` finds `issues`); a
word in the tool's own name weighs most (`NAME_WEIGHT`), then the server
name, then the description and parameters. Ties keep the tools' sorted
order, so a search always returns the same tools.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from cairn.mcp.tools import McpToolSpec

SELECT_PREFIX = "select:"
DEFAULT_SEARCH_RESULTS = 5
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


def score(query_words: set[str], spec: McpToolSpec) -> int:
    """How well a tool matches the query's words (0: not at all)."""
    properties = spec.input_schema.get("properties")
    params = " ".join(properties) if isinstance(properties, dict) else ""
    name, server = words(spec.tool), words(spec.server)
    text = words(spec.description) | words(params)
    return sum(
        NAME_WEIGHT * matches(w, name)
        + SERVER_WEIGHT * matches(w, server)
        + TEXT_WEIGHT * matches(w, text)
        for w in query_words
    )


def search_tools(
    query: str, specs: Sequence[McpToolSpec], limit: int = DEFAULT_SEARCH_RESULTS
) -> list[McpToolSpec]:
    """The tools matching `query`, best first, at most `limit` (see the module docstring)."""
    selected = _selected(query, specs)
    if selected is not None:
        return selected[:limit]
    query_words = words(query)
    scored = [(score(query_words, s), i, s) for i, s in enumerate(specs)]
    ranked = sorted((t for t in scored if t[0] > 0), key=lambda t: (-t[0], t[1]))
    return [s for _, _, s in ranked[:limit]]
