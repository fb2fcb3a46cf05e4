"""What the repository map keeps of one file: the names it defines and the identifiers it uses.

Two passes, so that a cold build does not parse every file:

- the lexical scan (every file): every identifier-shaped word outside comments and
  docstrings with its count (the file's uses: a cheap language-independent stand-in for
  reference queries), and the names the file defines — found by keyword search for
  languages that have a finder (Python: `def`/`class` and module-level assignments),
  else by parsing with tree-sitter;
- the definitions (tree-sitter, `grammars/<language>-tags.scm`): name, line span and
  signature line of each class, function, method..., parsed only for the files the
  rendered map actually shows (or at scan time for languages without a finder).

Ranking uses only the scan, so the map is the same whichever files happen to be parsed.
Trees are never kept.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from cairn.code.languages import language_for_path, new_parser
from cairn.code.outlines import ENCODE_ERRORS, TEXT_ENCODING, signature_text
from cairn.code.tags import find_definitions

MAX_DEFINITION_DEPTH = 6
"""Deepest tree level where a definition may start (module > class > body > method ...)."""
MIN_IDENTIFIER_CHARS = 2
"""Shorter identifiers (i, x, n) relate nothing: they are not recorded as uses."""
_IDENTIFIER = re.compile(rf"[A-Za-z_][A-Za-z0-9_]{{{MIN_IDENTIFIER_CHARS - 1},}}".encode())
LINE_START = b"\n"
"""Put in front of a file's bytes so that its first line starts after a newline too."""

_PYTHON_DEF = re.compile(rb"def[ \t]+([A-Za-z_][A-Za-z0-9_]*)[ \t]*[(\[]")
_PYTHON_CLASS = re.compile(rb"class[ \t]+([A-Za-z_][A-Za-z0-9_]*)[ \t]*[(:\[]")
_PYTHON_ASSIGNMENT = re.compile(rb"\n([A-Za-z_][A-Za-z0-9_]*)[ \t]*(?::[^=\n]*)?=(?!=)")
_BLANKS = b" \t"
_ASYNC = b"async"


def _after_indent(data: bytes, start: int, allow_async: bool) -> bool:
    """True when only indentation (and `async `, if allowed) precedes `start` on its line."""
    before = data[data.rfind(b"\n", 0, start) + 1 : start]
    keyword = before.strip(_BLANKS)
    return not keyword or (allow_async and keyword == _ASYNC and before[-1:] in (b" ", b"\t"))


def python_defined_names(data: bytes) -> list[str]:
    """Names a Python file defines, without parsing: `def` and `class` statements at any
    indentation, then module-level assignments (`name = ...`, `name: T = ...`).

    Each keyword is searched for on its own (a literal the regex engine skips to quickly)
    and kept when only indentation precedes it on its line: about three times faster on
    the sympy sources than one pattern anchored at every line start, same names.
    """
    text = LINE_START + data
    names = [
        match.group(1)
        for pattern, allow_async in ((_PYTHON_DEF, True), (_PYTHON_CLASS, False))
        for match in pattern.finditer(text)
        if _after_indent(text, match.start(), allow_async)
    ]
    names.extend(_PYTHON_ASSIGNMENT.findall(text))
    return [name.decode("ascii") for name in names]


DEFINED_NAME_FINDERS: dict[str, Callable[[bytes], list[str]]] = {
    "python": python_defined_names,
}
"""Languages whose defined names are found without parsing (the others are parsed)."""

_C_STYLE_NOISE = re.compile(rb"//[^\n]*|/\*.*?\*/", re.DOTALL)
NOISE_PATTERNS: dict[str, re.Pattern[bytes]] = {
    "python": re.compile(rb'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|#[^\n]*'),
    **{
        language: _C_STYLE_NOISE
        for language in ("javascript", "typescript", "tsx", "go", "rust", "java", "c", "cpp")
    },
}
"""Comments and docstrings, blanked before counting uses (their prose is not a use)."""

DefRecord = tuple[str, int, int, int, str]
"""(name, first line, last line, name line, signature text); lines are 1-based."""


@dataclass(frozen=True, slots=True)
class FileTags:
    """What the map knows of one file (no tree, no full text).

    `definitions` is None until the file is parsed (see module docstring).
    """

    names: tuple[str, ...]
    references: dict[str, int]
    definitions: tuple[DefRecord, ...] | None


EMPTY_TAGS = FileTags((), {}, ())


def parse_definitions(data: bytes, language: str) -> tuple[DefRecord, ...]:
    """The definitions of a file's bytes, with their signature lines."""
    tree = new_parser(language).parse(data)
    found = find_definitions(tree, language, MAX_DEFINITION_DEPTH)
    if not found:
        return ()
    rows = data.split(b"\n")
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


def scan(data: bytes, language: str) -> FileTags:
    """The lexical scan of a file's bytes (parsing it only when its language needs that)."""
    finder = DEFINED_NAME_FINDERS.get(language)
    definitions: tuple[DefRecord, ...] | None = None
    if finder is None:
        definitions = parse_definitions(data, language)
        defined = [record[0] for record in definitions]
    else:
        defined = finder(data)
    noise = NOISE_PATTERNS.get(language)
    code = noise.sub(b" ", data) if noise is not None else data
    counts = {
        word.decode("ascii"): uses for word, uses in Counter(_IDENTIFIER.findall(code)).items()
    }
    for name in defined:
        remaining = counts.get(name, 0) - 1
        if remaining > 0:
            counts[name] = remaining
        else:
            counts.pop(name, None)
    return FileTags(tuple(dict.fromkeys(defined)), dict(counts), definitions)


def with_definitions(tags: FileTags, data: bytes, language: str) -> FileTags:
    """`tags` completed with the parsed definitions of the same bytes."""
    return replace(tags, definitions=parse_definitions(data, language))


def scan_text(text: str, path: str) -> FileTags:
    """The scan of an edited buffer's text (empty for a language without a grammar)."""
    language = language_for_path(path)
    if language is None:
        return EMPTY_TAGS
    return scan(text.encode(TEXT_ENCODING, ENCODE_ERRORS), language)


def complete_text(tags: FileTags, text: str, path: str) -> FileTags:
    """`tags` of a buffer completed with the definitions of its text."""
    language = language_for_path(path)
    if tags.definitions is not None or language is None:
        return tags
    return with_definitions(tags, text.encode(TEXT_ENCODING, ENCODE_ERRORS), language)


def scan_files(paths: list[str]) -> list[FileTags | None]:
    """Scans of files on disk (None for one that cannot be read); runs in pool workers too."""
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
        results.append(scan(data, language))
    return results


def definitions_of_file(path: Path, tags: FileTags) -> FileTags:
    """`tags` of the file at `path` completed with its definitions (empty if unreadable)."""
    language = language_for_path(path.name)
    if tags.definitions is not None or language is None:
        return tags
    try:
        data = path.read_bytes()
    except OSError:
        return replace(tags, definitions=())
    return with_definitions(tags, data, language)


def parse_files(paths: list[str]) -> list[tuple[DefRecord, ...]]:
    """Definitions of files on disk (empty for one that cannot be read); runs in pool workers."""
    results: list[tuple[DefRecord, ...]] = []
    for path in paths:
        language = language_for_path(path)
        try:
            data = Path(path).read_bytes() if language is not None else b""
        except OSError:
            data = b""
        results.append(parse_definitions(data, language) if language and data else ())
    return results
