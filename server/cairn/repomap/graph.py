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

from bisect import bisect_left
from collections.abc import Callable, Collection, Mapping
from typing import Any

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


GRAPH_ARRAYS = (
    "pair_file",
    "pair_name",
    "definers",
    "weights",
    "offsets",
    "use_file",
    "use_name",
    "use_weight",
)
"""The arrays `arrays()` gives and `from_arrays` takes."""


class RankGraph:
    """Files (`files`, by path), defined identifiers (`names`, by name), the definition
    pairs (`pair_file`/`pair_name`, by file then identifier) and the uses."""

    def __init__(
        self,
        tags: Mapping[str, FileTags],
        names_of: Callable[[str], tuple[str, ...] | None] | None = None,
    ) -> None:
        """The graph of these files' tags (`names_of`: each file's names, when they are
        cheaper to read than its tags)."""
        files = sorted(tags)
        if names_of is None:
            defined = [tags[rel].names for rel in files]
        else:
            defined = [names_of(rel) or () for rel in files]
        names = sorted({name for names in defined for name in names})
        name_id = {name: i for i, name in enumerate(names)}
        per_file = [sorted(map(name_id.__getitem__, names)) for names in defined]
        pair_file = np.repeat(np.arange(len(files), dtype=np.intp), [len(ids) for ids in per_file])
        pair_name = np.fromiter(
            (nid for ids in per_file for nid in ids), dtype=np.intp, count=len(pair_file)
        )
        definers = np.bincount(pair_name, minlength=len(names))
        weights = identifier_weights(names, definers)
        lengths: list[int] = []
        ids: list[int] = []
        counts: list[int] = []
        for rel in files:
            references = tags[rel].references
            used = references.keys() & name_id.keys()
            lengths.append(len(used))
            ids.extend(map(name_id.__getitem__, used))
            counts.extend(map(references.__getitem__, used))
        offsets = np.zeros(len(files) + 1, dtype=np.intp)
        np.cumsum(lengths, out=offsets[1:])
        use_file = np.repeat(np.arange(len(files), dtype=np.intp), lengths)
        use_name = np.array(ids, dtype=np.intp)
        order = np.lexsort((use_name, use_file))  # by file, then identifier
        arrays = {
            "pair_file": pair_file,
            "pair_name": pair_name,
            "definers": definers.astype(np.float64),
            "weights": weights,
            "offsets": offsets,
            "use_file": use_file[order],
            "use_name": use_name[order],
            "use_weight": weights[use_name[order]] * np.sqrt(np.array(counts, np.float64)[order]),
        }
        self._setup(files, names, arrays)
        self._name_id = name_id

    def _setup(self, files: list[str], names: list[str], arrays: Mapping[str, Any]) -> None:
        self.files = files
        self._index = {rel: i for i, rel in enumerate(files)}
        self.stems = [_stem(rel) for rel in files]
        """Each file's name without its folder and extensions (`pkg/store.py` → `store`)."""
        self.names = names
        self._name_id: dict[str, int] | None = None
        self.pair_file: Ints = np.asarray(arrays["pair_file"], dtype=np.intp)
        self.pair_name: Ints = np.asarray(arrays["pair_name"], dtype=np.intp)
        self._pair_offsets: Ints = np.searchsorted(
            self.pair_file, np.arange(len(files) + 1, dtype=np.intp)
        )
        self._definers: Floats = np.asarray(arrays["definers"], dtype=np.float64)
        self._weights: Floats = np.asarray(arrays["weights"], dtype=np.float64)
        self._offsets: Ints = np.array(arrays["offsets"], dtype=np.intp)  # a copy: patched
        self._use_file: Ints = np.asarray(arrays["use_file"], dtype=np.intp)
        self._use_name: Ints = np.asarray(arrays["use_name"], dtype=np.intp)
        self._use_weight: Floats = np.asarray(arrays["use_weight"], dtype=np.float64)

    @classmethod
    def from_arrays(
        cls, files: list[str], names: list[str], arrays: Mapping[str, Any]
    ) -> RankGraph:
        """A graph stored by `arrays()` (checked: arrays that do not fit raise ValueError)."""
        _check(len(files), len(names), arrays)
        graph = cls.__new__(cls)
        graph._setup(files, names, arrays)
        return graph

    def arrays(self) -> dict[str, Any]:
        """The graph's arrays (with `files` and `names`, all it is made of)."""
        return {
            "pair_file": self.pair_file,
            "pair_name": self.pair_name,
            "definers": self._definers,
            "weights": self._weights,
            "offsets": self._offsets,
            "use_file": self._use_file,
            "use_name": self._use_name,
            "use_weight": self._use_weight,
        }

    def _id(self, name: str) -> int | None:
        """The id of a defined identifier (None: no file defines it)."""
        if self._name_id is not None:
            return self._name_id.get(name)
        at = bisect_left(self.names, name)
        return at if at < len(self.names) and self.names[at] == name else None

    def _uses_of(self, tags: FileTags) -> tuple[Ints, Floats]:
        """Ids of the defined identifiers `tags` uses (ascending) and their edge weights
        (the same floats as the constructor's)."""
        references = tags.references
        found = [
            (nid, count)
            for name, count in references.items()
            if (nid := self._id(name)) is not None
        ]
        ids = np.array([nid for nid, _ in found], dtype=np.intp)
        counts = np.array([count for _, count in found], dtype=np.float64)
        order = np.argsort(ids)
        ids = ids[order]
        return ids, self._weights[ids] * np.sqrt(counts[order])

    def update_file(self, rel: str, tags: FileTags) -> bool:
        """Replace one file's uses in place; False when the graph must be rebuilt instead
        (unknown file, or the names it defines changed)."""
        src = self._index.get(rel)
        if src is None or not self._defines_same(src, tags.names):
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

    def _defines_same(self, src: int, names: tuple[str, ...]) -> bool:
        """True when file `src` defines exactly `names` (the graph depends on the set)."""
        ids = {self._id(name) for name in names}
        if None in ids:
            return False
        start, end = int(self._pair_offsets[src]), int(self._pair_offsets[src + 1])
        return sorted(ids) == self.pair_name[start:end].tolist()  # type: ignore[type-var]

    def factors(self, mentioned: frozenset[str]) -> Floats:
        """Per identifier: MENTIONED_WEIGHT when mentioned, else 1."""
        factors = np.ones(len(self.names), dtype=np.float64)
        factors[self.ids_of(mentioned)] = MENTIONED_WEIGHT
        return factors

    def ids_of(self, names: frozenset[str]) -> Ints:
        """Ids of those of `names` some file defines, ascending."""
        ids = {self._id(name) for name in names}
        return np.array(sorted(i for i in ids if i is not None), dtype=np.intp)

    def definers_of(self, names: frozenset[str]) -> Ints:
        """Indexes of the files defining any of `names`, ascending."""
        chosen = np.isin(self.pair_name, self.ids_of(names))
        return np.unique(self.pair_file[chosen])

    def definers_by_name(self, names: Collection[str]) -> dict[str, list[str]]:
        """For those of `names` some file defines, the files defining each, by path (one
        pass over the definition pairs)."""
        ids = self.ids_of(frozenset(names))
        if len(ids) == 0:
            return {}
        chosen = np.flatnonzero(np.isin(self.pair_name, ids))
        found: dict[str, list[str]] = {}
        files, defined = self.pair_file[chosen].tolist(), self.pair_name[chosen].tolist()
        for file, name in zip(files, defined, strict=True):
            found.setdefault(self.names[name], []).append(self.files[file])
        return found

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

    def pair_labels(self, pairs: Ints | None = None) -> list[tuple[str, str]]:
        """(path, identifier) of these definition pairs (by index; None: all, in order)."""
        files, names = self.pair_file, self.pair_name
        if pairs is not None:
            files, names = files[pairs], names[pairs]
        return list(
            zip(
                map(self.files.__getitem__, files.tolist()),
                map(self.names.__getitem__, names.tolist()),
                strict=True,
            )
        )

    def uses(self) -> tuple[Ints, Ints, Floats]:
        """The use edges: (file, identifier, weight) arrays (for tests and inspection)."""
        return self._use_file, self._use_name, self._use_weight


def _stem(rel: str) -> str:
    name = rel.rsplit("/", 1)[-1]
    return name.split(".", 1)[0]


def _check(files: int, names: int, arrays: Mapping[str, Any]) -> None:
    """Raise ValueError unless the arrays make a graph of `files` files and `names` names."""
    try:
        a = {key: np.asarray(arrays[key]) for key in GRAPH_ARRAYS}
    except KeyError as missing:
        raise ValueError(f"the reference graph lacks {missing}") from None
    pairs, uses = len(a["pair_file"]), len(a["use_file"])
    fits = (
        len(a["pair_name"]) == pairs
        and len(a["definers"]) == len(a["weights"]) == names
        and len(a["offsets"]) == files + 1
        and len(a["use_name"]) == len(a["use_weight"]) == uses
        and (files == 0 or int(a["offsets"][-1]) == uses)
        and bool(np.all(np.diff(a["offsets"]) >= 0))
        and bool(np.all(np.diff(a["pair_file"]) >= 0))
        and bool(np.isfinite(a["use_weight"]).all() and np.isfinite(a["weights"]).all())
    )
    for key, bound in (
        ("pair_file", files),
        ("use_file", files),
        ("pair_name", names),
        ("use_name", names),
    ):
        values = a[key]
        fits = fits and (len(values) == 0 or (int(values.min()) >= 0 and int(values.max()) < bound))
    if not fits:
        raise ValueError("the stored reference graph does not fit its files and names")
