"""The lexical side of the where-to-look ranking: what a file is made of, BM25 over it,
and how specific a defined name is (pure).

A file's lexical document is its path parts, the names it defines and the identifiers
it uses, split into snake/camel parts (`repomap_documents`); `Lexicon` scores a message's
words over those documents, its statistics (`repomap_postings`) updated one file at a
time; `definition_idf` weights a defined name by how few files define it.
"""

from __future__ import annotations

import marshal
import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from cairn.repomap import documents
from cairn.repomap.documents import Memo, with_path
from cairn.repomap.postings import Postings

BM25_K1 = 1.2
BM25_B = 0.75


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

    def __init__(
        self, facts: Mapping[str, FileFacts], counted: Mapping[str, bytes] | None = None
    ) -> None:
        """BM25 over `facts`; `counted`: the tags' share of some files' documents, counted
        where they were scanned (`marshal` bytes of `documents.tag_document`), which spares
        reading those files' tags here."""
        memo: Memo = {}
        known = counted or {}

        def document(rel: str) -> Counter[str]:
            share = known.get(rel)
            if share is None:
                return lexical_document(rel, facts[rel], memo)
            return with_path(rel, marshal.loads(share))

        self._postings = Postings.stream(sorted(facts), document)

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


def lexical_document(rel: str, facts: FileFacts, memo: Memo | None = None) -> Counter[str]:
    """The word counts BM25 sees for one file (`memo`: identifiers' words already found)."""
    return documents.lexical_document(rel, facts.names, facts.references, memo)
