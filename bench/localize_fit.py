"""Fitting the where-to-look weights on `bench/localize.py`'s instances, fast.

Usage:
    .venv/bin/python -m bench.localize_fit [--holdout REPO] [--grid]

Loads each materialised tree's repository map once (its index under the tree's
`.cairn/cache/repomap`, as `cairn context` leaves it) and scores the where-to-look
ranking alone (`RepoMap.where_to_look`, no context build) for the default weights, or
for every weight combination of a small grid (`--grid`), printing Acc@1/5/10 overall
and per repository. With `--holdout REPO` the grid is chosen on the other repositories
and then scored on REPO, to see that a fit generalises.
"""

from __future__ import annotations

import argparse
import itertools
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from bench.localize_data import Instance, load, materialise
from cairn.files.ignore import IgnoreRules
from cairn.repomap.map import RepoMap
from cairn.repomap.where import DEFAULT_WEIGHTS, WhereWeights

TOP_K = (1, 5, 10)
GRID = {
    "defines": (1.0, 2.0, 3.0),
    "lexical": (0.5, 1.0, 2.0),
    "prior": (0.3, 1.0, 2.0),
}


def loaded() -> list[tuple[Instance, RepoMap]]:
    """Each instance whose tree is materialised, with its map."""
    out: list[tuple[Instance, RepoMap]] = []
    for instance in load():
        tree = materialise(instance)
        if isinstance(tree, Path):
            cache = tree / ".cairn" / "cache" / "repomap"
            out.append((instance, RepoMap(tree, IgnoreRules.for_folder(tree), cache)))
    return out


def ranks(maps: Sequence[tuple[Instance, RepoMap]], weights: WhereWeights) -> list[int | None]:
    """The rank of the first edited file in each instance's where-to-look order."""
    out: list[int | None] = []
    for instance, repo_map in maps:
        order = [c.rel for c in repo_map.where_to_look([], instance.text, weights)]
        out.append(next((i for i, rel in enumerate(order, 1) if rel in instance.gold), None))
    return out


def accuracy(values: Sequence[int | None], k: int) -> float:
    return 100 * sum(1 for r in values if r is not None and r <= k) / len(values) if values else 0


def line(name: str, values: Sequence[int | None]) -> str:
    accs = " ".join(f"@{k} {accuracy(values, k):5.1f}" for k in TOP_K)
    return f"{name:<16} n={len(values):<3} {accs}"


def report(maps: Sequence[tuple[Instance, RepoMap]], weights: WhereWeights) -> None:
    values = ranks(maps, weights)
    for project in sorted({i.project for i, _ in maps}):
        print(
            line(
                project, [v for (i, _), v in zip(maps, values, strict=True) if i.project == project]
            )
        )
    print(line("ALL", values))


def fitted(maps: Sequence[tuple[Instance, RepoMap]]) -> WhereWeights:
    """The grid point with the best mean of Acc@1 and Acc@5 (ties: the earlier point)."""
    best, best_score = DEFAULT_WEIGHTS, -1.0
    keys = list(GRID)
    for point in itertools.product(*(GRID[k] for k in keys)):
        weights = replace(DEFAULT_WEIGHTS, **dict(zip(keys, point, strict=True)))
        values = ranks(maps, weights)
        score = accuracy(values, 1) + accuracy(values, 5)
        if score > best_score:
            best, best_score = weights, score
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--holdout", default="")
    parser.add_argument("--grid", action="store_true")
    args = parser.parse_args()
    maps = loaded()
    if not args.grid:
        report(maps, DEFAULT_WEIGHTS)
        return
    train = [(i, m) for i, m in maps if i.project != args.holdout]
    weights = fitted(train)
    print("fitted:", {k: getattr(weights, k) for k in GRID})
    report(train, weights)
    if args.holdout:
        held = [(i, m) for i, m in maps if i.project == args.holdout]
        print("held out:")
        report(held, weights)
        print("held out, default weights:")
        report(held, DEFAULT_WEIGHTS)


if __name__ == "__main__":
    main()
