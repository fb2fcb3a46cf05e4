"""Deterministic ranking of definitions for the repository map.

Files are nodes; a file that uses an identifier another file defines gets an edge to it,
weighted like Aider's map (mentioned identifiers and long descriptive names weigh more,
private names and names defined in many files less; each file's outgoing weights are
normalised, so the files in play act through the personalization).
A personalized PageRank, teleporting to the files in play and to files named by a
mentioned identifier, ranks the files; each file's rank flows along its edges to the
definitions it uses. Everything is plain Python lists in a fixed order (files sorted by
path, identifiers sorted), so the same inputs always give the same floats and the same
order; ties break by path, then name.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Mapping
from operator import mul, sub

from cairn.context.repomap_tags import FileTags

DAMPING = 0.85
MAX_ITERATIONS = 100
TOLERANCE_PER_FILE = 2e-6
"""PageRank stops when the L1 change of the rank vector is below this times the file count."""
MENTIONED_WEIGHT = 10.0
DESCRIPTIVE_WEIGHT = 10.0
DESCRIPTIVE_MIN_CHARS = 8
PRIVATE_WEIGHT = 0.1
COMMON_WEIGHT = 0.1
COMMON_DEFINERS = 5
"""An identifier defined in more files than this is common (weight COMMON_WEIGHT)."""
SCORE_SCALE = 1e9
"""Scores (shares of the total rank, at most 1) are compared at this resolution."""
MENTIONED_BONUS = 1.0
"""Added to the score of a mentioned identifier's definitions: they come first."""


class RankGraph:
    """The reference graph in flat lists (files sorted, defined identifiers sorted).

    A file using identifier n gives each file defining n the same edge weight w; the rank
    a file sends along its edges is first summed per identifier (`users[n]`/`raw[n]`:
    the files using n, in file order, and their weights), then handed to every definer
    of n (`defined[file]`: identifier ids). Mentioned identifiers are applied per call.
    """

    def __init__(self, tags: Mapping[str, FileTags]) -> None:
        self.files = sorted(tags)
        self._index = {rel: i for i, rel in enumerate(self.files)}
        definers: dict[str, int] = {}
        for rel in self.files:
            for name in tags[rel].names:
                definers[name] = definers.get(name, 0) + 1
        self.names = sorted(definers)
        self._name_id = {name: i for i, name in enumerate(self.names)}
        self._definers = [definers[name] for name in self.names]
        self._weights = [_identifier_weight(n, definers[n]) for n in self.names]
        self.defined = [[self._name_id[n] for n in tags[rel].names] for rel in self.files]
        self.users: list[list[int]] = [[] for _ in self.names]
        self.raw: list[list[float]] = [[] for _ in self.names]
        self._uses: list[list[tuple[int, float]]] = []
        for rel in self.files:
            uses = self._uses_of(tags[rel])
            src = len(self._uses)
            self._uses.append(uses)
            for nid, weight in uses:
                self.users[nid].append(src)
                self.raw[nid].append(weight)
        self._base_totals = [self._total(src) for src in range(len(self.files))]
        self._cached_layout: tuple[list[int], list[int], list[float], list[int]] | None = None
        self._pairs: tuple[list[int], list[int]] | None = None

    def _uses_of(self, tags: FileTags) -> list[tuple[int, float]]:
        references = tags.references
        uses: list[tuple[int, float]] = []
        for name in sorted(references.keys() & self._name_id.keys()):
            nid = self._name_id[name]
            uses.append((nid, self._weights[nid] * math.sqrt(references[name])))
        return uses

    def _total(self, src: int) -> float:
        return sum(weight * self._definers[nid] for nid, weight in self._uses[src])

    def update_file(self, rel: str, tags: FileTags) -> bool:
        """Replace one file's uses in place; False when the graph must be rebuilt instead
        (unknown file, or the names it defines changed)."""
        src = self._index.get(rel)
        if src is None or [self.names[nid] for nid in self.defined[src]] != list(tags.names):
            return False
        for nid, _weight in self._uses[src]:
            at = bisect_left(self.users[nid], src)
            del self.users[nid][at]
            del self.raw[nid][at]
        uses = self._uses_of(tags)
        self._uses[src] = uses
        for nid, weight in uses:
            at = bisect_left(self.users[nid], src)
            self.users[nid].insert(at, src)
            self.raw[nid].insert(at, weight)
        self._base_totals[src] = self._total(src)
        self._cached_layout = None
        return True

    def multipliers(self, mentioned: frozenset[str]) -> list[float]:
        """Per identifier: MENTIONED_WEIGHT when mentioned, else 1."""
        factors = [1.0] * len(self.names)
        for name in sorted(mentioned):
            nid = self._name_id.get(name)
            if nid is not None:
                factors[nid] = MENTIONED_WEIGHT
        return factors

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

    def inverse_totals(self, factors: list[float]) -> list[float]:
        """1 / (total outgoing weight) per file, 0 for files without edges."""
        totals = list(self._base_totals)
        for nid, factor in enumerate(factors):
            if factor != 1.0:
                extra = (factor - 1.0) * self._definers[nid]
                for src, weight in zip(self.users[nid], self.raw[nid], strict=True):
                    totals[src] += weight * extra
        return [1.0 / total if total > 0.0 else 0.0 for total in totals]

    def flow(self, rank: list[float], factors: list[float], inverse: list[float]) -> list[float]:
        """Rank each identifier receives from the files using it (times its factor)."""
        get = list(map(mul, rank, inverse)).__getitem__
        hub = [0.0] * len(self.names)
        single, single_src, single_weight, multiple = self._layout()
        for nid, value in zip(single, map(mul, map(get, single_src), single_weight), strict=True):
            hub[nid] = value
        for nid in multiple:
            hub[nid] = sum(map(mul, map(get, self.users[nid]), self.raw[nid]))
        return list(map(mul, hub, factors))

    def _layout(self) -> tuple[list[int], list[int], list[float], list[int]]:
        """Identifiers used by exactly one file (with that file and weight), and the others
        used by several: the single ones are handled in one pass without per-name overhead."""
        if self._cached_layout is None:
            single = [nid for nid, srcs in enumerate(self.users) if len(srcs) == 1]
            self._cached_layout = (
                single,
                [self.users[nid][0] for nid in single],
                [self.raw[nid][0] for nid in single],
                [nid for nid, srcs in enumerate(self.users) if len(srcs) > 1],
            )
        return self._cached_layout


def _identifier_weight(name: str, definers: int) -> float:
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


def pagerank(graph: RankGraph, mentioned: frozenset[str], personal: list[float]) -> list[float]:
    """Personalized PageRank by power iteration from `personal` (which sums to 1).

    Always started from `personal`, never from an earlier result: the floats then depend
    only on the inputs, not on the history of edits.
    """
    count = len(graph.files)
    if count == 0:
        return []
    factors = graph.multipliers(mentioned)
    inverse = graph.inverse_totals(factors)
    dangling = [src for src, value in enumerate(inverse) if value == 0.0]
    rank = list(personal)
    tolerance = TOLERANCE_PER_FILE * count
    for _ in range(MAX_ITERATIONS):
        get = graph.flow(rank, factors, inverse).__getitem__
        leak = (1.0 - DAMPING) + DAMPING * sum(rank[src] for src in dangling)
        new = [
            DAMPING * sum(map(get, ids)) + leak * p
            for ids, p in zip(graph.defined, personal, strict=True)
        ]
        change = sum(map(abs, map(sub, new, rank)))
        rank = new
        if change < tolerance:
            break
    return rank


def personalization(
    files: list[str],
    defined_names: list[set[str]],
    in_play: frozenset[str],
    mentioned: frozenset[str],
) -> list[float]:
    """Teleport weights: files in play, files named like a mentioned identifier, and
    files defining one."""
    chosen = [
        1.0
        if rel in in_play or _stem(rel) in mentioned or not defines.isdisjoint(mentioned)
        else 0.0
        for rel, defines in zip(files, defined_names, strict=True)
    ]
    total = sum(chosen)
    if total == 0.0:
        return [1.0 / len(files)] * len(files) if files else []
    return [value / total for value in chosen]


def _stem(rel: str) -> str:
    name = rel.rsplit("/", 1)[-1]
    return name.split(".", 1)[0]


class Ranking:
    """Definitions best first: `used` ones (some file uses their identifier), then `unused()`.

    Scores are shares of the total rank, compared as integers at SCORE_SCALE resolution,
    ties broken by path, then name. The unused tail (by file rank) is built on demand.
    """

    def __init__(
        self,
        graph: RankGraph,
        rank: list[float],
        in_play: frozenset[str],
        mentioned: frozenset[str],
    ) -> None:
        self._graph = graph
        self._rank = rank
        self._in_play = in_play
        self._unused: list[tuple[str, str]] | None = None
        factors = graph.multipliers(mentioned)
        hub = graph.flow(rank, factors, graph.inverse_totals(factors))
        pair_file, pair_name = graph.pairs()
        for nid, factor in enumerate(factors):
            if factor != 1.0:
                hub[nid] += MENTIONED_BONUS
        keys = [-int(hub[nid] * SCORE_SCALE) for nid in pair_name]
        order = [i for i in sorted(range(len(keys)), key=keys.__getitem__) if hub[pair_name[i]]]
        files, names = graph.files, graph.names
        self.used = [
            (files[pair_file[i]], names[pair_name[i]])
            for i in order
            if files[pair_file[i]] not in in_play
        ]
        self._used_pairs = {(pair_file[i], pair_name[i]) for i in order}

    def unused(self) -> list[tuple[str, str]]:
        """Definitions nobody uses, by their file's rank (then path), in name order."""
        if self._unused is None:
            files, names, rank = self._graph.files, self._graph.names, self._rank
            keys = [-int(value * SCORE_SCALE) for value in rank]
            self._unused = [
                (files[i], names[nid])
                for i in sorted(range(len(files)), key=keys.__getitem__)
                if files[i] not in self._in_play
                for nid in sorted(self._graph.defined[i])
                if (i, nid) not in self._used_pairs
            ]
        return self._unused


def rank_definitions(
    graph: RankGraph, in_play: frozenset[str], mentioned: frozenset[str]
) -> Ranking:
    """Rank the definitions for these files in play and mentioned identifiers.

    A definition's score is the rank its identifier receives from the files using it
    (plus MENTIONED_BONUS for a mentioned identifier); definitions in files in play are
    left out (they are in the context already).
    """
    defined_names = [{graph.names[nid] for nid in ids} for ids in graph.defined]
    personal = personalization(graph.files, defined_names, in_play, mentioned)
    rank = pagerank(graph, mentioned, personal)
    return Ranking(graph, rank, in_play, mentioned)
