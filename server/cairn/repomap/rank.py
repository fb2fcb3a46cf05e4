"""Deterministic ranking of definitions for the repository map.

A personalized PageRank over the reference graph (`repomap_graph`: files, and edges from
a file to the files defining the identifiers it uses; each file's outgoing weights are
normalised, mentioned identifiers weigh MENTIONED_WEIGHT times more) ranks the files,
teleporting to the files in play, files named like a mentioned identifier and files
defining one. A definition's score is the rank its identifier receives from the files
using it; definitions of mentioned identifiers come first. The iteration always starts
from the teleport vector and every sum runs over arrays in a fixed order, so the same
inputs always give the same floats; ties break by path, then name.
"""

from __future__ import annotations

import numpy as np

from cairn.repomap.graph import Floats, Ints, RankGraph

DAMPING = 0.85
MAX_ITERATIONS = 100
TOLERANCE_PER_FILE = 5e-6
"""PageRank stops when the L1 change of the rank vector is below this times the file count."""
SCORE_SCALE = 1e9
"""Scores (shares of the total rank, at most 1) are compared at this resolution."""
MENTIONED_BONUS = 1.0
"""Added to the score of a mentioned identifier's definitions: they come first."""


def pagerank(graph: RankGraph, edge_weights: Floats, inverse: Floats, personal: Floats) -> Floats:
    """Personalized PageRank by power iteration from `personal` (which sums to 1).

    Always started from `personal`, never from an earlier result: the floats then depend
    only on the inputs, not on the history of edits.
    """
    if len(graph.files) == 0:
        return np.zeros(0, dtype=np.float64)
    dangling = inverse == 0.0
    rank = personal.copy()
    tolerance = TOLERANCE_PER_FILE * len(graph.files)
    for _ in range(MAX_ITERATIONS):
        leak = (1.0 - DAMPING) + DAMPING * float(rank[dangling].sum())
        new = DAMPING * graph.inflow(graph.flow(rank * inverse, edge_weights)) + leak * personal
        change = float(np.abs(new - rank).sum())
        rank = new
        if change < tolerance:
            break
    return rank


def file_ranks(graph: RankGraph, in_play: frozenset[str], mentioned: frozenset[str]) -> Floats:
    """The PageRank of every file for these inputs (what `rank_definitions` starts from)."""
    edge_weights = graph.edge_weights(graph.factors(mentioned))
    inverse = graph.inverse_totals(edge_weights)
    return pagerank(graph, edge_weights, inverse, personalization(graph, in_play, mentioned))


def personalization(graph: RankGraph, in_play: frozenset[str], mentioned: frozenset[str]) -> Floats:
    """Teleport weights: files in play, files named like a mentioned identifier, and
    files defining one."""
    count = len(graph.files)
    chosen = np.zeros(count, dtype=np.float64)
    chosen[graph.indexes_of(in_play)] = 1.0
    if mentioned:
        chosen[[i for i, stem in enumerate(graph.stems) if stem in mentioned]] = 1.0
        chosen[graph.definers_of(mentioned)] = 1.0
    total = float(chosen.sum())
    if total == 0.0:
        return np.full(count, 1.0 / count) if count else chosen
    return chosen / total


def _score_keys(values: Floats) -> Ints:
    """Sort keys, best first: minus the value at SCORE_SCALE resolution."""
    return -(values * SCORE_SCALE).astype(np.int64)


class Ranking:
    """Definitions best first: `used` ones (some file uses their identifier), then `unused()`.

    Scores are shares of the total rank, compared as integers at SCORE_SCALE resolution,
    ties broken by path, then name. Both lists are built on demand.
    """

    def __init__(
        self,
        graph: RankGraph,
        rank: Floats,
        hub: Floats,
        in_play: frozenset[str],
    ) -> None:
        self._graph = graph
        self._rank = rank
        self._shown = np.ones(len(graph.files), dtype=bool)
        self._shown[graph.indexes_of(in_play)] = False
        self._unused: list[tuple[str, str]] | None = None
        self._used: list[tuple[str, str]] | None = None
        self._pair_hub = hub[graph.pair_name]

    @property
    def used(self) -> list[tuple[str, str]]:
        """The used definitions, best first (built on first use: a prior needs none)."""
        if self._used is None:
            graph, hub = self._graph, self._pair_hub
            scored = np.flatnonzero(hub)
            order = scored[np.argsort(_score_keys(hub[scored]), kind="stable")]
            order = order[self._shown[graph.pair_file[order]]]
            self._used = graph.pair_labels(order)
        return self._used

    def file_rank(self) -> dict[str, float]:
        """Each file's PageRank (its share of the total rank)."""
        return dict(zip(self._graph.files, self._rank.tolist(), strict=True))

    def unused(self) -> list[tuple[str, str]]:
        """Definitions nobody uses, by their file's rank (then path), in name order."""
        if self._unused is None:
            graph = self._graph
            pair_file = graph.pair_file
            chosen = np.flatnonzero((self._pair_hub == 0.0) & self._shown[pair_file])
            files = pair_file[chosen]
            keys = _score_keys(self._rank)[files]
            order = chosen[np.lexsort((graph.pair_name[chosen], files, keys))]
            self._unused = graph.pair_labels(order)
        return self._unused


def rank_definitions(
    graph: RankGraph,
    in_play: frozenset[str],
    mentioned: frozenset[str],
    known_rank: Floats | None = None,
) -> Ranking:
    """Rank the definitions for these files in play and mentioned identifiers.

    A definition's score is the rank its identifier receives from the files using it
    (plus MENTIONED_BONUS for a mentioned identifier); definitions in files in play are
    left out (they are in the context already). `known_rank`: the PageRank of these
    inputs on this graph, computed before (`file_ranks`), which is then not run again.
    """
    edge_weights = graph.edge_weights(graph.factors(mentioned))
    inverse = graph.inverse_totals(edge_weights)
    rank = known_rank
    if rank is None:
        rank = pagerank(graph, edge_weights, inverse, personalization(graph, in_play, mentioned))
    hub = graph.flow(rank * inverse, edge_weights)
    hub[graph.ids_of(mentioned)] += MENTIONED_BONUS
    return Ranking(graph, rank, hub, in_play)
