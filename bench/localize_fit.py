"""Fitting the where-to-look weights on `bench/localize.py`'s instances, leave one
repository out.

Usage:
    .venv/bin/python -m bench.localize_fit [--loo] [--fit] [--rounds 2] [--only-new]

Loads each materialised tree's repository map once (its index under the tree's
`.cairn/cache/repomap`, as `cairn context` leaves it), measures the where-to-look parts of
each instance's message once (`RepoMap.where_measure`) and then weighs them many ways
(`cairn.repomap.where.scored`, no context build). Without options it prints Acc@1/5/10 of
the default weights per repository and overall. `--fit` searches the weights on every
repository (coordinate search from the defaults over `STEPS`, `--rounds` passes); `--loo`
does it once per repository with that repository held out and scores it on the held-out
one: the per-repository and pooled held-out figures say whether a fit generalises. The
objective is the mean over repositories of Acc@1 + Acc@5 + Acc@10/2 (each repository
counts once, however many instances it has).
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.localize_data import Instance, load, materialise
from cairn.files.ignore import IgnoreRules
from cairn.models.where_weights import DEFAULT_WHERE_WEIGHTS, RoleFactors, WhereWeights
from cairn.repomap.map import RepoMap
from cairn.repomap.where import WhereMeasure, scored

TOP_K = (1, 5, 10)
STEPS: dict[str, tuple[float, ...]] = {
    "path": (1.0, 2.0, 3.0, 5.0),
    "dotted": (0.0, 0.5, 1.0, 1.5, 3.0),
    "weak_path": (0.0, 0.3, 1.0),
    "stem": (0.0, 0.5, 1.0, 2.0),
    "defines": (0.5, 1.0, 2.0, 3.0),
    "plain_word": (0.0, 0.1, 0.3),
    "qualified": (0.0, 0.5, 1.0, 2.0, 3.0),
    "phrase": (0.0, 0.5, 1.0, 2.0, 3.0),
    "lexical": (0.5, 1.0, 2.0, 3.0),
    "path_words": (0.0, 0.5, 1.0, 2.0),
    "prior": (0.0, 0.3, 1.0),
    "roles.test": (0.1, 0.3, 0.6),
    "roles.stub": (0.3, 0.6, 1.0),
    "roles.vendored": (0.1, 0.2, 0.5),
}


@dataclass(frozen=True)
class Case:
    """One instance's measured parts."""

    instance: Instance
    measure: WhereMeasure


def measured() -> list[Case]:
    """Each materialised instance with its where-to-look parts (each map loaded once)."""
    out: list[Case] = []
    for instance in load():
        tree = materialise(instance)
        if isinstance(tree, Path):
            cache = tree / ".cairn" / "cache" / "repomap"
            repo_map = RepoMap(tree, IgnoreRules.for_folder(tree), cache)
            out.append(Case(instance, repo_map.where_measure([], instance.text)))
    return out


def rank_of(case: Case, weights: WhereWeights) -> int | None:
    """1-based rank of the first edited file (None: not ranked at all)."""
    for index, (_, rel) in enumerate(scored(case.measure, weights), start=1):
        if rel in case.instance.gold:
            return index
    return None


def accuracy(values: Sequence[int | None], k: int) -> float:
    return 100 * sum(1 for r in values if r is not None and r <= k) / len(values) if values else 0


def objective(cases: Sequence[Case], weights: WhereWeights) -> float:
    """Mean over repositories of Acc@1 + Acc@5 + Acc@10 / 2."""
    per_repo: dict[str, list[int | None]] = {}
    for case in cases:
        per_repo.setdefault(case.instance.project, []).append(rank_of(case, weights))
    return statistics.fmean(
        accuracy(r, 1) + accuracy(r, 5) + accuracy(r, 10) / 2 for r in per_repo.values()
    )


def with_value(weights: WhereWeights, key: str, value: float) -> WhereWeights:
    if key.startswith("roles."):
        roles = weights.roles.model_copy(update={key.split(".", 1)[1]: value})
        return weights.model_copy(update={"roles": RoleFactors.model_validate(roles)})
    return weights.model_copy(update={key: value})


def fit(cases: Sequence[Case], rounds: int) -> WhereWeights:
    """Coordinate search from the defaults (ties keep the current value)."""
    best = DEFAULT_WHERE_WEIGHTS
    best_score = objective(cases, best)
    for _ in range(rounds):
        for key, values in STEPS.items():
            for value in values:
                candidate = with_value(best, key, value)
                score = objective(cases, candidate)
                if score > best_score + 1e-9:
                    best, best_score = candidate, score
    return best


def line(name: str, values: Sequence[int | None]) -> str:
    accs = " ".join(f"@{k} {accuracy(values, k):5.1f}" for k in TOP_K)
    return f"{name:<16} n={len(values):<3} {accs}"


def report(cases: Sequence[Case], ranks: Sequence[int | None]) -> None:
    for project in sorted({c.instance.project for c in cases}):
        print(
            line(
                project,
                [r for c, r in zip(cases, ranks, strict=True) if c.instance.project == project],
            )
        )
    print(line("ALL", ranks))


def changed(weights: WhereWeights) -> dict[str, float]:
    flat = {k: v for k, v in weights.model_dump().items() if k != "roles"}
    flat |= {f"roles.{k}": v for k, v in weights.roles.model_dump().items()}
    base = {k: v for k, v in DEFAULT_WHERE_WEIGHTS.model_dump().items() if k != "roles"}
    base |= {f"roles.{k}": v for k, v in DEFAULT_WHERE_WEIGHTS.roles.model_dump().items()}
    return {k: v for k, v in flat.items() if base[k] != v}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--fit", action="store_true")
    parser.add_argument("--loo", action="store_true")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    cases = measured()
    print("default weights:")
    report(cases, [rank_of(c, DEFAULT_WHERE_WEIGHTS) for c in cases])
    if args.fit:
        weights = fit(cases, args.rounds)
        print("fitted on all:", changed(weights))
        report(cases, [rank_of(c, weights) for c in cases])
    if args.loo:
        held: dict[str, int | None] = {}
        for project in sorted({c.instance.project for c in cases}):
            train = [c for c in cases if c.instance.project != project]
            weights = fit(train, args.rounds)
            print(f"held out {project}: {changed(weights)}", flush=True)
            for c in cases:
                if c.instance.project == project:
                    held[c.instance.id] = rank_of(c, weights)
        print("leave one repository out (each scored with weights fitted on the others):")
        report(cases, [held[c.instance.id] for c in cases])


if __name__ == "__main__":
    main()
