"""Rendering the repository map: ranked definitions as per-file outlines, fitted to a budget.

    pkg/store.py:
      L10-80  class Store:
        L22-30  def get(self, key):

Files appear in the order of their best-ranked definition; inside a file, definitions
are in line order, each with the definitions enclosing it, nested by indentation. The
number of ranked definitions shown is the largest that fits the token budget, found by
binary search; tokens are counted only on candidate outputs.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Collection, Sequence

from cairn.code.outlines import outline_entry
from cairn.repomap.parts import DefRecord

FILE_SUFFIX = ":"
ENTRY_INDENT_DEPTH = 1
"""Outline entries are indented one level under their file's path."""


def enclosing(records: Sequence[DefRecord], chosen: Sequence[DefRecord]) -> list[DefRecord]:
    """The records whose line span holds the span of some chosen record (each chosen one
    included), in line order (first line, then the longest first), one per span and name
    line: the first such record in `records` order.

    Linear after sorting: a span [first, last] holds a chosen span when, among the chosen
    spans starting at or after `first`, the one ending earliest ends at or before `last`
    (suffix minima of the chosen ends, ordered by start).
    """
    by_start = sorted((record[1], record[2]) for record in chosen)
    starts = [first for first, _last in by_start]
    earliest_end = [last for _first, last in by_start]
    for index in range(len(earliest_end) - 2, -1, -1):
        earliest_end[index] = min(earliest_end[index], earliest_end[index + 1])
    shown: dict[tuple[int, int, int], DefRecord] = {}
    for record in records:
        key = (record[1], -record[2], record[3])
        if key in shown:
            continue
        at = bisect_left(starts, record[1])
        if at < len(starts) and earliest_end[at] <= record[2]:
            shown[key] = record
    return [shown[key] for key in sorted(shown)]


def file_block(rel: str, records: Sequence[DefRecord], names: Collection[str]) -> str:
    """The outline of the definitions of one file named in `names`, with their parents."""
    chosen = [r for r in records if r[0] in names]
    if not chosen:
        return ""
    lines = [rel + FILE_SUFFIX]
    open_ends: list[int] = []
    for record in enclosing(records, chosen):
        while open_ends and open_ends[-1] < record[1]:
            open_ends.pop()
        depth = ENTRY_INDENT_DEPTH + len(open_ends)
        lines.append(outline_entry(record[1], record[2], record[4], depth))
        open_ends.append(record[2])
    return "\n".join(lines)


BlockOf = Callable[[str, frozenset[str]], str]
"""The outline block of one file showing these names (`file_block`, usually cached)."""
FIRST_GUESS_TOKENS_PER_ENTRY = 32
"""The search starts at `max_tokens / this` entries and grows until the map is too large.

Entries of real code average 24-28 tokens (file headers included): starting a little
below the final size means the definitions of files the map will not show are seldom
parsed (the first prefix is parsed on every core, each growth step only adds a few
files)."""
GROWTH = 1.25
"""Growth factor of the prefix while it fits (small: definitions are parsed on demand)."""


def _blocks(ranked: Sequence[tuple[str, str]], block_of: BlockOf, size: int) -> list[str]:
    by_file: dict[str, set[str]] = {}
    for rel, name in ranked[:size]:
        by_file.setdefault(rel, set()).add(name)
    return [block for rel, names in by_file.items() if (block := block_of(rel, frozenset(names)))]


def _joined(blocks: list[str]) -> str:
    return "\n".join(blocks) + "\n" if blocks else ""


def render_top(ranked: Sequence[tuple[str, str]], block_of: BlockOf, size: int) -> str:
    """The map of the first `size` ranked (file, identifier) pairs."""
    return _joined(_blocks(ranked, block_of, size))


class _Measure:
    """Whether a candidate map is over the budget, counting each large block once.

    A map never counts fewer tokens than a block it holds, so a candidate holding a block
    that alone is over the budget is too large without counting it whole: the search
    then counts a huge block (thousands of definitions of one name) once, not once per
    candidate. Only blocks longer than the budget in characters can be over it alone.
    """

    def __init__(self, max_tokens: int, count: Callable[[str], int]) -> None:
        self._max = max_tokens
        self._count = count
        self._alone: dict[str, bool] = {}

    def fits(self, blocks: list[str], text: str) -> bool:
        for block in blocks:
            if len(block) > self._max:
                over = self._alone.get(block)
                if over is None:
                    over = self._alone[block] = self._count(block) > self._max
                if over:
                    return False
        return self._count(text) <= self._max


def fit(
    ranked: Sequence[tuple[str, str]],
    block_of: BlockOf,
    max_tokens: int,
    count: Callable[[str], int],
    prepare: Callable[[Sequence[tuple[str, str]]], None] | None = None,
) -> tuple[str, int]:
    """The largest map of a ranked prefix whose token count is at most `max_tokens`,
    and the length of that prefix.

    Galloping search: the prefix grows from a small guess until the map is too large,
    then a binary search between the last fitting and the first too-large prefix.
    `prepare(pairs)` is called with each growing prefix before it is rendered.
    """
    if max_tokens <= 0 or not ranked:
        return "", 0
    measure = _Measure(max_tokens, count)
    low, best = 0, ""
    high = len(ranked)
    size = min(high, max(1, max_tokens // FIRST_GUESS_TOKENS_PER_ENTRY))
    while True:
        if prepare is not None:
            prepare(ranked[:size])
        blocks = _blocks(ranked, block_of, size)
        text = _joined(blocks)
        if not measure.fits(blocks, text):
            high = size - 1
            break
        low, best = size, text
        if size >= high:
            return best, low
        size = min(high, max(size + 1, int(size * GROWTH)))
    while low < high:
        middle = (low + high + 1) // 2
        blocks = _blocks(ranked, block_of, middle)
        text = _joined(blocks)
        if measure.fits(blocks, text):
            low, best = middle, text
        else:
            high = middle - 1
    return best, low
