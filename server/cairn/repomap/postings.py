"""The BM25 statistics of the files' lexical documents, kept incrementally (pure; numpy).

`Postings` holds a base — every file's word counts as two compressed sparse tables of
numpy arrays: by file (`f_off`, `f_term`, `f_tf`, so a file's share can be taken out)
and by word (`t_off`, `t_file`, `t_tf`, so a query reads only its words' postings) — plus
an overlay: the documents of files changed since the base was built, the base rows they
replace marked dropped, and the change of each word's document frequency. A change to
one file (`update`) costs that file's words; the base is rebuilt (`compact`) when the
overlay grows past a share of the files, and when it is stored (`arrays`).

Every statistic is an integer (document frequencies, lengths, their total, the file
count) and a file's score adds its words' parts in query-word order, so the scores are
the same floats whatever the history of updates, and the same as a fresh build's.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Callable, Iterator, Mapping, Sequence

import numpy as np
from numpy.typing import NDArray

Ints = NDArray[np.int64]
Document = Mapping[str, int]
"""A file's word counts."""
Scores = dict[str, tuple[float, tuple[str, ...]]]
"""Each file with a positive score: (score, its matched words, best part first)."""
ARRAY_NAMES = ("f_off", "f_term", "f_tf", "t_off", "t_file", "t_tf", "length", "df")
"""The arrays `arrays()` gives and `from_arrays` takes (all int64)."""
COMPACT_MIN = 512
COMPACT_SHARE = 0.25
"""The base is rebuilt when the overlay holds more than max(MIN, SHARE x files) files."""


def _empty() -> Ints:
    return np.zeros(0, dtype=np.int64)


class Postings:
    """Word statistics of a set of files (see the module docstring)."""

    def __init__(self, files: list[str], vocab: list[str], arrays: Mapping[str, Ints]) -> None:
        self._files = files
        self._vocab = vocab
        self._term_id: dict[str, int] | None = None
        self._file_id: dict[str, int] | None = None
        self._a = {name: arrays[name] for name in ARRAY_NAMES}
        self._dropped = np.zeros(len(files), dtype=bool)
        self._overlay: dict[str, Document] = {}
        self._df_delta: dict[str, int] = {}
        self._total = int(self._a["length"].sum())
        self._count = len(files)

    # -- building -------------------------------------------------------------------
    @classmethod
    def build(cls, docs: Mapping[str, Document]) -> Postings:
        """The statistics of these documents (file path → word counts)."""
        return cls.stream(sorted(docs), lambda rel: docs[rel])

    @classmethod
    def stream(cls, files: list[str], document: Callable[[str], Document]) -> Postings:
        """The statistics of `files` (sorted), each document made and dropped in turn: only
        the tables are held, never every document at once."""
        first_seen: dict[str, int] = {}
        terms, tfs = array("q"), array("q")
        f_off = np.zeros(len(files) + 1, dtype=np.int64)
        for index, rel in enumerate(files):
            doc = document(rel)
            terms.extend(first_seen.setdefault(word, len(first_seen)) for word in doc)
            tfs.extend(doc.values())
            f_off[index + 1] = len(terms)
        seen = list(first_seen)
        order = sorted(range(len(seen)), key=seen.__getitem__)
        renumber = np.zeros(len(seen), dtype=np.int64)
        renumber[order] = np.arange(len(seen), dtype=np.int64)
        f_term = renumber[np.frombuffer(terms, dtype=np.int64)] if terms else _empty()
        f_tf = np.frombuffer(tfs, dtype=np.int64).copy() if tfs else _empty()
        return cls.from_rows(files, [seen[i] for i in order], f_off, f_term, f_tf)

    @classmethod
    def from_rows(
        cls, files: list[str], vocab: list[str], f_off: Ints, f_term: Ints, f_tf: Ints
    ) -> Postings:
        """The statistics of the by-file table (the by-word table is derived from it)."""
        rows = np.repeat(np.arange(len(files), dtype=np.int64), np.diff(f_off))
        length = np.bincount(rows, weights=f_tf, minlength=len(files)).astype(np.int64)
        df = np.bincount(f_term, minlength=len(vocab)).astype(np.int64)
        order = np.lexsort((rows, f_term))  # by word, then file
        t_off = np.zeros(len(vocab) + 1, dtype=np.int64)
        np.cumsum(df, out=t_off[1:])
        arrays = {
            "f_off": f_off,
            "f_term": f_term,
            "f_tf": f_tf,
            "t_off": t_off,
            "t_file": rows[order],
            "t_tf": f_tf[order],
            "length": length,
            "df": df,
        }
        return cls(files, vocab, arrays)

    @classmethod
    def from_arrays(
        cls, files: list[str], vocab: list[str], arrays: Mapping[str, Ints]
    ) -> Postings:
        """Statistics stored by `arrays()` (checked: a bad table raises ValueError)."""
        _check(len(files), len(vocab), arrays)
        return cls(files, vocab, arrays)

    def arrays(self) -> tuple[list[str], list[str], dict[str, Ints]]:
        """(files, words, tables) of the statistics, the overlay folded into the base."""
        self.compact()
        return self._files, self._vocab, dict(self._a)

    # -- the current set ------------------------------------------------------------
    @property
    def files(self) -> list[str]:
        """The files, sorted."""
        if not self._overlay and not self._dropped.any():
            return list(self._files)
        kept = [rel for i, rel in enumerate(self._files) if not self._dropped[i]]
        return sorted({*kept, *self._overlay})

    def __len__(self) -> int:
        return self._count

    def _base_id(self, rel: str) -> int | None:
        if self._file_id is None:
            self._file_id = {rel: i for i, rel in enumerate(self._files)}
        return self._file_id.get(rel)

    def _word_id(self, word: str) -> int | None:
        if self._term_id is None:
            self._term_id = {w: i for i, w in enumerate(self._vocab)}
        return self._term_id.get(word)

    def document(self, rel: str) -> Document | None:
        """The word counts of one file (None: not one of the files)."""
        if rel in self._overlay:
            return self._overlay[rel]
        index = self._base_id(rel)
        if index is None or self._dropped[index]:
            return None
        start, end = int(self._a["f_off"][index]), int(self._a["f_off"][index + 1])
        vocab = self._vocab
        terms, tfs = self._a["f_term"][start:end].tolist(), self._a["f_tf"][start:end].tolist()
        return {vocab[t]: n for t, n in zip(terms, tfs, strict=True)}

    def documents(self) -> Iterator[tuple[str, Document]]:
        """Every file's word counts (overlay ones included)."""
        for rel in self.files:
            doc = self.document(rel)
            if doc is not None:
                yield rel, doc

    def _shift(self, doc: Document, sign: int) -> None:
        delta = self._df_delta
        for word in doc:
            value = delta.get(word, 0) + sign
            if value:
                delta[word] = value
            else:
                delta.pop(word, None)
        self._total += sign * sum(doc.values())
        self._count += sign

    def update(self, rel: str, doc: Document | None) -> None:
        """Replace one file's document (None: the file is gone)."""
        old = self.document(rel)
        if old is not None:
            self._shift(old, -1)
            self._overlay.pop(rel, None)
            index = self._base_id(rel)
            if index is not None:
                self._dropped[index] = True
        if doc is not None:
            self._overlay[rel] = doc
            self._shift(doc, 1)
        if len(self._overlay) > max(COMPACT_MIN, COMPACT_SHARE * len(self._files)):
            self.compact()

    def compact(self) -> None:
        """Fold the overlay into the base."""
        if self._overlay or self._dropped.any():
            other = Postings.build(dict(self.documents()))
            self.__dict__.update(other.__dict__)

    def holders(self, word: str) -> set[str]:
        """The files whose document holds `word` (overlay ones included)."""
        found: set[str] = set()
        index = self._word_id(word)
        if index is not None:
            start, end = int(self._a["t_off"][index]), int(self._a["t_off"][index + 1])
            files = self._a["t_file"][start:end]
            found.update(self._files[f] for f in files[~self._dropped[files]].tolist())
        found.update(rel for rel, doc in self._overlay.items() if doc.get(word))
        return found

    # -- scoring --------------------------------------------------------------------
    def frequency(self, word: str) -> int:
        """How many files hold `word`."""
        index = self._word_id(word)
        base = int(self._a["df"][index]) if index is not None else 0
        return base + self._df_delta.get(word, 0)

    def scores(self, terms: Sequence[str], k1: float, b: float) -> Scores:
        """BM25 of `terms` (sorted, distinct) for every file with a positive score."""
        total = self._count
        average = self._total / total if total else 0.0
        idf = {
            t: math.log(1.0 + (total - self.frequency(t) + 0.5) / (self.frequency(t) + 0.5))
            for t in terms
        }
        norm = (
            k1 * (1.0 - b + b * self._a["length"].astype(np.float64) / average)
            if average
            else np.zeros(len(self._files))
        )
        base = self._base_scores(terms, idf, norm, k1)
        extra = self._overlay_scores(terms, idf, average, k1, b)
        return {rel: base.get(rel) or extra[rel] for rel in sorted({*base, *extra})}

    def _base_scores(
        self, terms: Sequence[str], idf: Mapping[str, float], norm: NDArray[np.float64], k1: float
    ) -> Scores:
        score = np.zeros(len(self._files), dtype=np.float64)
        hit_file: list[Ints] = []
        hit_part: list[NDArray[np.float64]] = []
        hit_term: list[Ints] = []
        t_off, t_file, t_tf = self._a["t_off"], self._a["t_file"], self._a["t_tf"]
        for rank, t in enumerate(terms):
            index = self._word_id(t)
            if index is None:
                continue
            start, end = int(t_off[index]), int(t_off[index + 1])
            files = t_file[start:end]
            keep = ~self._dropped[files]
            files = files[keep]
            tf = t_tf[start:end][keep].astype(np.float64)
            part = idf[t] * tf * (k1 + 1.0) / (tf + norm[files])
            score[files] += part
            hit_file.append(files)
            hit_part.append(part)
            hit_term.append(np.full(len(files), rank, dtype=np.int64))
        if not hit_file:
            return {}
        files = np.concatenate(hit_file)
        parts = np.concatenate(hit_part)
        ranks = np.concatenate(hit_term)
        order = np.lexsort((ranks, -parts, files))
        hit_files: list[int] = files[order].tolist()
        hit_ranks: list[int] = ranks[order].tolist()
        matched: dict[int, list[str]] = {}
        for f, r in zip(hit_files, hit_ranks, strict=True):
            matched.setdefault(f, []).append(terms[r])
        values = score.tolist()
        return {
            self._files[f]: (values[f], tuple(words))
            for f, words in matched.items()
            if values[f] > 0.0
        }

    def _overlay_scores(
        self, terms: Sequence[str], idf: Mapping[str, float], average: float, k1: float, b: float
    ) -> Scores:
        out: Scores = {}
        for rel, doc in self._overlay.items():
            length = sum(doc.values())
            norm = k1 * (1.0 - b + b * length / average) if average else 0
            score = 0.0
            matched: list[tuple[float, str]] = []
            for t in terms:
                tf = doc.get(t, 0)
                if tf:
                    part = idf[t] * tf * (k1 + 1.0) / (tf + norm)
                    score += part
                    matched.append((-part, t))
            if score > 0.0:
                out[rel] = (score, tuple(t for _, t in sorted(matched)))
        return out


def _check(files: int, words: int, arrays: Mapping[str, Ints]) -> None:
    """Raise ValueError unless the tables fit `files` files and `words` words."""
    try:
        a = {name: arrays[name] for name in ARRAY_NAMES}
    except KeyError as missing:
        raise ValueError(f"lexical statistics lack {missing}") from None
    nnz = len(a["f_term"])
    shapes_ok = (
        len(a["f_off"]) == files + 1
        and len(a["t_off"]) == words + 1
        and len(a["length"]) == files
        and len(a["df"]) == words
        and len(a["f_tf"]) == len(a["t_file"]) == len(a["t_tf"]) == nnz
    )
    if (
        not shapes_ok
        or (nnz and int(a["f_off"][-1]) != nnz)
        or (nnz and int(a["t_off"][-1]) != nnz)
    ):
        raise ValueError("lexical statistics of the wrong shape")
    if nnz and not (
        0 <= int(a["f_term"].min()) <= int(a["f_term"].max()) < words
        and 0 <= int(a["t_file"].min()) <= int(a["t_file"].max()) < files
    ):
        raise ValueError("lexical statistics pointing outside their tables")
