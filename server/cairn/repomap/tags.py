"""What the repository map keeps of one file: the names it defines and the identifiers it uses.

Two passes, so that a cold build does not parse every file:

- the lexical scan (every file): every identifier-shaped word outside comments and
  docstrings with its count (the file's uses: a cheap language-independent stand-in for
  reference queries), and the names the file defines — found without parsing for
  languages that have a finder (Python: `def`/`class` and module-level assignments;
  JavaScript and TypeScript: `repomap_jsnames`), else by parsing with tree-sitter;
- the definitions (tree-sitter, `grammars/<language>-tags.scm`): name, line span and
  signature line of each class, function, method..., parsed only for the names the
  rendered map actually shows — for Python, JavaScript and TypeScript only the
  top-level statements holding them (`repomap_parts`, `repomap_jsparts`) — or at scan
  time for languages without a finder.

Ranking uses only the scan, so the map is the same whichever files happen to be parsed.
No tree is kept here (the map keeps those of open buffers it parses whole). Files are
read through `repomap_reading` (regular files, bounded, no minified or generated code).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Collection
from dataclasses import dataclass, replace

from cairn.code.languages import language_for_path
from cairn.code.outlines import ENCODE_ERRORS, TEXT_ENCODING
from cairn.repomap.comments import sub_comments
from cairn.repomap.jsnames import (
    JS_LANGUAGES,
    JS_LINE_NOISE,
    JS_NOISE,
    javascript_defined_names,
)
from cairn.repomap.jsparts import js_parts
from cairn.repomap.parts import (
    LINE_START,
    PYTHON,
    PYTHON_ASSIGNMENT,
    PYTHON_CLASS,
    PYTHON_DEF,
    PYTHON_NOISE,
    DefRecord,
    NameParts,
    PartRecords,
    PartSpan,
    WholeParse,
    after_indent,
    parse_parts,
    parse_whole,
    python_parts,
    spans_of,
)
from cairn.repomap.reading import MAX_MAP_FILE_BYTES, Refusal, content_refusal, read_source

MIN_IDENTIFIER_CHARS = 2
"""Shorter identifiers (i, x, n) relate nothing: they are not recorded as uses."""
_IDENTIFIER = re.compile(rf"[A-Za-z_][A-Za-z0-9_]{{{MIN_IDENTIFIER_CHARS - 1},}}".encode())


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
        for pattern, allow_async in ((PYTHON_DEF, True), (PYTHON_CLASS, False))
        for match in pattern.finditer(text)
        if after_indent(text, match.start(), allow_async)
    ]
    names.extend(PYTHON_ASSIGNMENT.findall(text))
    return [name.decode("ascii") for name in names]


DEFINED_NAME_FINDERS: dict[str, Callable[[bytes], list[str]]] = {
    PYTHON: python_defined_names,
}
"""Languages whose defined names are found without parsing, from the file's bytes."""
CODE_NAME_FINDERS: dict[str, Callable[[bytes], list[str]]] = dict.fromkeys(
    JS_LANGUAGES, javascript_defined_names
)
"""Languages whose defined names are found without parsing, from the bytes with comments
blanked (`NOISE_PATTERNS`); every other language is parsed at scan time."""

_C_STYLE_LINE_NOISE = re.compile(rb"//[^\n]*")
_C_STYLE_NOISE = re.compile(rb"//[^\n]*|/\*.*?\*/", re.DOTALL)
NOISE_PATTERNS: dict[str, re.Pattern[bytes]] = {
    PYTHON: PYTHON_NOISE,
    **dict.fromkeys(JS_LANGUAGES, JS_NOISE),
    **dict.fromkeys(("go", "rust", "java", "c", "cpp"), _C_STYLE_NOISE),
}
"""Comments and docstrings, blanked before counting uses (their prose is not a use)."""
LINE_NOISE_PATTERNS: dict[re.Pattern[bytes], re.Pattern[bytes]] = {
    JS_NOISE: JS_LINE_NOISE,
    _C_STYLE_NOISE: _C_STYLE_LINE_NOISE,
}
"""The line-comment part of each `//` + `/* */` pattern (`cairn.repomap.comments`)."""


def _blank(match: re.Match[bytes]) -> bytes:
    return b" "


def blank_noise(noise: re.Pattern[bytes], data: bytes) -> bytes:
    """`data` with each match of `noise` replaced by a space (linear for block comments)."""
    line_noise = LINE_NOISE_PATTERNS.get(noise)
    if line_noise is None:
        return noise.sub(b" ", data)
    return sub_comments(noise, line_noise, _blank, data)


@dataclass(frozen=True, slots=True)
class FileTags:
    """What the map knows of one file (no tree, no full text).

    `definitions` holds every definition of the file once it was parsed whole, else
    None. A Python file is usually parsed in parts instead (`repomap_parts`):
    `part_records` holds the definitions of each part parsed so far and `name_parts`
    the parts holding each name asked for so far.
    """

    names: tuple[str, ...]
    references: dict[str, int]
    definitions: tuple[DefRecord, ...] | None
    part_records: PartRecords | None = None
    name_parts: NameParts | None = None

    def unparsed(self, names: Collection[str]) -> list[PartSpan] | None:
        """The parts an outline of `names` needs that were not parsed yet ([] when none
        are missing), or None when the file's parts are not known yet (or it is parsed
        whole and was not)."""
        if self.definitions is not None:
            return []
        if self.name_parts is None:
            return None
        done = self.part_records or {}
        return [span for span in spans_of(self.name_parts, names) if span[0] not in done]

    def shown_definitions(self, names: Collection[str]) -> tuple[DefRecord, ...]:
        """The definitions an outline of `names` is made from: every definition of a
        file parsed whole, else those of the parts holding `names` (parsed ones only)."""
        if self.definitions is not None:
            return self.definitions
        part_records = self.part_records or {}
        return tuple(
            record
            for start, _end in spans_of(self.name_parts or {}, names)
            for record in part_records.get(start, ())
        )


EMPTY_TAGS = FileTags((), {}, ())


def scan(data: bytes, language: str, whole_parse: WholeParse = parse_whole) -> FileTags:
    """The lexical scan of a file's bytes (parsing it, with `whole_parse`, only when its
    language has no name finder)."""
    noise = NOISE_PATTERNS.get(language)
    code = blank_noise(noise, data) if noise is not None else data
    finder = DEFINED_NAME_FINDERS.get(language)
    code_finder = CODE_NAME_FINDERS.get(language)
    definitions: tuple[DefRecord, ...] | None = None
    if finder is not None:
        defined = finder(data)
    elif code_finder is not None:
        defined = code_finder(code)
    else:
        definitions = whole_parse(data, language)
        defined = [record[0] for record in definitions]
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


PART_FINDERS: dict[str, Callable[[bytes], NameParts]] = {
    PYTHON: python_parts,
    **dict.fromkeys(JS_LANGUAGES, js_parts),
}
"""Languages whose files are parsed in parts (`repomap_parts`, `repomap_jsparts`), not
whole, and how their parts are found."""
WHOLE_ON_PART_ERROR = frozenset({PYTHON})
"""Languages whose part with a syntax error takes the records a whole-file parse finds
on its lines. A Python part is cut exactly at a top-level statement, so an error in it is
the file's own, which a whole parse recovers from best. JavaScript and TypeScript parts
keep what their own parse recovered: their grammar rejects valid code often (a third of
the `effect` sources), and a whole-file parse recovers no better (its error can cover
most of the file) at the cost of parsing every byte."""

PartsFound = tuple[tuple[DefRecord, ...] | None, NameParts | None, PartRecords]
"""What parsing a file gives: every definition (a language parsed whole), or None, the
file's parts when they were worked out, and the records of the parts parsed."""


def definitions_for(
    data: bytes,
    language: str,
    names: Collection[str],
    parts: list[PartSpan] | None,
    whole_parse: WholeParse = parse_whole,
) -> PartsFound:
    """Parse what the outline of `names` needs: the given `parts`, or (None) the parts of
    `names` once the file's parts are worked out (whole files with `whole_parse`)."""
    find_parts = PART_FINDERS.get(language)
    if find_parts is None:
        return whole_parse(data, language), None, {}
    if parts is None:
        name_parts: NameParts | None = find_parts(data)
        parts = spans_of(name_parts or {}, names)
    else:
        name_parts = None
    records = parse_parts(
        data,
        parts,
        language,
        whole_on_error=language in WHOLE_ON_PART_ERROR,
        whole_parse=whole_parse,
    )
    return None, name_parts, records


def with_found(tags: FileTags, found: PartsFound) -> FileTags:
    """`tags` with what `definitions_for` found."""
    whole, name_parts, part_records = found
    if whole is not None:
        return replace(tags, definitions=whole)
    return replace(
        tags,
        part_records={**(tags.part_records or {}), **part_records},
        name_parts=tags.name_parts if name_parts is None else name_parts,
    )


def scan_text(text: str, path: str, whole_parse: WholeParse = parse_whole) -> FileTags | Refusal:
    """The scan of an edited buffer's text, or why it is not mapped (too large, minified
    or generated; empty tags for a language without a grammar)."""
    data = text.encode(TEXT_ENCODING, ENCODE_ERRORS)
    if len(data) > MAX_MAP_FILE_BYTES:
        return "too_large"
    return scan_source(data, path, whole_parse)


def complete_text(
    tags: FileTags,
    text: str,
    path: str,
    names: Collection[str],
    whole_parse: WholeParse = parse_whole,
) -> FileTags:
    """`tags` of a buffer with the definitions the outline of `names` needs."""
    language = language_for_path(path)
    parts = tags.unparsed(names)
    if language is None or parts == []:
        return tags
    data = text.encode(TEXT_ENCODING, ENCODE_ERRORS)
    return with_found(tags, definitions_for(data, language, names, parts, whole_parse))


def scan_source(
    data: bytes, path: str, whole_parse: WholeParse = parse_whole
) -> FileTags | Refusal:
    """The scan of a source file's bytes, or why they are not mapped (minified or
    generated code, a language without a grammar: empty tags)."""
    language = language_for_path(path)
    if language is None:
        return EMPTY_TAGS
    refusal = content_refusal(path, data)
    return refusal if refusal is not None else scan(data, language, whole_parse)


def scan_files(paths: list[str]) -> list[FileTags | Refusal]:
    """Scans of files on disk, or why one is not mapped (`read_source`); runs in helper
    processes too."""
    results: list[FileTags | Refusal] = []
    for path in paths:
        if language_for_path(path) is None:
            results.append(EMPTY_TAGS)
            continue
        data = read_source(path)
        results.append(data if isinstance(data, str) else scan_source(data, path))
    return results


ParseRequest = tuple[str, list[str], list[PartSpan] | None]
"""A file to parse for the map: its path, the names to show, the parts to parse (None:
work them out from the names)."""


def parse_files(requests: list[ParseRequest]) -> list[PartsFound]:
    """`definitions_for` each file on disk (nothing for one that is not read now); runs
    in helper processes too."""
    results: list[PartsFound] = []
    for path, names, parts in requests:
        language = language_for_path(path)
        data = read_source(path) if language is not None else b""
        if language is None or isinstance(data, str) or not data:
            results.append(((), None, {}))
        else:
            results.append(definitions_for(data, language, names, parts))
    return results
