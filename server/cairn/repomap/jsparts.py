"""The parts of a JavaScript or TypeScript file the map parses alone: its top-level statements.

Formatted code starts every top-level statement at column 0, and nothing else starts
there but the closing brackets and operators that continue a statement (`}`, `)`, `]`,
`>`, `.`, `,`, `|`, `&`, `?`, `:`, an operator) and the content of multi-line strings. A
part runs from one line starting a statement at column 0 to the next (a comment at
column 0 starts the part of the declaration it documents). The names each part defines
come from the lexical finder (`repomap_jsnames`) run on the part alone.

A part is parsed on its own (`repomap_parts.parse_parts`, with `included_ranges`, so
line numbers stay the file's); one whose parse has an error (a part cut inside a
multi-line template literal, say) takes what a whole-file parse finds on its lines. The
outline of a name thus depends only on the file's bytes and the parts holding it.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from cairn.repomap.comments import sub_comments
from cairn.repomap.jsnames import JS_LINE_NOISE, JS_NOISE, javascript_definitions
from cairn.repomap.parts import NameParts, PartSpan

_STATEMENT_START = re.compile(rb"\n(?=[^\s})\]>.,|&?:+\-*/=%^!~`'\"]|/[*/])")
"""A line starting at column 0 with something that can begin a statement, or a comment."""
_CONTINUES = (b"=>", b"=", b"(", b"[", b"{", b",", b":", b"?", b"&", b"|", b"+", b"-", b".")
"""A line ending like this goes on on the next line (`=> (` at column 0 is no statement)."""
CONTINUATION_LOOKBACK = 64


def js_parts(data: bytes) -> NameParts:
    """The parts holding the definitions of every name a JavaScript/TypeScript file defines."""
    starts = [0]
    for match in _STATEMENT_START.finditer(data):
        before = data[max(0, match.start() - CONTINUATION_LOOKBACK) : match.start()]
        if not before.rstrip().endswith(_CONTINUES):
            starts.append(match.end())
    ends = [*starts[1:], len(data)]
    blanked_at: list[int] = []
    """Where each blanked comment starts in the blanked bytes..."""
    removed: list[int] = [0]
    """...and how many bytes the comments before it (then it too) removed."""

    def blank(match: re.Match[bytes]) -> bytes:
        start, end = match.span()
        blanked_at.append(start - removed[-1])
        removed.append(removed[-1] + end - start - 1)
        return b" "

    code = sub_comments(JS_NOISE, JS_LINE_NOISE, blank, data)
    found: dict[str, dict[PartSpan, None]] = {}
    for at, name in javascript_definitions(code):
        offset = at + removed[bisect_right(blanked_at, at)]
        part = bisect_right(starts, offset) - 1
        found.setdefault(name, {})[(starts[part], ends[part])] = None
    return {name: tuple(sorted(parts)) for name, parts in sorted(found.items())}
