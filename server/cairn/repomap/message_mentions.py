"""What a message names: paths and traceback frames, dotted names, identifiers and words.

Pure and linear-time on any text (a pasted blob is scanned once): `mentions_in`
finds workspace paths and path suffixes (`_PATH`, tried only inside short runs
of path characters), frames of pasted tracebacks (Python `File "…", line N`,
pytest and compiler `pkg/mod.py:206`, Node `at fn (src/x.ts:12:5)`), dotted
names and identifiers; `split_identifier` and `query_words` give the lexical
words; `resolve_path` and `module_paths` turn a mention into workspace files.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass

from cairn.code.languages import language_for_path
from cairn.repomap.message_template import without_boilerplate

MIN_WORD = 3
"""Shorter word parts are ignored by the lexical score."""
MIN_IDENTIFIER = 3
"""Shorter identifiers never count as mentioned."""


_PY_FRAME = re.compile(r'File "(?P<path>[^"\n]+)", line (?P<line>\d+)')
_PATH = re.compile(
    r"(?P<path>(?:[A-Za-z]:)?[\w.@~+-]*(?:[/\\][\w.@+-]+)*\.[A-Za-z][A-Za-z0-9]{0,4})"
    r"(?:(?:[:(]|#L)(?P<line>\d+))?"
)
# `_PATH` is tried only inside one run of path characters at a time, and only in runs
# that hold an extension and are no longer than a path can be: tried over a whole
# paste, it rescans a long run from every position (a 1 MB blob took minutes).
_PATH_RUN = re.compile(r"(?:[A-Za-z]:)?[\w.@~+/\\-]+(?:(?:[:(]|#L)\d+)?")
_EXTENSION = re.compile(r"\.[A-Za-z]")
MAX_PATH_CHARS = 1024
"""A run of path characters longer than this (a blob, a token) names no file."""
_DOTTED = re.compile(r"\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\b")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_BACKQUOTED = re.compile(r"(?<!`)`([^`\n]{1,80})`(?!`)")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z]|\d|\b)|[A-Z]?[a-z]+|[A-Z]+|\d+")
STOP_WORDS = frozenset(
    [
        "the",
        "and",
        "for",
        "not",
        "but",
        "with",
        "this",
        "that",
        "from",
        "have",
        "has",
        "was",
        "were",
        "are",
        "you",
        "your",
        "our",
        "its",
        "can",
        "could",
        "should",
        "would",
        "will",
        "when",
        "then",
        "than",
        "there",
        "here",
        "what",
        "which",
        "who",
        "how",
        "why",
        "all",
        "any",
        "some",
        "one",
        "two",
        "use",
        "used",
        "using",
        "get",
        "got",
        "set",
        "also",
        "just",
        "like",
        "into",
        "out",
        "about",
        "after",
        "before",
        "does",
        "did",
        "done",
        "been",
        "being",
        "only",
        "same",
        "other",
        "more",
        "most",
        "very",
        "such",
        "each",
        "them",
        "they",
        "their",
        "these",
        "those",
        "error",
        "issue",
        "bug",
        "expected",
        "behaviour",
        "behavior",
        "version",
        "python",
        "def",
        "return",
        "none",
        "true",
        "false",
        "self",
        "cls",
        "class",
        "import",
        "file",
        "line",
    ]
)


@dataclass(frozen=True)
class PathMention:
    """A path (or path suffix) named in the message, with the line it names if any."""

    path: str
    line: int | None
    frame: bool
    """Part of a traceback or log line (a line number was given)."""


@dataclass(frozen=True)
class Mentions:
    """What a message names: paths, dotted names and identifiers."""

    paths: tuple[PathMention, ...]
    dotted: tuple[str, ...]
    identifiers: frozenset[str]
    code: frozenset[str]
    """The identifiers that read as code: in backquotes, dotted, snake_case, camelCase or
    with digits (`L060`); the others may be plain words (`rules`, `fix`)."""
    words: tuple[str, ...]
    """The message's lexical words (split, lower-cased, stop words out), in order."""


def _normal(path: str) -> str:
    return path.replace("\\", "/").strip("./") if path else path


def _paths_in(text: str) -> Iterator[re.Match[str]]:
    """`_PATH`'s matches in a text, found in linear time: one scan for runs of path
    characters, `_PATH` searched only inside the short runs that hold an extension."""
    for run in _PATH_RUN.finditer(text):
        start, end = run.span()
        if end - start > MAX_PATH_CHARS or not _EXTENSION.search(text, start, end):
            continue
        yield from _PATH.finditer(text, start, end)


def mentions_in(text: str) -> Mentions:
    """The paths, traceback frames, dotted names and identifiers of a message."""
    seen: set[tuple[str, int | None]] = set()
    paths: list[PathMention] = []
    for match in _PY_FRAME.finditer(text):
        key = (_normal(match["path"]), int(match["line"]))
        if key not in seen:
            seen.add(key)
            paths.append(PathMention(key[0], key[1], True))
    for match in _paths_in(text):
        raw = _normal(match["path"])
        if language_for_path(raw) is None:
            continue
        line = int(match["line"]) if match["line"] else None
        key = (raw, line)
        if key in seen or (line is None and any(p.path == raw for p in paths)):
            continue
        seen.add(key)
        paths.append(PathMention(raw, line, line is not None))
    text = without_boilerplate(text)  # paths and frames are taken from the whole text
    dotted = tuple(dict.fromkeys(m.group(0) for m in _DOTTED.finditer(text)))
    identifiers = {w for w in _WORD.findall(text) if len(w) >= MIN_IDENTIFIER}
    code = {w for w in identifiers if looks_like_code(w)}
    for quoted in _BACKQUOTED.findall(text):
        code.update(w for w in _WORD.findall(quoted) if len(w) >= MIN_IDENTIFIER)
    for name in dotted:
        parts = [part for part in name.split(".") if len(part) >= MIN_IDENTIFIER]
        identifiers.update(parts)
        code.update(parts)
    return Mentions(
        tuple(paths),
        dotted,
        frozenset(identifiers),
        frozenset(code & identifiers),
        tuple(query_words(text)),
    )


def looks_like_code(word: str) -> bool:
    """Whether a word reads as an identifier rather than prose: snake_case, camelCase or
    PascalCase with an inner capital, or letters with digits."""
    inner = word.strip("_")
    if "_" in inner or (word.startswith("_") and inner):
        return True
    if any(c.isupper() for c in inner[1:]) and any(c.islower() for c in inner):
        return True
    return any(c.isdigit() for c in inner) and any(c.isalpha() for c in inner)


def split_identifier(name: str) -> list[str]:
    """The lower-cased parts of an identifier: snake_case and camelCase split, digits apart
    (`HTTPServer_error2` → http, server, error, 2)."""
    parts: list[str] = []
    for chunk in name.split("_"):
        parts.extend(p.lower() for p in _CAMEL.findall(chunk))
    return parts


def query_words(text: str) -> list[str]:
    """The lexical words of a text: identifier parts, lower-cased, without stop words."""
    out: list[str] = []
    for word in _WORD.findall(text):
        for part in split_identifier(word):
            if len(part) >= MIN_WORD and part not in STOP_WORDS and not part.isdigit():
                out.append(part)
    return out


def resolve_path(mention: str, files: Collection[str]) -> list[str]:
    """The workspace files a mentioned path names: those sharing its longest path suffix
    (at least the file name), best first by path. `…/site-packages/pkg/io/card.py` names
    `src/pkg/io/card.py`."""
    return resolve_path_depth(mention, files)[0]


def resolve_path_depth(mention: str, files: Collection[str]) -> tuple[list[str], int]:
    """`resolve_path`'s files and how many trailing path parts they share with the
    mention (1: the file name alone)."""
    parts = [p for p in mention.split("/") if p and p not in (".", "..")]
    if not parts:
        return [], 0
    best: list[str] = []
    best_len = 0
    for rel in files:
        rel_parts = rel.split("/")
        common = 0
        while (
            common < len(parts)
            and common < len(rel_parts)
            and parts[-1 - common] == rel_parts[-1 - common]
        ):
            common += 1
        if common == 0:
            continue
        if common > best_len:
            best, best_len = [rel], common
        elif common == best_len:
            best.append(rel)
    return sorted(best), best_len


def module_paths(dotted: str) -> list[str]:
    """Path suffixes a dotted name may name: `a.b.C.m` → a/b/C/m.py, a/b/C.py, a/b.py,
    and the same as packages (`…/__init__.py`); two parts at least."""
    parts = dotted.split(".")
    out: list[str] = []
    for end in range(len(parts), 1, -1):
        stem = "/".join(parts[:end])
        out += [stem + ".py", stem + "/__init__.py"]
    return out
