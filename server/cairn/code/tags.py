"""Definitions found in a parsed file with the language's `grammars/<language>-tags.scm` query.

One `Definition` per defining node (class, function, method, struct, interface, ...),
with its name, kind, the byte and line span of the whole node and the line that holds
its name (the signature line shown in outlines and in the repository map).
"""

from __future__ import annotations

from dataclasses import dataclass

from tree_sitter import Node, QueryCursor, Tree

from cairn.code.languages import definition_query

DEFINITION_PREFIX = "definition."
NAME_CAPTURE = "name"
QUALIFIER_SEPARATORS = ("::", ".")
"""A captured qualified name (`ns::Type::method`, `Foo.bar`) is reduced to its last part."""


@dataclass(frozen=True, slots=True)
class Definition:
    """One definition: name, kind and spans (lines are 0-based rows of the tree)."""

    name: str
    kind: str
    start_byte: int
    end_byte: int
    start_row: int
    end_row: int
    name_row: int


def short_name(text: str) -> str:
    """A captured name reduced to its last qualifier part (`ns::Type::run` → `run`)."""
    for separator in QUALIFIER_SEPARATORS:
        if separator in text:
            text = text.rsplit(separator, 1)[1]
    return text.strip()


def find_definitions(tree: Tree, language: str, max_depth: int | None = None) -> list[Definition]:
    """Every definition in `tree`, sorted by position, outer before inner, duplicates removed.

    `max_depth` limits how deep in the tree a definition may start (the repository map
    uses it to skip functions nested in function bodies, which is much faster).
    """
    cursor = QueryCursor(definition_query(language))
    if max_depth is not None:
        cursor.set_max_start_depth(max_depth)
    found: dict[tuple[int, int], Definition] = {}
    for _pattern, captures in cursor.matches(tree.root_node):
        name_nodes = captures.get(NAME_CAPTURE)
        if not name_nodes:
            continue
        for capture, nodes in captures.items():
            if not capture.startswith(DEFINITION_PREFIX):
                continue
            _add(found, nodes[0], name_nodes[0], capture[len(DEFINITION_PREFIX) :])
    return sorted(found.values(), key=lambda d: (d.start_byte, -d.end_byte, d.name_row))


def _last_row(node: Node) -> int:
    """The last row holding text of `node` (a node ending at column 0 ends on the row before)."""
    end = node.end_point
    if end.column == 0 and end.row > node.start_point.row:
        return end.row - 1
    return end.row


def _add(found: dict[tuple[int, int], Definition], node: Node, name_node: Node, kind: str) -> None:
    key = (node.start_byte, node.end_byte)
    if key in found:
        return
    raw = name_node.text
    name = short_name(raw.decode("utf-8", errors="replace")) if raw is not None else ""
    if not name:
        return
    found[key] = Definition(
        name=name,
        kind=kind,
        start_byte=node.start_byte,
        end_byte=node.end_byte,
        start_row=node.start_point.row,
        end_row=_last_row(node),
        name_row=name_node.start_point.row,
    )
