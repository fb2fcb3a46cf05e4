"""The lexical side of the where-to-look ranking: what a file is made of, BM25 over it,
and how specific a defined name is (pure).

A file's lexical document is its path parts, the names it defines and the identifiers
it uses, split into snake/camel parts (`split_identifier`); `Lexicon` is built once
per set of facts and scores a message's words; `definition_idf` weights a defined name
by how few files define it.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from cairn.repomap.message_mentions import MIN_WORD, split_identifier

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
    identifiers, split into parts); built once per set of facts."""

    def __init__(self, facts: Mapping[str, FileFacts]) -> None:
        self.files = sorted(facts)
        self._docs: list[Counter[str]] = []
        frequency: Counter[str] = Counter()
        for rel in self.files:
            doc = lexical_document(rel, facts[rel])
            self._docs.append(doc)
            frequency.update(doc.keys())
        self._frequency = frequency
        lengths = [sum(d.values()) for d in self._docs]
        self._lengths = lengths
        self._average = (sum(lengths) / len(lengths)) if lengths else 0.0

    def scores(self, words: Sequence[str]) -> dict[str, tuple[float, tuple[str, ...]]]:
        """Each file with a positive score: (score, the query words it matched)."""
        terms = sorted(set(words))
        total = len(self.files)
        idf = {
            t: math.log(1.0 + (total - self._frequency[t] + 0.5) / (self._frequency[t] + 0.5))
            for t in terms
        }
        out: dict[str, tuple[float, tuple[str, ...]]] = {}
        for rel, doc, length in zip(self.files, self._docs, self._lengths, strict=True):
            norm = (
                BM25_K1 * (1.0 - BM25_B + BM25_B * length / self._average) if self._average else 0
            )
            score = 0.0
            matched: list[tuple[float, str]] = []
            for t in terms:
                tf = doc.get(t, 0)
                if tf:
                    part = idf[t] * tf * (BM25_K1 + 1.0) / (tf + norm)
                    score += part
                    matched.append((-part, t))
            if score > 0.0:
                out[rel] = (score, tuple(t for _, t in sorted(matched)))
        return out

    def files_holding(self, wanted: Sequence[frozenset[str]]) -> dict[str, list[int]]:
        """For each file whose lexical document holds every word of some set of `wanted`,
        the indexes of those sets (one pass over the files)."""
        words = frozenset().union(*wanted) if wanted else frozenset()
        out: dict[str, list[int]] = {}
        if not words:
            return out
        for rel, doc in zip(self.files, self._docs, strict=True):
            present = {w for w in words if w in doc}
            if present:
                held = [i for i, need in enumerate(wanted) if need <= present]
                if held:
                    out[rel] = held
        return out


def lexical_document(rel: str, facts: FileFacts) -> Counter[str]:
    """The word counts BM25 sees for one file."""
    doc: Counter[str] = Counter()
    stem = PurePosixPath(rel)
    for part in [*stem.parts[:-1], stem.stem]:
        for word in split_identifier(part):
            if len(word) >= MIN_WORD:
                doc[word] += PATH_REPEAT
    for name in facts.names:
        for word in split_identifier(name):
            if len(word) >= MIN_WORD:
                doc[word] += DEFINED_REPEAT
    for name, uses in facts.references.items():
        for word in split_identifier(name):
            if len(word) >= MIN_WORD:
                doc[word] += min(uses, 3)
    return doc
