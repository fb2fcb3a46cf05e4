"""Tree-sitter grammars Cairn parses with, loaded lazily (the extension table is `cairn.files.languages`).

Each grammar comes from its own wheel (tree-sitter-python, -javascript, ...), imported
only the first time a file of that language is seen, and cached for the process. The
definition query of a language (`grammars/<language>-tags.scm`) is compiled once.
`parse_bytes` parses with the bytes handed over in chunks: a parse of one bytestring
holds the interpreter lock throughout (half a second for 2 MB of Python), during which
no other thread runs, the language server's event loop included.
"""

from __future__ import annotations

import importlib
from functools import cache
from pathlib import PurePath

from tree_sitter import Language, Parser, Point, Query, Tree

from cairn.files.languages import grammar_of
from cairn.resources import grammars_dir

_GRAMMARS: dict[str, tuple[str, str]] = {
    "python": ("tree_sitter_python", "language"),
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "go": ("tree_sitter_go", "language"),
    "rust": ("tree_sitter_rust", "language"),
    "java": ("tree_sitter_java", "language"),
    "c": ("tree_sitter_c", "language"),
    "cpp": ("tree_sitter_cpp", "language"),
}
"""Language name → (wheel module, function returning the grammar pointer)."""

_QUERY_FILES: dict[str, tuple[str, ...]] = {
    "typescript": ("javascript", "typescript"),
    "tsx": ("javascript", "typescript"),
}
"""Languages whose definition query is several `.scm` files compiled together."""

LANGUAGES: tuple[str, ...] = tuple(_GRAMMARS)
"""Every supported language name."""
# Bytes a parse reads at a time (other threads may run between two reads).
PARSE_CHUNK_BYTES = 1 << 15


def language_for_path(path: str | PurePath) -> str | None:
    """The grammar for a file from its extension, or None when Cairn has none for it
    (`cairn.files.languages` holds the table)."""
    return grammar_of(path)


@cache
def get_language(name: str) -> Language:
    """The tree-sitter grammar of `name`, imported from its wheel on first use."""
    module_name, function_name = _GRAMMARS[name]
    module = importlib.import_module(module_name)
    return Language(getattr(module, function_name)())


def new_parser(name: str) -> Parser:
    """A fresh parser for `name` (parsers hold state: one per document or thread)."""
    return Parser(get_language(name))


def parse_bytes(parser: Parser, data: bytes, old_tree: Tree | None = None) -> Tree:
    """`parser.parse(data, old_tree)`, the bytes read `PARSE_CHUNK_BYTES` at a time."""

    def read(offset: int, _point: Point) -> bytes:
        return data[offset : offset + PARSE_CHUNK_BYTES]

    return parser.parse(read) if old_tree is None else parser.parse(read, old_tree)


@cache
def query_source(name: str) -> str:
    """The text of the definition query of `name` (several files joined for TypeScript)."""
    parts = _QUERY_FILES.get(name, (name,))
    folder = grammars_dir()
    return "\n".join((folder / f"{part}-tags.scm").read_text(encoding="utf-8") for part in parts)


@cache
def definition_query(name: str) -> Query:
    """The compiled definition query of `name`, compiled once per process."""
    return Query(get_language(name), query_source(name))
