"""Whole-block splitting: cut a file into chunks that never split a function or class.

`chunk_text` tiles the text exactly (the chunks' texts joined give the original back,
whatever its line endings) and cuts only at line starts. In a language with a grammar a
definition stays in one chunk unless it alone exceeds the chunk size; then it is split
between its inner definitions, and a leaf definition that is still too large is split
at line starts. Other files are packed line by line.

Token counts are taken per unit (a definition, or a line outside definitions) and summed,
so a chunk holds at most `max_tokens` as counted unit by unit.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from cairn.code.languages import language_for_path, new_parser, parse_bytes
from cairn.code.outlines import ENCODE_ERRORS, TEXT_ENCODING
from cairn.code.tags import Definition, find_definitions

_LINE = re.compile(r"[^\n]*\n|[^\n]+")


@dataclass(frozen=True, slots=True)
class Chunk:
    """A run of whole lines: UTF-8 byte span, 1-based inclusive line span, and the text."""

    start_byte: int
    end_byte: int
    start_line: int
    end_line: int
    text: str


@dataclass(frozen=True, slots=True)
class _Unit:
    """Lines [first, last] (0-based, inclusive) that must stay together, with their tokens."""

    first: int
    last: int
    tokens: int


def split_rows(text: str) -> list[str]:
    """The lines of `text`, each keeping its `\\n` (a last line without one is kept as is)."""
    return _LINE.findall(text)


def chunk_text(text: str, path: str, max_tokens: int, count: Callable[[str], int]) -> list[Chunk]:
    """Split `text` (the content of `path`) into chunks of at most `max_tokens` where possible."""
    rows = split_rows(text)
    if not rows:
        return []
    language = language_for_path(path)
    definitions: list[Definition] = []
    if language is not None:
        tree = parse_bytes(new_parser(language), text.encode(TEXT_ENCODING, ENCODE_ERRORS))
        definitions = find_definitions(tree, language)
    units = _units(rows, definitions, max_tokens, count)
    return _pack(rows, units, max_tokens)


Span = tuple[int, int]
"""Rows [first, last] (0-based, inclusive) of a definition."""


def _units(
    rows: Sequence[str],
    definitions: Sequence[Definition],
    max_tokens: int,
    count: Callable[[str], int],
) -> list[_Unit]:
    """Units covering every row once, in order: fitting definitions whole, other rows alone."""
    spans = sorted({(d.start_row, d.end_row) for d in definitions})
    units: list[_Unit] = []
    _cover(rows, spans, (0, len(rows) - 1), units, max_tokens, count, nested=False)
    return units


def _outermost(spans: Sequence[Span], inside: Span, nested: bool) -> list[Span]:
    """Spans within `inside`, overlapping ones merged, keeping only the outer ones.

    When `nested`, `inside` is itself a block being split: spans equal to it are left out.
    """
    merged: list[Span] = []
    for first, last in spans:
        if first < inside[0] or last > inside[1] or (nested and (first, last) == inside):
            continue
        if merged and first <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], last))
        else:
            merged.append((first, last))
    if nested:
        return [span for span in merged if span != inside]
    return merged


def _cover(
    rows: Sequence[str],
    spans: Sequence[Span],
    area: Span,
    units: list[_Unit],
    max_tokens: int,
    count: Callable[[str], int],
    *,
    nested: bool,
) -> None:
    """Append the units of rows `area`: blocks that fit whole, larger ones split recursively."""
    row = area[0]
    for first, last in _outermost(spans, area, nested):
        units.extend(_Unit(single, single, count(rows[single])) for single in range(row, first))
        tokens = count("".join(rows[first : last + 1]))
        if tokens <= max_tokens or first == last:
            units.append(_Unit(first, last, tokens))
        else:
            _cover(rows, spans, (first, last), units, max_tokens, count, nested=True)
        row = last + 1
    units.extend(_Unit(single, single, count(rows[single])) for single in range(row, area[1] + 1))


def _pack(rows: Sequence[str], units: Sequence[_Unit], max_tokens: int) -> list[Chunk]:
    """Greedy packing of consecutive units into chunks of at most `max_tokens`."""
    chunks: list[Chunk] = []
    start_row = 0
    start_byte = 0
    tokens = 0
    for index, unit in enumerate(units):
        if index > 0 and tokens + unit.tokens > max_tokens and unit.first > start_row:
            start_byte = _emit(rows, start_row, unit.first - 1, start_byte, chunks)
            start_row = unit.first
            tokens = 0
        tokens += unit.tokens
    _emit(rows, start_row, len(rows) - 1, start_byte, chunks)
    return chunks


def _emit(rows: Sequence[str], first: int, last: int, start_byte: int, chunks: list[Chunk]) -> int:
    text = "".join(rows[first : last + 1])
    end_byte = start_byte + len(text.encode(TEXT_ENCODING, ENCODE_ERRORS))
    chunks.append(Chunk(start_byte, end_byte, first + 1, last + 1, text))
    return end_byte
