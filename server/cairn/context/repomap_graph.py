"""The reference graph of the repository map, in flat lists for a fast pure-Python PageRank.

A file using identifier n gives each file defining n the same edge weight w (weighted
like Aider's map: long descriptive names weigh more, private names and names defined in
many files less, more uses count as their square root). Rank flows from a file to the
identifiers it uses, then to every file defining them.

Identifiers defined by exactly the same files are merged into one group for the PageRank
iterations (a file's rank reaches the group once, with the summed weight), which makes an
iteration several times cheaper; the per-identifier flow is computed once, for scoring.
Everything is ordered (files by path, identifiers by name, groups by first identifier),
so the same tags always give the same floats. One file's uses can be replaced in place
(`update_file`) with exactly the floats a rebuild would give.

The sums run mostly in C: a row used by several files gathers its values with one
`itemgetter` call, and rows are arranged once (`Layout`) so that an iteration is a few
`map` passes plus one `sum` per such row; after `update_file` only the touched rows of
the arrangement are patched (additions happen in the same order, so the floats are the
same as before the arrangement existed).
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from operator import itemgetter, mul

from cairn.context.repomap_tags import FileTags

MENTIONED_WEIGHT = 10.0
DESCRIPTIVE_WEIGHT = 10.0
DESCRIPTIVE_MIN_CHARS = 8
PRIVATE_WEIGHT = 0.1
COMMON_WEIGHT = 0.1
COMMON_DEFINERS = 5
"""An identifier defined in more files than this is common (weight COMMON_WEIGHT)."""

Gather = Callable[[list[float]], tuple[float, ...]]
"""An `itemgetter` of a row's files: their values in one C call."""


@dataclass(frozen=True, slots=True)
class Layout:
    """The rows of a graph table arranged for sums done mostly in C.

    Rows used by one file (`single_src`, `single_weight`), rows used by several (an
    `itemgetter` of their files and their weights), and for every row its position in
    the list [single sums..., multiple sums..., 0.0] (rows nobody uses point at the 0.0).
    """

    single_src: list[int]
    single_weight: list[float]
    multiple: list[tuple[Gather, list[float]]]
    positions: list[int]


def identifier_weight(name: str, definers: int) -> float:
    """The weight of a use of `name` (before the mentioned-identifier factor)."""
    weight = 1.0
    is_descriptive = len(name) >= DESCRIPTIVE_MIN_CHARS and (
        "_" in name.strip("_") or (name != name.lower() and name != name.upper())
    )
    if is_descriptive:
        weight *= DESCRIPTIVE_WEIGHT
    if name.startswith("_"):
        weight *= PRIVATE_WEIGHT
    if definers > COMMON_DEFINERS:
        weight *= COMMON_WEIGHT
    return weight


def _gather(srcs: list[int]) -> Gather | None:
    """One C call collecting the values of several files (None for fewer than two)."""
    return itemgetter(*srcs) if len(srcs) > 1 else None


def _layout(
    users: list[list[int]], weights: list[list[float]], gathers: list[Gather | None]
) -> Layout:
    single = [row for row, srcs in enumerate(users) if len(srcs) == 1]
    multiple = [row for row, srcs in enumerate(users) if len(srcs) > 1]
    positions = [len(single) + len(multiple)] * len(users)
    for position, row in enumerate(single + multiple):
        positions[row] = position
    return Layout(
        [users[row][0] for row in single],
        [weights[row][0] for row in single],
        [(gather, weights[row]) for row in multiple if (gather := gathers[row]) is not None],
        positions,
    )


def _patch(
    layout: Layout,
    users: list[list[int]],
    weights: list[list[float]],
    gathers: list[Gather | None],
    rows: list[int],
) -> bool:
    """Bring `layout` up to date after `rows` changed; False when a row changed between
    unused, used by one file and used by several (the layout must then be rebuilt)."""
    singles = len(layout.single_src)
    for row in rows:
        position, srcs = layout.positions[row], users[row]
        if position < singles:
            if len(srcs) != 1:
                return False
            layout.single_src[position] = srcs[0]
            layout.single_weight[position] = weights[row][0]
        elif position < singles + len(layout.multiple):
            gather = gathers[row]
            if gather is None:
                return False
            layout.multiple[position - singles] = (gather, weights[row])
        elif srcs:
            return False
    return True


def _weighted_sums(scaled: list[float], layout: Layout) -> list[float]:
    """Per row: sum of scaled[src] * weight over its users (in file order)."""
    values = list(map(mul, map(scaled.__getitem__, layout.single_src), layout.single_weight))
    values.extend([sum(map(mul, gather(scaled), weights)) for gather, weights in layout.multiple])
    values.append(0.0)
    return list(map(values.__getitem__, layout.positions))


class RankGraph:
    """Identifiers (`users[n]`/`raw[n]`: files using n in file order and their weights),
    their groups (`group_users`/`group_raw`, same shape) and what each file defines."""

    def __init__(self, tags: Mapping[str, FileTags]) -> None:
        self.files = sorted(tags)
        self._index = {rel: i for i, rel in enumerate(self.files)}
        definers: dict[str, list[int]] = {}
        for src, rel in enumerate(self.files):
            for name in tags[rel].names:
                definers.setdefault(name, []).append(src)
        self.names = sorted(definers)
        self._name_id = {name: i for i, name in enumerate(self.names)}
        self._definers = [len(definers[name]) for name in self.names]
        self._weights = [identifier_weight(n, len(definers[n])) for n in self.names]
        self.defined = [[self._name_id[n] for n in tags[rel].names] for rel in self.files]
        group_ids: dict[tuple[int, ...], int] = {}
        self._group_of = [
            group_ids.setdefault(tuple(definers[name]), len(group_ids)) for name in self.names
        ]
        self.file_groups: list[list[int]] = [[] for _ in self.files]
        for members, group in group_ids.items():
            for src in members:
                self.file_groups[src].append(group)
        self.users: list[list[int]] = [[] for _ in self.names]
        self.raw: list[list[float]] = [[] for _ in self.names]
        self.group_users: list[list[int]] = [[] for _ in group_ids]
        self.group_raw: list[list[float]] = [[] for _ in group_ids]
        self._uses: list[list[tuple[int, float]]] = []
        self._group_uses: list[list[tuple[int, float]]] = []
        for rel in self.files:
            src = len(self._uses)
            self._uses.append(self._uses_of(tags[rel]))
            self._group_uses.append(self._group_uses_of(self._uses[src]))
            for nid, weight in self._uses[src]:
                self.users[nid].append(src)
                self.raw[nid].append(weight)
            for group, weight in self._group_uses[src]:
                self.group_users[group].append(src)
                self.group_raw[group].append(weight)
        self._base_totals = [self._total(src) for src in range(len(self.files))]
        self._gathers = [_gather(srcs) for srcs in self.users]
        self._group_gathers = [_gather(srcs) for srcs in self.group_users]
        self._layouts: tuple[Layout, Layout] | None = None
        self._pairs: tuple[list[int], list[int]] | None = None
        self._labels: list[tuple[str, str]] | None = None

    def _uses_of(self, tags: FileTags) -> list[tuple[int, float]]:
        references = tags.references
        uses: list[tuple[int, float]] = []
        for name in sorted(references.keys() & self._name_id.keys()):
            nid = self._name_id[name]
            uses.append((nid, self._weights[nid] * math.sqrt(references[name])))
        return uses

    def _group_uses_of(self, uses: list[tuple[int, float]]) -> list[tuple[int, float]]:
        summed: dict[int, float] = {}
        for nid, weight in uses:
            group = self._group_of[nid]
            summed[group] = summed.get(group, 0.0) + weight
        return sorted(summed.items())

    def _total(self, src: int) -> float:
        return sum(weight * self._definers[nid] for nid, weight in self._uses[src])

    def update_file(self, rel: str, tags: FileTags) -> bool:
        """Replace one file's uses in place; False when the graph must be rebuilt instead
        (unknown file, or the names it defines changed)."""
        src = self._index.get(rel)
        if src is None or [self.names[nid] for nid in self.defined[src]] != list(tags.names):
            return False
        uses = self._uses_of(tags)
        group_uses = self._group_uses_of(uses)
        _replace(self.users, self.raw, src, self._uses[src], uses)
        _replace(self.group_users, self.group_raw, src, self._group_uses[src], group_uses)
        changed = (
            (self.users, self.raw, self._gathers, [row for row, _w in (*self._uses[src], *uses)]),
            (
                self.group_users,
                self.group_raw,
                self._group_gathers,
                [row for row, _w in (*self._group_uses[src], *group_uses)],
            ),
        )
        for table, _weights, gathers, rows in changed:
            for row in rows:
                gathers[row] = _gather(table[row])
        self._uses[src] = uses
        self._group_uses[src] = group_uses
        self._base_totals[src] = self._total(src)
        layouts = self._layouts
        if layouts is not None and not all(
            _patch(layout, *table) for layout, table in zip(layouts, changed, strict=True)
        ):
            self._layouts = None
        return True

    def multipliers(self, mentioned: frozenset[str]) -> list[float]:
        """Per identifier: MENTIONED_WEIGHT when mentioned, else 1."""
        factors = [1.0] * len(self.names)
        for name in sorted(mentioned):
            nid = self._name_id.get(name)
            if nid is not None:
                factors[nid] = MENTIONED_WEIGHT
        return factors

    def ids_of(self, names: frozenset[str]) -> list[int]:
        """Ids of those of `names` some file defines, in id order."""
        return sorted(self._name_id[name] for name in names if name in self._name_id)

    def definers_of(self, names: frozenset[str]) -> set[int]:
        """Indexes of the files defining any of `names`."""
        wanted = {self._name_id[name] for name in names if name in self._name_id}
        return {src for src, ids in enumerate(self.defined) if not wanted.isdisjoint(ids)}

    def inverse_totals(self, factors: list[float]) -> list[float]:
        """1 / (total outgoing weight) per file, 0 for files without edges."""
        totals = list(self._base_totals)
        for nid, factor in enumerate(factors):
            if factor != 1.0:
                extra = (factor - 1.0) * self._definers[nid]
                for src, weight in zip(self.users[nid], self.raw[nid], strict=True):
                    totals[src] += weight * extra
        return [1.0 / total if total > 0.0 else 0.0 for total in totals]

    def group_overrides(self, factors: list[float]) -> dict[int, list[float]]:
        """Group weights changed by the factors (mentioned identifiers), by group."""
        extra: dict[tuple[int, int], float] = {}
        for nid, factor in enumerate(factors):
            if factor != 1.0:
                group = self._group_of[nid]
                for src, weight in zip(self.users[nid], self.raw[nid], strict=True):
                    key = (group, src)
                    extra[key] = extra.get(key, 0.0) + weight * (factor - 1.0)
        groups = sorted({group for group, _src in extra})
        return {
            group: [
                weight + extra.get((group, src), 0.0)
                for src, weight in zip(self.group_users[group], self.group_raw[group], strict=True)
            ]
            for group in groups
        }

    def _current_layouts(self) -> tuple[Layout, Layout]:
        if self._layouts is None:
            self._layouts = (
                _layout(self.users, self.raw, self._gathers),
                _layout(self.group_users, self.group_raw, self._group_gathers),
            )
        return self._layouts

    def group_flow(
        self, rank: list[float], inverse: list[float], overrides: dict[int, list[float]]
    ) -> list[float]:
        """Rank each group of identifiers receives from the files using it."""
        scaled = list(map(mul, rank, inverse))
        sums = _weighted_sums(scaled, self._current_layouts()[1])
        get = scaled.__getitem__
        for group, weights in overrides.items():
            sums[group] = sum(map(mul, map(get, self.group_users[group]), weights))
        return sums

    def flow(self, rank: list[float], factors: list[float], inverse: list[float]) -> list[float]:
        """Rank each identifier receives from the files using it (times its factor)."""
        scaled = list(map(mul, rank, inverse))
        sums = _weighted_sums(scaled, self._current_layouts()[0])
        return list(map(mul, sums, factors))

    def pair_labels(self) -> list[tuple[str, str]]:
        """(path, identifier) of every definition pair, in `pairs()` order."""
        if self._labels is None:
            pair_file, pair_name = self.pairs()
            files, names = self.files, self.names
            self._labels = [
                (files[src], names[nid]) for src, nid in zip(pair_file, pair_name, strict=True)
            ]
        return self._labels

    def pairs(self) -> tuple[list[int], list[int]]:
        """Every (file, identifier) definition pair, ordered by path then name."""
        if self._pairs is None:
            pair_file: list[int] = []
            pair_name: list[int] = []
            for src, ids in enumerate(self.defined):
                ordered = sorted(ids)
                pair_file.extend([src] * len(ordered))
                pair_name.extend(ordered)
            self._pairs = (pair_file, pair_name)
        return self._pairs


def _replace(
    users: list[list[int]],
    weights: list[list[float]],
    src: int,
    old: list[tuple[int, float]],
    new: list[tuple[int, float]],
) -> None:
    """Swap `src`'s entries in the rows of `users`/`weights` (rows stay sorted by file)."""
    for row, _weight in old:
        at = bisect_left(users[row], src)
        del users[row][at]
        del weights[row][at]
    for row, weight in new:
        at = bisect_left(users[row], src)
        users[row].insert(at, src)
        weights[row].insert(at, weight)
