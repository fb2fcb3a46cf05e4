"""Blanking `//` and `/* */` comments in linear time, with the same matches as the plain pattern.

A comment pattern like `//[^\n]*|/\\*.*?\\*/` retried at every position is
quadratic on a file with many unclosed `/*` (each scans to the end before it
fails: 60 KB of ` /*` took half a minute). No block comment can close after
the last `*/` of the file, so `sub_comments` runs the whole pattern only up
to that point and, after it (from one byte before it: `*//`), only the
line-comment pattern: the same matches (a `//` comment cut at that point is
matched again whole), each position tried once.
"""

from __future__ import annotations

import re
from collections.abc import Callable

BLOCK_CLOSE = b"*/"
Replacement = Callable[[re.Match[bytes]], bytes]


def sub_comments(
    pattern: re.Pattern[bytes], line_pattern: re.Pattern[bytes], repl: Replacement, data: bytes
) -> bytes:
    """`pattern.sub(repl, data)`, where `pattern` is `line_pattern` or a `/* … */` comment."""
    last = data.rfind(BLOCK_CLOSE)
    cut = last + len(BLOCK_CLOSE) if last >= 0 else 0
    pieces: list[bytes] = []
    kept = 0
    for match in pattern.finditer(data, 0, cut):
        whole = match
        if match.end() == cut:  # a line comment may go on past the cut
            whole = line_pattern.match(data, match.start()) or match
        pieces += [data[kept : whole.start()], repl(whole)]
        kept = whole.end()
    # A line comment can start just before the cut (`*//`) and still not be seen by then.
    for match in line_pattern.finditer(data, max(kept, cut - 1, 0)):
        pieces += [data[kept : match.start()], repl(match)]
        kept = match.end()
    return b"".join([*pieces, data[kept:]])
