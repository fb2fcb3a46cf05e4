"""What quoted text and pasted code in a message name: phrases, imports, qualified names.

Pure and linear-time on any text (each pattern is tried once per line or per match, with
bounded repetitions):
- `quoted_phrases`: error messages (`ValueError: invalid literal …`, `ERROR: …`) and
  text in quotes or backquotes of at least `MIN_PHRASE_WORDS` words — the file that
  raises an error or prints a warning usually holds its words as one string;
- `imports`: `from pkg.sub import A, B` and `import pkg.sub` in pasted code, as
  (module, names);
- `qualified_names`: `Qualifier.name` pairs of the message's dotted names and of its
  imports (`pkg.sub.A`, `Parser._split_header`, `attr.evolve`), each naming the files
  that define `name` next to `Qualifier` (see `cairn.repomap.where_parts`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

MIN_PHRASE_WORDS = 3
"""A quoted text or error message shorter than this (in words) is no phrase."""
MAX_PHRASE_WORDS = 24
"""Words of a phrase kept (a pasted paragraph in quotes is not one message)."""
PHRASE_WINDOW = 4
"""Consecutive words of a phrase looked for together in a file (a format string splits a
message at its placeholders: `timeout of {ms}ms exceeded`)."""
MAX_PHRASES = 12
"""Phrases taken from one message (the first ones)."""

_ERROR_LINE = re.compile(
    r"^[ \t>|]{0,20}(?:E {1,8})?"
    r"(?:[\w.]{0,80}(?:Error|Exception|Warning|Failure)|ERROR|WARNING|FATAL|error|warning)"
    r"(?:\[[\w-]{1,40}\])?: +(?P<text>[^\n]{1,400})",
    re.MULTILINE,
)
_QUOTED = re.compile(r"\"([^\"\n]{1,300})\"|'([^'\n]{1,300})'|(?<!`)`([^`\n]{1,300})`(?!`)")
_PHRASE_WORD = re.compile(r"[A-Za-z]+(?:'[a-z]+)?")
_CODE_MARKS = re.compile(r"[=;{}]|\(.*\(")
"""Quoted text with these reads as code, not as a message."""
_FROM_IMPORT = re.compile(
    r"^[ \t>]*from[ \t]+(?P<module>[A-Za-z_][\w.]{0,200})[ \t]+import[ \t]+\(?"
    r"(?P<names>[\w \t,]{1,400})",
    re.MULTILINE,
)
_IMPORT = re.compile(r"^[ \t>]*import[ \t]+(?P<modules>[A-Za-z_][\w., \t]{0,300})$", re.MULTILINE)
_AS = re.compile(r"\s+as\s+\w+")


@dataclass(frozen=True)
class Import:
    """One import statement of pasted code: the module and the names taken from it."""

    module: str
    names: tuple[str, ...]


def quoted_phrases(text: str) -> list[tuple[str, ...]]:
    """The message's error messages and quoted texts as lower-cased word tuples (at least
    `MIN_PHRASE_WORDS` words, at most `MAX_PHRASE_WORDS`), first seen first, no repeats."""
    found: dict[tuple[str, ...], None] = {}
    for raw in _phrase_texts(text):
        words = tuple(w.lower() for w in _PHRASE_WORD.findall(raw))[:MAX_PHRASE_WORDS]
        if len(words) >= MIN_PHRASE_WORDS:
            found.setdefault(words, None)
        if len(found) >= MAX_PHRASES:
            break
    return list(found)


def _phrase_texts(text: str) -> Iterator[str]:
    for match in _ERROR_LINE.finditer(text):
        yield match["text"]
    for match in _QUOTED.finditer(text):
        quoted = match.group(1) or match.group(2) or match.group(3) or ""
        if " " in quoted.strip() and not _CODE_MARKS.search(quoted):
            yield quoted


def phrase_windows(words: tuple[str, ...]) -> list[tuple[str, ...]]:
    """The runs of `PHRASE_WINDOW` consecutive words of a phrase (the phrase itself when
    shorter)."""
    if len(words) <= PHRASE_WINDOW:
        return [words]
    return [words[i : i + PHRASE_WINDOW] for i in range(len(words) - PHRASE_WINDOW + 1)]


def phrase_pattern(window: tuple[str, ...]) -> re.Pattern[str]:
    """A pattern finding the words of `window` in a row, whatever separates them (spaces,
    a line break inside a string, a format placeholder's braces), ignoring case."""
    return re.compile(
        r"\b" + r"[^A-Za-z]{1,12}".join(re.escape(w) for w in window) + r"\b", re.IGNORECASE
    )


def imports(text: str) -> list[Import]:
    """The import statements of pasted Python code in a message, in order."""
    out: list[Import] = []
    for match in _FROM_IMPORT.finditer(text):
        names = tuple(
            n for n in (_AS.sub("", part).strip() for part in match["names"].split(",")) if n
        )
        if names and all(n.isidentifier() or n == "*" for n in names):
            out.append(Import(match["module"], tuple(n for n in names if n != "*")))
    for match in _IMPORT.finditer(text):
        for part in match["modules"].split(","):
            module = _AS.sub("", part).strip()
            if module and all(p.isidentifier() for p in module.split(".")):
                out.append(Import(module, ()))
    return out


def qualified_names(dotted: tuple[str, ...], found_imports: list[Import]) -> list[tuple[str, str]]:
    """(qualifier, name) pairs: each dotted name's last two parts and its module path with
    its last part (`pkg.mod.Class.method` → (`Class`, `method`), (`pkg.mod.Class`,
    `method`)); each imported name with its module (`from pkg.mod import A` → (`pkg.mod`,
    `A`)). Dunder names are left out (`__init__` qualifies nothing)."""
    pairs: dict[tuple[str, str], None] = {}
    for name in dotted:
        parts = name.split(".")
        if len(parts) >= 2 and not parts[-1].startswith("__"):
            pairs.setdefault((parts[-2], parts[-1]), None)
            if len(parts) > 2:
                pairs.setdefault((".".join(parts[:-1]), parts[-1]), None)
    for found in found_imports:
        for imported in found.names:
            if not imported.startswith("__"):
                pairs.setdefault((found.module, imported), None)
    return list(pairs)
