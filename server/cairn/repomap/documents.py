"""A file's lexical document: the word counts BM25 sees for it (pure, no numpy: the scan's
helper processes count the words of what they scan).

The document is the words of its path parts (PATH_REPEAT each), of the names it defines
(DEFINED_REPEAT each) and of the identifiers it uses (each use counted, at most three),
split into snake/camel parts (`split_identifier`). The path's share is known from the path
alone; the rest (`tag_document`) from the file's tags, so a scan can count it where it
scans, and the two make the same document, in the same order, as one count
(`lexical_document`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from pathlib import PurePosixPath

from cairn.repomap.message_mentions import MIN_WORD, split_identifier

DEFINED_REPEAT = 2
"""A defined name's parts count this many times in a file's lexical document."""
PATH_REPEAT = 3
"""A path part counts this many times in a file's lexical document."""
USES_COUNTED = 3
"""The most uses of one identifier a document counts."""

Memo = dict[str, list[str]]
"""Identifiers' words already found."""


def tag_document(
    names: tuple[str, ...], references: Mapping[str, int], memo: Memo | None = None
) -> dict[str, int]:
    """The share of a file's document its tags give: defined names, then used ones."""
    words = _memoized(memo) if memo is not None else _words
    doc: dict[str, int] = {}
    get = doc.get
    for name in names:
        for word in words(name):
            doc[word] = get(word, 0) + DEFINED_REPEAT
    for name, uses in references.items():
        count = min(uses, USES_COUNTED)
        for word in words(name):
            doc[word] = get(word, 0) + count
    return doc


def with_path(rel: str, tags_share: Mapping[str, int]) -> Counter[str]:
    """The whole document of `rel`: its path's words first, then its tags' share."""
    doc: Counter[str] = Counter()
    get = doc.get
    stem = PurePosixPath(rel)
    for part in [*stem.parts[:-1], stem.stem]:
        for word in _words(part):
            doc[word] = get(word, 0) + PATH_REPEAT
    for word, count in tags_share.items():
        doc[word] = get(word, 0) + count
    return doc


def lexical_document(
    rel: str, names: tuple[str, ...], references: Mapping[str, int], memo: Memo | None = None
) -> Counter[str]:
    """The word counts BM25 sees for one file."""
    return with_path(rel, tag_document(names, references, memo))


def _words(name: str) -> list[str]:
    """The parts of an identifier a lexical document counts."""
    return [word for word in split_identifier(name) if len(word) >= MIN_WORD]


def _memoized(memo: Memo) -> Callable[[str], list[str]]:
    def words(name: str) -> list[str]:
        found = memo.get(name)
        if found is None:
            found = memo[name] = _words(name)
        return found

    return words
