"""The lexical side of the where-to-look ranking: what a file is made of, BM25 over it,
and how specific a defined name is (pure).

A file's lexical document is its path parts, the names it defines and the identifiers
it uses, split into snake/camel parts (`split_identifier`); `Lexicon` scores a message's
words over those documents, its statistics (`repomap_postings`) updated one file at a
time; `definition_idf` weights a defined name by how few files define it.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from cairn.repomap.message_mentions import MIN_WORD, split_identifier
from cairn.repomap.postings import Postings

BM25_K1 = 1.2
BM25_B = 0.75
DEFINED_REPEAT = 2
"""A defined name's parts count this many times in a file's lexical document."""
PATH_REPEAT = 3
"""A path part counts this many times in a file's lexical document."""


def definition_idf(definers: Mapping[str, int], total_files: int) -> Callable[[str], float]:
    """The specificity of a defined name: log(1 + files / files defining it); 0 for a
    name nothing defines."""

    def idf(name: str) -> float:
        count = definers.get(name, 0)
        return math.log(1.0 + total_files / count) if count else 0.0

    return idf


@dataclass(frozen=True)
class FileFacts:
    """What the ranking knows of one file (from the map's tag scan)."""

    names: tuple[str, ...]
    """The names it defines."""
    references: Mapping[str, int]
    """The identifiers it uses, with their counts."""


class Lexicon:
    """BM25 over the files' lexical documents (path parts, defined names, used
    identifiers, split into parts), kept up to date one file at a time (`update`); the
    statistics live in `repomap_postings`."""

    def __init__(self, facts: Mapping[str, FileFacts]) -> None:
        memo: dict[str, list[str]] = {}
        self._postings = Postings.stream(
            sorted(facts), lambda rel: lexical_document(rel, facts[rel], memo)
        )

    @classmethod
    def of(cls, postings: Postings) -> Lexicon:
        """A lexicon over statistics built or loaded elsewhere (the map's stored index)."""
        lexicon = cls.__new__(cls)
        lexicon._postings = postings
        return lexicon

    @property
    def postings(self) -> Postings:
        return self._postings

    @property
    def files(self) -> list[str]:
        """The files, sorted."""
        return self._postings.files

    def update(self, rel: str, facts: FileFacts | None) -> None:
        """One file changed (None: it is gone): only its share of the statistics moves."""
        self._postings.update(rel, None if facts is None else lexical_document(rel, facts))

    def scores(self, words: Sequence[str]) -> dict[str, tuple[float, tuple[str, ...]]]:
        """Each file with a positive score: (score, the query words it matched)."""
        return self._postings.scores(sorted(set(words)), BM25_K1, BM25_B)

    def files_holding(self, wanted: Sequence[frozenset[str]]) -> dict[str, list[int]]:
        """For each file whose lexical document holds every word of some set of `wanted`,
        the indexes of those sets (one posting list read per word)."""
        holders = {w: self._postings.holders(w) for w in frozenset().union(*wanted)}
        out: dict[str, list[int]] = {}
        for i, need in enumerate(wanted):
            if not need:
                continue
            files = set.intersection(*(holders[w] for w in need))
            for rel in files:
                out.setdefault(rel, []).append(i)
        return {rel: sorted(held) for rel, held in sorted(out.items())}


def lexical_document(
    rel: str, facts: FileFacts, memo: dict[str, list[str]] | None = None
) -> Counter[str]:
    """The word counts BM25 sees for one file (`memo`: identifiers' words already found)."""
    words = _memoized(memo) if memo is not None else _words
    doc: Counter[str] = Counter()
    get = doc.get
    stem = PurePosixPath(rel)
    for part in [*stem.parts[:-1], stem.stem]:
        for word in _words(part):
            doc[word] = get(word, 0) + PATH_REPEAT
    for name in facts.names:
        for word in words(name):
            doc[word] = get(word, 0) + DEFINED_REPEAT
    for name, uses in facts.references.items():
        count = min(uses, 3)
        for word in words(name):
            doc[word] = get(word, 0) + count
    return doc


def _words(name: str) -> list[str]:
    """The parts of an identifier a lexical document counts."""
    return [word for word in split_identifier(name) if len(word) >= MIN_WORD]


def _memoized(memo: dict[str, list[str]]) -> Callable[[str], list[str]]:
    def words(name: str) -> list[str]:
        found = memo.get(name)
        if found is None:
            found = memo[name] = _words(name)
        return found

    return words
