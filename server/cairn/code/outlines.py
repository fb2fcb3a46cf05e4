"""Outlines: a file reduced to its signature lines with line ranges, nested by indentation.

    L1-40  class Store:
      L3-9  def get(self, key):

`outline_forms` gives, from one parse, both the full outline and its top-level entries
only (the coarser form of a file whose full outline is itself too large).

Each entry shows the real source line that holds the definition's name (the first line of
its signature), with leading whitespace replaced by the nesting indentation. Used as the
smaller faithful form of a file too large for its share of the context, and by the
repository map.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tree_sitter import Tree

from cairn.code.languages import language_for_path, new_parser, parse_bytes
from cairn.code.tags import Definition, find_definitions

TEXT_ENCODING = "utf-8"
ENCODE_ERRORS = "surrogatepass"
INDENT = "  "
MAX_SIGNATURE_CHARS = 200
"""A longer signature line (minified code) is shortened and marked with ELLIPSIS."""
ELLIPSIS = " …"


def signature_text(line: str) -> str:
    """One source line as shown in an outline: stripped, and shortened when very long."""
    text = line.strip()
    if len(text) > MAX_SIGNATURE_CHARS:
        return text[:MAX_SIGNATURE_CHARS] + ELLIPSIS
    return text


def outline_entry(start_line: int, end_line: int, signature: str, depth: int = 0) -> str:
    """One outline line; lines are 1-based and inclusive."""
    return f"{INDENT * depth}L{start_line}-{end_line}  {signature}"


def nesting_depths(definitions: Sequence[Definition]) -> list[int]:
    """How many other definitions enclose each one (input sorted outer before inner)."""
    depths: list[int] = []
    open_ends: list[int] = []
    for definition in definitions:
        while open_ends and open_ends[-1] <= definition.start_byte:
            open_ends.pop()
        depths.append(len(open_ends))
        open_ends.append(definition.end_byte)
    return depths


def render_outline(definitions: Sequence[Definition], rows: Sequence[str]) -> str:
    """The outline text of `definitions` whose signature lines are taken from `rows`."""
    entries = [
        outline_entry(d.start_row + 1, d.end_row + 1, signature_text(rows[d.name_row]), depth)
        for d, depth in zip(definitions, nesting_depths(definitions), strict=True)
    ]
    return "\n".join(entries)


def outline(text: str, path: str) -> str | None:
    """The outline of `text` (the content of `path`); None when the language is unknown.

    A file of a known language without any definition gives an empty string.
    """
    language = language_for_path(path)
    if language is None:
        return None
    tree = parse_bytes(new_parser(language), text.encode(TEXT_ENCODING, ENCODE_ERRORS))
    return outline_from_tree(tree, language, text)


def outline_from_tree(tree: Tree, language: str, text: str) -> str:
    """The outline of `text` already parsed into `tree`."""
    return render_outline(find_definitions(tree, language), text.split("\n"))


@dataclass(frozen=True)
class OutlineForms:
    """A file's outline at two depths: every definition, and the top-level ones only."""

    full: str
    top_level: str
    definitions: int
    top_level_definitions: int


def outline_forms(text: str, path: str) -> OutlineForms | None:
    """Both outlines of `text` (the content of `path`) from one parse; None when the
    language is unknown."""
    language = language_for_path(path)
    if language is None:
        return None
    tree = parse_bytes(new_parser(language), text.encode(TEXT_ENCODING, ENCODE_ERRORS))
    definitions = find_definitions(tree, language)
    rows = text.split("\n")
    depths = nesting_depths(definitions)
    top = [d for d, depth in zip(definitions, depths, strict=True) if depth == 0]
    return OutlineForms(
        full=render_outline(definitions, rows),
        top_level=render_outline(top, rows),
        definitions=len(definitions),
        top_level_definitions=len(top),
    )
