"""The reference graph of the repository map, as flat numpy arrays for a fast PageRank.

A file using identifier n gives each file defining n the same edge weight w (weighted
like Aider's map: long descriptive names weigh more, private names and names defined in
many files less, more uses count as their square root). Rank flows from a file to the
identifiers it uses, then to every file defining them.

The graph is two edge lists: uses (file → identifier, with weight) ordered by file then
identifier, and definitions (file, identifier) in the same order; a flow step is two
`numpy.bincount` sums over them. Files are ordered by path and identifiers by name, so
the same tags always give the same arrays, and `bincount` adds in array order, so the
same arrays always give the same floats. One file's uses can be replaced in place
(`update_file`): its slice of the use list is swapped, which gives exactly the arrays
(and so the floats) of a rebuild.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from numpy.typing import NDArray

from cairn.repomap.tags import FileTags

MENTIONED_WEIGHT = 10.0
DESCRIPTIVE_WEIGHT = 10.0
DESCRIPTIVE_MIN_CHARS = 8
PRIVATE_WEIGHT = 0.1
COMMON_WEIGHT = 0.1
COMMON_DEFINERS = 5
"""An identifier defined in more files than this is common (weight COMMON_WEIGHT)."""

Floats = NDArray[np.float64]
Ints = NDArray[np.intp]


def identifier_weights(names: list[str], definers: Ints) -> Floats:
    """The weight of a use of each name, before the mentioned-identifier factor
    (`definers`: how many files define each name): descriptive names (long, snake_case or
    camelCase) weigh more, private ones and those defined in many files less."""
    descriptive = np.fromiter(
        (
            len(name) >= DESCRIPTIVE_MIN_CHARS
            and ("_" in name.strip("_") or (name != name.lower() and name != name.upper()))
            for name in names
        ),
        dtype=bool,
        count=len(names),
    )
    private = np.fromiter((name[:1] == "_" for name in names), dtype=bool, count=len(names))
    weights = np.ones(len(names), dtype=np.float64)
    weights[descriptive] *= DESCRIPTIVE_WEIGHT
    weights[private] *= PRIVATE_WEIGHT
    weights[definers > COMMON_DEFINERS] *= COMMON_WEIGHT
    return weights


class RankGraph:
    """Files (`files`, by path), defined identifiers (`names`, by name), the definition
    pairs (`pair_file`/`pair_name`, by file then identifier) and the uses."""

    def __init__(self, tags: Mapping[str, FileTags]) -> None:
        self.files = sorted(tags)
        self._index = {rel: i for i, rel in enumerate(self.files)}
        self.stems = [_stem(rel) for rel in self.files]
        """Each file's name without its folder and extensions (`pkg/store.py` → `store`)."""
        self._defined_names = [tags[rel].names for rel in self.files]
        self.names = sorted({name for names in self._defined_names for name in names})
        self._name_id = {name: i for i, name in enumerate(self.names)}
        per_file = [sorted(map(self._name_id.__getitem__, names)) for names in self._defined_names]
        self.pair_file: Ints = np.repeat(
            np.arange(len(self.files), dtype=np.intp), [len(ids) for ids in per_file]
        )
        self.pair_name: Ints = np.fromiter(
            (nid for ids in per_file for nid in ids), dtype=np.intp, count=len(self.pair_file)
        )
        definers = np.bincount(self.pair_name, minlength=len(self.names))
        self._definers: Floats = definers.astype(np.float64)
        self._weights: Floats = identifier_weights(self.names, definers)
        name_id = self._name_id
        lengths: list[int] = []
        ids: list[int] = []
        counts: list[int] = []
        for rel in self.files:
            references = tags[rel].references
            used = references.keys() & name_id.keys()
            lengths.append(len(used))
            ids.extend(map(name_id.__getitem__, used))
            counts.extend(map(references.__getitem__, used))
        self._offsets: Ints = np.zeros(len(self.files) + 1, dtype=np.intp)
        np.cumsum(lengths, out=self._offsets[1:])
        use_file = np.repeat(np.arange(len(self.files), dtype=np.intp), lengths)
        use_name = np.array(ids, dtype=np.intp)
        order = np.lexsort((use_name, use_file))  # by file, then identifier
        self._use_file: Ints = use_file[order]
        self._use_name: Ints = use_name[order]
        self._use_weight: Floats = self._weights[self._use_name] * np.sqrt(
            np.array(counts, dtype=np.float64)[order]
        )
        self._labels: list[tuple[str, str]] | None = None

    def _uses_of(self, tags: FileTags) -> tuple[Ints, Floats]:
        """Ids of the defined identifiers `tags` uses (ascending) and their edge weights
        (the same floats as the constructor's)."""
        references = tags.references
        name_id = self._name_id
        used = references.keys() & name_id.keys()
        ids = np.array(list(map(name_id.__getitem__, used)), dtype=np.intp)
        counts = np.array(list(map(references.__getitem__, used)), dtype=np.float64)
        order = np.argsort(ids)
        ids = ids[order]
        return ids, self._weights[ids] * np.sqrt(counts[order])

    def update_file(self, rel: str, tags: FileTags) -> bool:
        """Replace one file's uses in place; False when the graph must be rebuilt instead
        (unknown file, or the names it defines changed)."""
        src = self._index.get(rel)
        if src is None or self._defined_names[src] != tags.names:
            return False
        ids, weights = self._uses_of(tags)
        start, end = int(self._offsets[src]), int(self._offsets[src + 1])
        self._use_name = np.concatenate((self._use_name[:start], ids, self._use_name[end:]))
        self._use_weight = np.concatenate(
            (self._use_weight[:start], weights, self._use_weight[end:])
        )
        self._use_file = np.concatenate(
            (self._use_file[:start], np.full(len(ids), src, dtype=np.intp), self._use_file[end:])
        )
        self._offsets[src + 1 :] += len(ids) - (end - start)
        return True

    def factors(self, mentioned: frozenset[str]) -> Floats:
        """Per identifier: MENTIONED_WEIGHT when mentioned, else 1."""
        factors = np.ones(len(self.names), dtype=np.float64)
        factors[self.ids_of(mentioned)] = MENTIONED_WEIGHT
        return factors

    def ids_of(self, names: frozenset[str]) -> Ints:
        """Ids of those of `names` some file defines, ascending."""
        return np.array(
            sorted(self._name_id[name] for name in names if name in self._name_id), dtype=np.intp
        )

    def definers_of(self, names: frozenset[str]) -> Ints:
        """Indexes of the files defining any of `names`, ascending."""
        chosen = np.isin(self.pair_name, self.ids_of(names))
        return np.unique(self.pair_file[chosen])

    def indexes_of(self, rels: frozenset[str]) -> list[int]:
        """Indexes of those of `rels` that are files of the graph, ascending."""
        return sorted(self._index[rel] for rel in rels if rel in self._index)

    def edge_weights(self, factors: Floats) -> Floats:
        """The weight of every use edge, times its identifier's factor."""
        return self._use_weight * factors[self._use_name]

    def inverse_totals(self, edge_weights: Floats) -> Floats:
        """1 / (total outgoing weight) per file, 0 for files without edges."""
        per_edge = edge_weights * self._definers[self._use_name]
        totals = np.bincount(self._use_file, weights=per_edge, minlength=len(self.files)).astype(
            np.float64, copy=False
        )
        inverse = np.zeros(len(self.files), dtype=np.float64)
        np.divide(1.0, totals, out=inverse, where=totals > 0.0)
        return inverse

    def flow(self, scaled: Floats, edge_weights: Floats) -> Floats:
        """Rank each identifier receives: the sum of scaled[file] * weight over its uses."""
        per_edge = scaled[self._use_file] * edge_weights
        sums = np.bincount(self._use_name, weights=per_edge, minlength=len(self.names))
        return sums.astype(np.float64, copy=False)  # (no edges: bincount gives integers)

    def inflow(self, flow: Floats) -> Floats:
        """Rank each file receives: the flow of every identifier it defines."""
        sums = np.bincount(self.pair_file, weights=flow[self.pair_name], minlength=len(self.files))
        return sums.astype(np.float64, copy=False)

    def pair_labels(self) -> list[tuple[str, str]]:
        """(path, identifier) of every definition pair, in pair order."""
        if self._labels is None:
            files, names = self.files, self.names
            self._labels = [
                (files[src], names[nid])
                for src, nid in zip(self.pair_file.tolist(), self.pair_name.tolist(), strict=True)
            ]
        return self._labels

    def uses(self) -> tuple[Ints, Ints, Floats]:
        """The use edges: (file, identifier, weight) arrays (for tests and inspection)."""
        return self._use_file, self._use_name, self._use_weight


def _stem(rel: str) -> str:
    name = rel.rsplit("/", 1)[-1]
    return name.split(".", 1)[0]


def _no_ints() -> Ints:
    return np.zeros(0, dtype=np.intp)


def _no_floats() -> Floats:
    return np.zeros(0, dtype=np.float64)
