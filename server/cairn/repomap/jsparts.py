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

from cairn.repomap.jsnames import JS_NOISE, javascript_defined_names
from cairn.repomap.parts import NameParts, PartSpan

_STATEMENT_START = re.compile(rb"\n(?=[^\s})\]>.,|&?:+\-*/=%^!~`'\"])")
"""A line starting at column 0 with something that can begin a statement."""


def js_parts(data: bytes) -> NameParts:
    """The parts holding the definitions of every name a JavaScript/TypeScript file defines."""
    starts = [0, *(match.end() for match in _STATEMENT_START.finditer(data))]
    spans: list[PartSpan] = list(zip(starts, [*starts[1:], len(data)], strict=True))
    found: dict[str, dict[PartSpan, None]] = {}
    for span in spans:
        code = JS_NOISE.sub(b" ", data[span[0] : span[1]])
        for name in javascript_defined_names(code):
            found.setdefault(name, {})[span] = None
    return {name: tuple(parts) for name, parts in sorted(found.items())}
