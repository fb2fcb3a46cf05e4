"""Parsing the TypeScript-like shapes PROTOCOL.md writes: `{sessionId?, kind: "a"|"b", ...}`.

A shape is an object of fields; each field has a name, an optional mark
(`?`) and, when written, a type: a plain type text (`string`, `Goal[]`,
`"stop"|"error"`, `string|null`), a nested object, an array of objects
(`[{...}]`) or a string-keyed map (`{[source: string]: number}`). Comments
(`// ...`) and parenthesised notes after a type are dropped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
QUOTED = re.compile(r'"([^"]*)"')
COMMENT = re.compile(r"//[^\n]*")
NOTE = re.compile(r"\s*\([^()]*\)\s*$")
OPENERS = {"{": "}", "[": "]", "(": ")"}


class ShapeSyntaxError(ValueError):
    """A shape PROTOCOL.md writes that this parser cannot read."""


@dataclass
class DocField:
    name: str
    optional: bool = False
    type_text: str = ""
    nested: DocObject | None = None
    array_of_objects: bool = False
    map_of: str | None = None

    @property
    def literals(self) -> list[str]:
        """The quoted literal values of the type (`"a"|"b"` → ["a", "b"])."""
        return QUOTED.findall(self.type_text)

    @property
    def nullable(self) -> bool:
        return self.optional or "null" in self.type_text.split("|")


@dataclass
class DocObject:
    fields: dict[str, DocField] = field(default_factory=dict)


def _skip_space(text: str, i: int) -> int:
    while i < len(text) and text[i].isspace():
        i += 1
    return i


def _raw_type(text: str, i: int) -> tuple[str, int]:
    """The type text from `i` up to the `,` or `}` that ends the field."""
    depth: list[str] = []
    start = i
    while i < len(text):
        char = text[i]
        if char == '"':
            i = text.index('"', i + 1)
        elif char in OPENERS:
            depth.append(OPENERS[char])
        elif depth and char == depth[-1]:
            depth.pop()
        elif not depth and char in ",}":
            break
        i += 1
    return NOTE.sub("", text[start:i].strip()), i


def _field_type(text: str, i: int, entry: DocField) -> int:
    i = _skip_space(text, i)
    if text.startswith("{[", i):
        close = text.index("]", i)
        colon = text.index(":", close)
        value, end = _raw_type(text, colon + 1)
        entry.map_of = value
        return _skip_space(text, end) + 1  # past the map's "}"
    if text.startswith("{", i):
        entry.nested, i = parse_object(text, i)
        return i
    if text.startswith("[{", i):
        entry.nested, i = parse_object(text, i + 1)
        entry.array_of_objects = True
        i = _skip_space(text, i)
        if not text.startswith("]", i):
            raise ShapeSyntaxError(f"expected ']' at {text[i : i + 20]!r}")
        return i + 1
    entry.type_text, i = _raw_type(text, i)
    return i


def parse_object(text: str, i: int = 0) -> tuple[DocObject, int]:
    """The object starting at `text[i] == "{"` and the index just past its `}`."""
    text = COMMENT.sub("", text) if i == 0 else text
    i = _skip_space(text, i)
    if not text.startswith("{", i):
        raise ShapeSyntaxError(f"expected '{{' at {text[i : i + 20]!r}")
    shape = DocObject()
    i += 1
    while True:
        i = _skip_space(text, i)
        if text.startswith("}", i):
            return shape, i + 1
        match = IDENTIFIER.match(text, i)
        if match is None:
            raise ShapeSyntaxError(f"expected a field name at {text[i : i + 20]!r}")
        entry = DocField(match[0])
        i = _skip_space(text, match.end())
        if text.startswith("?", i):
            entry.optional = True
            i = _skip_space(text, i + 1)
        if text.startswith(":", i):
            i = _field_type(text, i + 1, entry)
        shape.fields[entry.name] = entry
        i = _skip_space(text, i)
        if text.startswith(",", i):
            i += 1


def parse_shape_or_name(text: str) -> DocObject | str:
    """A table cell: an object shape (`{...}`), or a shape's name (`ContextStats`)."""
    cleaned = COMMENT.sub("", text).strip().strip("`").strip()
    if cleaned.startswith("{"):
        shape, _ = parse_object(cleaned)
        return shape
    match = IDENTIFIER.match(cleaned)
    if match is None:
        raise ShapeSyntaxError(f"neither a shape nor a shape name: {text!r}")
    return match[0]


def parse_definitions(block: str) -> dict[str, DocObject]:
    """`Name = {...}` definitions of a code block, by name."""
    text = COMMENT.sub("", block)
    found: dict[str, DocObject] = {}
    for match in re.finditer(r"([A-Za-z_][A-Za-z0-9_]*)\s*=\s*\{", text):
        shape, _ = parse_object(text, match.end() - 1)
        found[match[1]] = shape
    return found
