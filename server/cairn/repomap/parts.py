"""Parsing only the parts of a Python file that hold the definitions the map will show.

A Python file's top-level statements start at lines beginning, at column 0, with `def`,
`class`, `async def` or a decorator (`@`); a run of decorators and the definition it
decorates are one part, and so is everything before the first such line. The parts
holding a name's definitions are found lexically, on the file's bytes with comments and
triple-quoted strings blanked (same length, newlines kept), so a `def` written inside a
docstring neither starts a part nor counts as a definition.

Each part is parsed on its own with tree-sitter (`included_ranges`, so line numbers stay
those of the file) and queried with the same `grammars/python-tags.scm` as a whole file.
A part whose parse has an error falls back to what a parse of the whole file finds on
its lines. A part's definitions thus depend only on the file's bytes, and the
definitions shown for a set of names only on the parts holding those names: never on
which other parts happened to be parsed before.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Collection, Container

from tree_sitter import Parser, Point, Range, Tree

from cairn.code.languages import new_parser, parse_bytes
from cairn.code.outlines import TEXT_ENCODING, signature_text
from cairn.code.tags import Definition, find_definitions

MAX_DEFINITION_DEPTH = 6
"""Deepest tree level where a definition may start (module > class > body > method ...)."""
PYTHON = "python"
LINE_START = b"\n"
"""Put in front of a file's bytes so that its first line starts after a newline too."""

DefRecord = tuple[str, int, int, int, str]
"""(name, first line, last line, name line, signature text); lines are 1-based."""
PartSpan = tuple[int, int]
"""(first byte, end byte) of one part of a file."""
PartRecords = dict[int, tuple[DefRecord, ...]]
"""Definitions of each parsed part, by the part's first byte."""
NameParts = dict[str, tuple[PartSpan, ...]]
"""The parts holding each defined name's definitions, for every name the file defines
(a name not in it has no definition in the file)."""

PYTHON_DEF = re.compile(rb"def[ \t]+([A-Za-z_][A-Za-z0-9_]*)[ \t]*[(\[]")
PYTHON_CLASS = re.compile(rb"class[ \t]+([A-Za-z_][A-Za-z0-9_]*)[ \t]*[(:\[]")
PYTHON_ASSIGNMENT = re.compile(rb"\n([A-Za-z_][A-Za-z0-9_]*)[ \t]*(?::[^=\n]*)?=(?!=)")
PYTHON_NOISE = re.compile(rb'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|#[^\n]*')
"""Triple-quoted strings and comments (their prose is not code)."""
_PART_START = re.compile(rb"\n(?:@|(?:async[ \t]+def|def|class)[ \t])")
_DECORATOR = ord("@")
_BLANKS = b" \t"
_ASYNC = b"async"
_KEEP_NEWLINES = bytes(byte if byte == ord("\n") else ord(" ") for byte in range(256))


def after_indent(text: bytes, start: int, allow_async: bool) -> bool:
    """True when only indentation (and `async `, if allowed) precedes `start` on its line."""
    before = text[text.rfind(b"\n", 0, start) + 1 : start]
    keyword = before.strip(_BLANKS)
    return not keyword or (allow_async and keyword == _ASYNC and before[-1:] in (b" ", b"\t"))


def blanked(data: bytes) -> bytes:
    """`data` with comments and triple-quoted strings turned to spaces (newlines kept)."""
    return PYTHON_NOISE.sub(lambda match: match.group().translate(_KEEP_NEWLINES), data)


def _part_starts(data: bytes, text: bytes) -> list[int]:
    """First byte of every part (`text` is LINE_START + the blanked data)."""
    starts = [0]
    previous = -1
    for match in _PART_START.finditer(text):
        start = match.start()  # the newline in `text` is where the line starts in `data`
        decorated = previous >= 0 and data[previous] == _DECORATOR
        previous = start
        if not decorated and start > starts[-1]:
            starts.append(start)
    return starts


def python_parts(data: bytes) -> NameParts:
    """The parts holding the definitions of every name a Python file defines."""
    text = LINE_START + blanked(data)
    starts = _part_starts(data, text)
    lines: dict[str, list[int]] = {}
    for pattern, allow_async in ((PYTHON_DEF, True), (PYTHON_CLASS, False)):
        for match in pattern.finditer(text):
            if after_indent(text, match.start(), allow_async):
                name = match.group(1).decode("ascii")
                lines.setdefault(name, []).append(text.rfind(b"\n", 0, match.start()))
    for match in PYTHON_ASSIGNMENT.finditer(text):
        lines.setdefault(match.group(1).decode("ascii"), []).append(match.start())
    spans = dict(zip(starts, zip(starts, [*starts[1:], len(data)], strict=True), strict=True))
    return {
        name: tuple(
            spans[start] for start in sorted({starts[bisect_right(starts, at) - 1] for at in found})
        )
        for name, found in sorted(lines.items())
    }


def spans_of(name_parts: NameParts, names: Collection[str]) -> list[PartSpan]:
    """The parts holding any of `names`, in file order."""
    return sorted({span for name in names for span in name_parts.get(name, ())})


def records_of(found: list[Definition], rows: list[bytes]) -> tuple[DefRecord, ...]:
    """Definitions as the map keeps them, with their signature lines."""
    return tuple(
        (
            d.name,
            d.start_row + 1,
            d.end_row + 1,
            d.name_row + 1,
            signature_text(rows[d.name_row].decode(TEXT_ENCODING, errors="replace")),
        )
        for d in found
    )


def tree_records(tree: Tree, data: bytes, language: str) -> tuple[DefRecord, ...]:
    """The definitions of `data` parsed into `tree`."""
    found = find_definitions(tree, language, MAX_DEFINITION_DEPTH)
    return records_of(found, data.split(b"\n")) if found else ()


def parse_whole(data: bytes, language: str) -> tuple[DefRecord, ...]:
    """The definitions of a whole file's bytes."""
    return tree_records(parse_bytes(new_parser(language), data), data, language)


WholeParse = Callable[[bytes, str], tuple[DefRecord, ...]]
"""How the definitions of a whole file are found (`parse_whole`, or a kept tree's)."""


def _points(data: bytes, offsets: list[int]) -> dict[int, Point]:
    """Row and column of each of these byte offsets of `data` (newlines counted between
    consecutive offsets, so the whole is one pass over the bytes)."""
    points: dict[int, Point] = {}
    row, counted = 0, 0
    for offset in sorted(set(offsets)):
        row += data.count(b"\n", counted, offset)
        counted = offset
        points[offset] = Point(row, offset - (data.rfind(b"\n", 0, offset) + 1))
    return points


def parse_parts(
    data: bytes,
    parts: list[PartSpan],
    language: str = PYTHON,
    done: Container[int] = (),
    whole_on_error: bool = True,
    whole_parse: WholeParse = parse_whole,
) -> PartRecords:
    """The definitions of each part of a file not already `done`, each part parsed alone;
    a part whose parse has an error takes what a whole-file parse finds on its lines
    (with `whole_on_error`), or what its own parse recovered."""
    todo = [(start, end) for start, end in parts if start not in done]
    if not todo:
        return {}
    rows = data.split(b"\n")
    points = _points(data, [offset for span in todo for offset in span])
    parser: Parser = new_parser(language)
    whole: tuple[DefRecord, ...] | None = None
    found: PartRecords = {}
    for start, end in todo:
        first, stop = points[start], points[end]
        parser.included_ranges = [Range(first, stop, start, end)]
        tree = parser.parse(data)
        if not tree.root_node.has_error or not whole_on_error:
            definitions = find_definitions(tree, language, MAX_DEFINITION_DEPTH)
            found[start] = records_of(definitions, rows)
            continue
        if whole is None:
            whole = whole_parse(data, language)
        last = stop.row if end < len(data) else len(rows)
        found[start] = tuple(record for record in whole if first.row + 1 <= record[1] <= last)
    return found
