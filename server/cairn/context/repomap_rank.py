"""Deterministic ranking of definitions for the repository map.

Files are nodes; a file that uses an identifier another file defines gets an edge to it,
weighted like Aider's map (mentioned identifiers and long descriptive names weigh more,
private names and names defined in many files less, uses from files in play much more).
A personalized PageRank, teleporting to the files in play and to files named by a
mentioned identifier, ranks the files; each file's rank flows along its edges to the
definitions it uses. Everything is plain Python lists in a fixed order (files sorted by
path, identifiers sorted), so the same inputs always give the same floats and the same
order; ties break by path, then name.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from operator import mul, sub

from cairn.context.repomap_tags import FileTags

DAMPING = 0.85
MAX_ITERATIONS = 100
TOLERANCE_PER_FILE = 1e-6
"""PageRank stops when the L1 change of the rank vector is below this times the file count."""
MENTIONED_WEIGHT = 10.0
DESCRIPTIVE_WEIGHT = 10.0
DESCRIPTIVE_MIN_CHARS = 8
PRIVATE_WEIGHT = 0.1
COMMON_WEIGHT = 0.1
COMMON_DEFINERS = 5
"""An identifier defined in more files than this is common (weight COMMON_WEIGHT)."""
IN_PLAY_WEIGHT = 50.0
"""Uses made by a file in play count this much more."""


@dataclass(frozen=True, slots=True)
class Graph:
    """The reference graph in flat lists (files sorted, defined identifiers sorted).

    A file using identifier n gives each file defining n the same edge weight w; the rank
    a file sends along its edges is first summed per identifier (`users`/`shares`: the
    files using n and the fraction of their outgoing weight that goes to each definer of
    n), then handed to every definer of n (`defined`: identifier ids per file).
    """

    files: list[str]
    names: list[str]
    users: list[list[int]]
    shares: list[list[float]]
    defined: list[list[int]]
    dangling: list[int]
    """Files without outgoing edges."""


def _identifier_weight(name: str, mentioned: frozenset[str], definers: int) -> float:
    weight = 1.0
    if name in mentioned:
        weight *= MENTIONED_WEIGHT
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


def build_graph(
    tags: Mapping[str, FileTags], in_play: frozenset[str], mentioned: frozenset[str]
) -> Graph:
    """The reference graph of `tags` (keys are relative paths)."""
    files = sorted(tags)
    definers: dict[str, int] = {}
    per_file_names: list[list[str]] = []
    for rel in files:
        names = list(dict.fromkeys(record[0] for record in tags[rel].definitions))
        per_file_names.append(names)
        for name in names:
            definers[name] = definers.get(name, 0) + 1
    names = sorted(definers)
    name_id = {name: i for i, name in enumerate(names)}
    weights = [_identifier_weight(name, mentioned, definers[name]) for name in names]
    users: list[list[int]] = [[] for _ in names]
    raw: list[list[float]] = [[] for _ in names]
    totals = [0.0] * len(files)
    for src, rel in enumerate(files):
        boost = IN_PLAY_WEIGHT if rel in in_play else 1.0
        total = 0.0
        references = tags[rel].references
        for name in sorted(references.keys() & name_id.keys()):
            nid = name_id[name]
            weight = weights[nid] * boost * math.sqrt(references[name])
            users[nid].append(src)
            raw[nid].append(weight)
            total += weight * definers[name]
        totals[src] = total
    shares = [
        [weight / totals[src] for src, weight in zip(srcs, ws, strict=True)]
        for srcs, ws in zip(users, raw, strict=True)
    ]
    defined = [[name_id[name] for name in file_names] for file_names in per_file_names]
    dangling = [src for src, total in enumerate(totals) if total == 0.0]
    return Graph(files, names, users, shares, defined, dangling)


def _flow(graph: Graph, rank: list[float]) -> list[float]:
    """Rank each identifier receives: sum over its users of rank x share."""
    get = rank.__getitem__
    return [
        sum(map(mul, map(get, srcs), shares)) if srcs else 0.0
        for srcs, shares in zip(graph.users, graph.shares, strict=True)
    ]


def pagerank(graph: Graph, personal: list[float], start: list[float] | None = None) -> list[float]:
    """Personalized PageRank by power iteration; `personal` sums to 1.

    `start` (a previous result on a similar graph) only speeds up convergence.
    """
    count = len(graph.files)
    if count == 0:
        return []
    rank = list(start) if start is not None and len(start) == count else list(personal)
    tolerance = TOLERANCE_PER_FILE * count
    for _ in range(MAX_ITERATIONS):
        hub = _flow(graph, rank)
        get = hub.__getitem__
        dangling = sum(rank[src] for src in graph.dangling)
        leak = (1.0 - DAMPING) + DAMPING * dangling
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
    files: list[str], in_play: frozenset[str], mentioned: frozenset[str]
) -> list[float]:
    """Teleport weights: files in play and files whose name is a mentioned identifier."""
    chosen = [1.0 if rel in in_play or _stem(rel) in mentioned else 0.0 for rel in files]
    total = sum(chosen)
    if total == 0.0:
        return [1.0 / len(files)] * len(files) if files else []
    return [value / total for value in chosen]


def _stem(rel: str) -> str:
    name = rel.rsplit("/", 1)[-1]
    return name.split(".", 1)[0]


@dataclass(frozen=True, slots=True)
class Ranking:
    """Ranked (file, identifier) pairs, best first, and the file ranks they came from."""

    pairs: list[tuple[str, str]]
    file_rank: list[float]


def rank_definitions(
    tags: Mapping[str, FileTags],
    in_play: frozenset[str],
    mentioned: frozenset[str],
    previous: list[float] | None = None,
) -> Ranking:
    """(file, identifier) pairs best first; definitions in files in play are left out.

    A definition's score is the rank its identifier receives from the files using it;
    definitions nobody uses follow, by their file's rank.
    """
    graph = build_graph(tags, in_play, mentioned)
    rank = pagerank(graph, personalization(graph.files, in_play, mentioned), previous)
    hub = _flow(graph, rank)
    scored = [
        (-hub[nid], rel, graph.names[nid])
        for rel, ids in zip(graph.files, graph.defined, strict=True)
        for nid in ids
        if hub[nid] > 0.0
    ]
    scored.sort()
    result = [(rel, name) for _score, rel, name in scored]
    result.extend(_unreferenced(tags, graph.files, rank, set(result)))
    return Ranking([(rel, name) for rel, name in result if rel not in in_play], rank)


def _unreferenced(
    tags: Mapping[str, FileTags], files: list[str], rank: list[float], seen: set[tuple[str, str]]
) -> list[tuple[str, str]]:
    """Definitions nobody uses, by their file's rank (then path), in file order."""
    order = sorted(range(len(files)), key=lambda i: (-rank[i], files[i]))
    result: list[tuple[str, str]] = []
    for i in order:
        rel = files[i]
        for name in dict.fromkeys(record[0] for record in tags[rel].definitions):
            if (rel, name) not in seen:
                result.append((rel, name))
    return result
