"""What the repository map keeps of one file: its definitions and the identifiers it uses.

Definitions come from the tree-sitter definition query (`grammars/<language>-tags.scm`),
limited to shallow definitions (classes, functions, methods; not functions nested in
function bodies). References are found lexically: every identifier-shaped word of the
file with its count (identifiers in comments and docstrings count too, as a cheap and
language-independent stand-in for reference queries). Trees are never kept.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from cairn.code.languages import language_for_path, new_parser
from cairn.code.outlines import ENCODE_ERRORS, TEXT_ENCODING, signature_text
from cairn.code.tags import find_definitions

MAX_DEFINITION_DEPTH = 6
"""Deepest tree level where a definition may start (module > class > body > method ...)."""
MIN_IDENTIFIER_CHARS = 2
"""Shorter identifiers (i, x, n) relate nothing: they are not recorded as references."""
_IDENTIFIER = re.compile(rb"[A-Za-z_][A-Za-z0-9_]{%d,}" % (MIN_IDENTIFIER_CHARS - 1))

DefRecord = tuple[str, int, int, int, str]
"""(name, first line, last line, name line, signature text); lines are 1-based."""


@dataclass(frozen=True, slots=True)
class FileTags:
    """Definitions and identifier counts of one file (no tree, no full text)."""

    definitions: tuple[DefRecord, ...]
    references: dict[str, int]


EMPTY_TAGS = FileTags((), {})


def extract_tags(data: bytes, language: str) -> FileTags:
    """Definitions (tree-sitter) and identifier counts (lexical) of a file's bytes."""
    tree = new_parser(language).parse(data)
    definitions = find_definitions(tree, language, MAX_DEFINITION_DEPTH)
    rows: list[bytes] | None = None
    records: list[DefRecord] = []
    for definition in definitions:
        if rows is None:
            rows = data.split(b"\n")
        line = rows[definition.name_row].decode(TEXT_ENCODING, errors="replace")
        records.append(
            (
                definition.name,
                definition.start_row + 1,
                definition.end_row + 1,
                definition.name_row + 1,
                signature_text(line),
            )
        )
    counts = Counter(word.decode("ascii") for word in _IDENTIFIER.findall(data))
    for record in records:
        name = record[0]
        remaining = counts.get(name, 0) - 1
        if remaining > 0:
            counts[name] = remaining
        else:
            counts.pop(name, None)
    return FileTags(tuple(records), dict(counts))


def tags_of_text(text: str, path: str) -> FileTags:
    """Tags of an edited buffer's text (empty for a language without a grammar)."""
    language = language_for_path(path)
    if language is None:
        return EMPTY_TAGS
    return extract_tags(text.encode(TEXT_ENCODING, ENCODE_ERRORS), language)


def tags_of_files(paths: list[str]) -> list[FileTags | None]:
    """Tags of files on disk (None for one that cannot be read); runs in pool workers too."""
    results: list[FileTags | None] = []
    for path in paths:
        language = language_for_path(path)
        if language is None:
            results.append(EMPTY_TAGS)
            continue
        try:
            data = Path(path).read_bytes()
        except OSError:
            results.append(None)
            continue
        results.append(extract_tags(data, language))
    return results
