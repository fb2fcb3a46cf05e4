"""Text helpers every layer shares: content hashes, LSP line breaks, UTF-16 positions.

`content_hash` is the one content hash of the project: block versions, rules
file hashes in the profile, memo keys. LSP positions count UTF-16 code units;
`utf16_to_index` turns one into a Python string index. `clip_line` is the one
way a very long line is shortened for the model (minified code, one-line JSON).
"""

from __future__ import annotations

import re

import xxhash

LINE_BREAK = re.compile(r"\r\n|\r|\n")
# Code points above this take two UTF-16 code units (a surrogate pair).
ASTRAL_START = 0xFFFF


def content_hash(text: str) -> str:
    """The content hash of `text` (xxh3-64, hex)."""
    return xxhash.xxh3_64_hexdigest(text.encode("utf-8", "surrogatepass"))


def split_lines(text: str) -> list[str]:
    """Split into lines that keep their line ending (LSP's \\n, \\r\\n or \\r)."""
    lines: list[str] = []
    start = 0
    for match in LINE_BREAK.finditer(text):
        lines.append(text[start : match.end()])
        start = match.end()
    lines.append(text[start:])
    return lines


def utf16_to_index(line: str, character: int) -> int:
    """Python index in `line` of the UTF-16 code unit offset `character` (clamped to the line)."""
    if line.isascii():
        return min(character, len(line))
    units = 0
    for index, char in enumerate(line):
        if units >= character:
            return index
        units += 2 if ord(char) > ASTRAL_START else 1
    return len(line)


def cut_line_marker(hidden: int) -> str:
    """What replaces the end of a line cut after its first characters (`hidden` more)."""
    return f"… [line cut: {hidden} more characters]"


def clip_line(line: str, max_chars: int) -> str:
    """`line`, or its first `max_chars` characters and how many more there were."""
    if len(line) <= max_chars:
        return line
    return f"{line[:max_chars]}{cut_line_marker(len(line) - max_chars)}"
