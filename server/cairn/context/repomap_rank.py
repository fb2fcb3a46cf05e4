"""Deterministic ranking of definitions for the repository map.

A personalized PageRank over the reference graph (`repomap_graph`: files, and edges from
a file to the files defining the identifiers it uses; each file's outgoing weights are
normalised, mentioned identifiers weigh MENTIONED_WEIGHT times more) ranks the files,
teleporting to the files in play, files named like a mentioned identifier and files
defining one. A definition's score is the rank its identifier receives from the files
using it; definitions of mentioned identifiers come first. The iteration always starts
from the teleport vector and everything is plain Python lists in a fixed order, so the
same inputs always give the same floats; ties break by path, then name.
"""

from __future__ import annotations

from itertools import compress, repeat
from operator import mul, neg, sub

from cairn.context.repomap_graph import RankGraph

DAMPING = 0.85
MAX_ITERATIONS = 100
TOLERANCE_PER_FILE = 5e-6
"""PageRank stops when the L1 change of the rank vector is below this times the file count."""
SCORE_SCALE = 1e9
"""Scores (shares of the total rank, at most 1) are compared at this resolution."""
MENTIONED_BONUS = 1.0
"""Added to the score of a mentioned identifier's definitions: they come first."""


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
    overrides = graph.group_overrides(factors)
    dangling = [src for src, value in enumerate(inverse) if value == 0.0]
    rank = list(personal)
    tolerance = TOLERANCE_PER_FILE * count
    for _ in range(MAX_ITERATIONS):
        get = graph.group_flow(rank, inverse, overrides).__getitem__
        leak = (1.0 - DAMPING) + DAMPING * sum(rank[src] for src in dangling)
        new = [
            DAMPING * sum(map(get, groups)) + leak * p
            for groups, p in zip(graph.file_groups, personal, strict=True)
        ]
        change = sum(map(abs, map(sub, new, rank)))
        rank = new
        if change < tolerance:
            break
    return rank


def personalization(
    files: list[str],
    defining_mentioned: set[int],
    in_play: frozenset[str],
    mentioned: frozenset[str],
) -> list[float]:
    """Teleport weights: files in play, files named like a mentioned identifier, and
    files defining one (`defining_mentioned`, by index)."""
    chosen = [
        1.0 if rel in in_play or _stem(rel) in mentioned or i in defining_mentioned else 0.0
        for i, rel in enumerate(files)
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
        for nid in graph.ids_of(mentioned):
            hub[nid] += MENTIONED_BONUS
        # Per definition pair, in C: its score, the scored ones, their integer sort keys.
        pair_hub = list(map(hub.__getitem__, pair_name))
        scored = list(compress(range(len(pair_hub)), pair_hub))
        scaled = map(mul, map(pair_hub.__getitem__, scored), repeat(SCORE_SCALE))
        keys = list(map(neg, map(int, scaled)))
        self._order = list(
            map(scored.__getitem__, sorted(range(len(scored)), key=keys.__getitem__))
        )
        shown = [rel not in in_play for rel in graph.files]
        self.used = list(
            compress(
                map(graph.pair_labels().__getitem__, self._order),
                map(shown.__getitem__, map(pair_file.__getitem__, self._order)),
            )
        )

    def unused(self) -> list[tuple[str, str]]:
        """Definitions nobody uses, by their file's rank (then path), in name order."""
        if self._unused is None:
            pair_file, pair_name = self._graph.pairs()
            used = {(pair_file[i], pair_name[i]) for i in self._order}
            files, names, rank = self._graph.files, self._graph.names, self._rank
            keys = [-int(value * SCORE_SCALE) for value in rank]
            self._unused = [
                (files[i], names[nid])
                for i in sorted(range(len(files)), key=keys.__getitem__)
                if files[i] not in self._in_play
                for nid in sorted(self._graph.defined[i])
                if (i, nid) not in used
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
    personal = personalization(graph.files, graph.definers_of(mentioned), in_play, mentioned)
    rank = pagerank(graph, mentioned, personal)
    return Ranking(graph, rank, in_play, mentioned)
