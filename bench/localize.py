"""Does the first call point at the code that has to change? Measured on real issues.

Usage:
    .venv/bin/python -m bench.localize [--only ID ...] [--budgets 1024,4096,8192]
        [--repos marshmallow,...] [--label NAME]

For each instance of `bench/data/localize.jsonl` (`bench/localize_data.py`:
issue text, repository, base commit, the files the fix edited) the tree at
its base commit is materialised once under `bench/.work/localize/<id>`
(instances whose tree cannot be had are listed, never silently dropped), and
Cairn's first-call context is built in-process exactly as
`cairn context --json --model openai/gpt-4.1 --message "<issue text>"`
builds it (`build_dry_run`, no file open): at the default map budget (which
follows the model's window) and with `repo_map_tokens` set to each of
`--budgets`. Per build it records whether
an edited file appears in the context (the text of an included block other
than the user's own message) and the rank of the first edited file in the
where-to-look order (the "Where to look" block's files, then the map's files
in map order; the map alone when there is no such block). A BM25 ranking of
the tree's source files by the issue text (`bench/localize_bm25.py`) is the
baseline, and Aider's repository map for the same message at each of `--budgets`
(`bench/localize_aider.py`: Aider's own mention extraction, its own venv) the peer;
`--no-aider` leaves it out.

Prints the share of instances with an edited file in the first-call context
(default / each budget) and in Aider's map (each budget), Acc@1/5/10 of the
where-to-look order and of BM25, per repository and overall, the median build
time (cold: the first build of a tree, index included; warm: the later ones) and
Aider's, and the five worst instances with what was shown first instead. Each run's figures are appended as one
JSON line by `append_result` (to `bench/.work/localize-results.jsonl`).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from bench.harness.records import Figure
from bench.harness.writer import record, this_run
from bench.localize_aider import aider_maps
from bench.localize_aider import setup as aider_setup
from bench.localize_bm25 import bm25_ranking
from bench.localize_data import TREES, Instance, load, materialise
from cairn.settings import Settings

MODEL = "openai/gpt-4.1"
DEFAULT_BUDGETS = (1024, 4096, 8192)
TOP_K = (1, 5, 10)
WORST = 5
RESULTS = TREES.parent / "localize-results.jsonl"
AIDER_OF = {str(b) for b in (1024, 2048, 4096, 8192, 16384)}
"""Budget labels Aider's map can be asked for (all but "default", which is Cairn's own)."""
WHERE_REF = "where-to-look"
MAP_REF = "repomap"
FILE_SUFFIX = ":"


@dataclass
class Outcome:
    """What one instance's first calls showed."""

    instance: Instance
    shown: dict[str, bool] = field(default_factory=dict)
    """Budget label ("default", "1024", ...) → an edited file is in the context."""
    order: list[str] = field(default_factory=list)
    """The where-to-look order at the default budget."""
    bm25: list[str] = field(default_factory=list)
    cold: float = 0.0
    warm: list[float] = field(default_factory=list)
    aider: dict[str, bool] = field(default_factory=dict)
    """Budget label → an edited file is in Aider's map (empty: Aider not run)."""
    aider_seconds: float = 0.0

    def rank(self, order: Sequence[str]) -> int | None:
        """1-based rank of the first edited file in `order` (None: absent)."""
        for index, rel in enumerate(order, start=1):
            if rel in self.instance.gold:
                return index
        return None


@contextmanager
def map_budget(tokens: int | None) -> Iterator[None]:
    """Builds with `repo_map_tokens = tokens` (None: the workspace's own settings)."""
    from cairn.commands import context_dry_run

    if tokens is None:
        yield
        return
    load = context_dry_run.workspace_settings

    def with_budget(workspace: Path) -> Settings:
        return load(workspace).model_copy(update={"repo_map_tokens": tokens})

    context_dry_run.workspace_settings = with_budget
    try:
        yield
    finally:
        context_dry_run.workspace_settings = load


def map_files(text: str) -> list[str]:
    """The files of a map text, in map order (its unindented `path:` lines)."""
    return [
        line[: -len(FILE_SUFFIX)]
        for line in text.splitlines()
        if line.endswith(FILE_SUFFIX) and not line.startswith((" ", "\t"))
    ]


def where_files(text: str) -> list[str]:
    """The files of a "Where to look" block, in its order (lines `N. path — reason`)."""
    out: list[str] = []
    for line in text.splitlines():
        head, dot, rest = line.partition(". ")
        if dot and head.strip().isdigit():
            out.append(rest.split(" ", 1)[0])
    return out


def first_call(tree: Path, message: str, tokens: int | None) -> tuple[str, list[str]]:
    """(the context's text bar the user's message, the where-to-look order) of one build."""
    from cairn.commands.context_dry_run import build_dry_run

    with map_budget(tokens):
        built = build_dry_run(tree, [], message, None, MODEL)
    texts: list[str] = []
    where: list[str] = []
    mapped: list[str] = []
    for block in built.blocks:
        if not block.included or block.source == "user":
            continue
        texts.append(block.text)
        if block.source == "repomap" and block.ref == WHERE_REF:
            where = where_files(block.text)
        elif block.source == "repomap" and block.ref == MAP_REF:
            mapped = map_files(block.text)
    order = where + [rel for rel in mapped if rel not in set(where)]
    return "\n".join(texts), order


def measure(
    instance: Instance, tree: Path, budgets: Sequence[int], aider: bool, fresh: bool = False
) -> Outcome:
    """Every build of one instance (the default budget first: its time is the cold one),
    then Aider's maps."""
    outcome = Outcome(instance)
    for label, tokens in [("default", None), *((str(b), b) for b in budgets)]:
        start = time.perf_counter()
        text, order = first_call(tree, instance.text, tokens)
        elapsed = time.perf_counter() - start
        if label == "default":
            outcome.cold, outcome.order = elapsed, order
        else:
            outcome.warm.append(elapsed)
        outcome.shown[label] = any(rel in text for rel in instance.gold)
    outcome.bm25 = bm25_ranking(tree, instance.text)
    if aider and budgets:
        maps = aider_maps(instance.id, tree, instance.text, budgets, MODEL, fresh)
        for budget in budgets:
            text = str(maps[str(budget)]["text"])
            outcome.aider[str(budget)] = any(rel in text for rel in instance.gold)
        outcome.aider_seconds = float(str(maps["wall"]["seconds"]))
    return outcome


def share(values: Sequence[bool]) -> str:
    return f"{100 * sum(values) / len(values):.1f}%" if values else "-"


def accuracy(ranks: Sequence[int | None], k: int) -> float:
    return sum(1 for r in ranks if r is not None and r <= k) / len(ranks) if ranks else 0.0


def summary(outcomes: Sequence[Outcome], labels: Sequence[str]) -> dict[str, object]:
    """The figures of a group of outcomes."""
    ranks = [o.rank(o.order) for o in outcomes]
    bm25 = [o.rank(o.bm25) for o in outcomes]
    sample = [o for o in outcomes if o.aider]
    return {
        "instances": len(outcomes),
        "shown": {label: share([o.shown[label] for o in outcomes]) for label in labels},
        "aider_instances": len(sample),
        "aider_shown": {
            label: share([o.aider[label] for o in sample]) for label in labels if label in AIDER_OF
        }
        if sample
        else {},
        "cairn_on_aider_sample": {
            label: share([o.shown[label] for o in sample]) for label in labels if label in AIDER_OF
        }
        if sample
        else {},
        "acc": {f"@{k}": round(100 * accuracy(ranks, k), 1) for k in TOP_K},
        "bm25_acc": {f"@{k}": round(100 * accuracy(bm25, k), 1) for k in TOP_K},
    }


def render(outcomes: Sequence[Outcome], labels: Sequence[str], missing: dict[str, str]) -> str:
    """The report (see the module docstring)."""
    lines: list[str] = []
    groups: dict[str, list[Outcome]] = {}
    for o in outcomes:
        groups.setdefault(o.instance.project, []).append(o)
    aider_labels = [
        label for label in labels if label in AIDER_OF and any(o.aider for o in outcomes)
    ]
    header = ["repository", "n", *(f"shown {label}" for label in labels)]
    header += ["Aider n", *(f"Aider {label}" for label in aider_labels)]
    header += [f"Acc@{k}" for k in TOP_K] + [f"BM25@{k}" for k in TOP_K]
    lines.append(" | ".join(header))
    for name, group in [*sorted(groups.items()), ("ALL", list(outcomes))]:
        s = summary(group, labels)
        shown, peer = s["shown"], s["aider_shown"]
        acc = s["acc"]
        bm = s["bm25_acc"]
        assert isinstance(shown, dict) and isinstance(acc, dict) and isinstance(bm, dict)
        assert isinstance(peer, dict)
        row = [name, str(len(group)), *(shown[label] for label in labels)]
        if aider_labels:
            row += [str(s["aider_instances"]), *(peer.get(label, "-") for label in aider_labels)]
        row += [f"{acc[f'@{k}']}%" for k in TOP_K] + [f"{bm[f'@{k}']}%" for k in TOP_K]
        lines.append(" | ".join(row))
    if outcomes:
        cold = statistics.median(o.cold for o in outcomes)
        warm = statistics.median(t for o in outcomes for t in o.warm) if labels[1:] else 0.0
        lines.append(f"median build time: cold {cold:.2f} s (index included), warm {warm:.2f} s")
        if aider_labels:
            sample = [o for o in outcomes if o.aider]
            peer_time = statistics.median(o.aider_seconds for o in sample)
            same = summary(sample, labels)["cairn_on_aider_sample"]
            assert isinstance(same, dict)
            lines.append(
                f"Aider ran on {len(sample)} of {len(outcomes)} instances: median "
                f"{peer_time:.1f} s each (a fresh process, its tag cache cold, every budget); "
                "Cairn on the same instances: "
                + ", ".join(f"{label} {value}" for label, value in same.items())
            )
    worst = sorted(outcomes, key=lambda o: (-(o.rank(o.order) or 10**6), o.instance.id))[:WORST]
    lines.append("worst instances (rank of the edited file; what came first instead):")
    for o in worst:
        rank = o.rank(o.order)
        instead = ", ".join(o.order[:3]) or "(nothing)"
        lines.append(
            f"  {o.instance.id}: gold {', '.join(o.instance.gold)} at "
            f"{rank if rank is not None else 'absent'}; first: {instead}"
        )
    for instance_id, why in sorted(missing.items()):
        lines.append(f"NOT MATERIALISED {instance_id}: {why}")
    return "\n".join(lines)


def append_result(record: dict[str, object], path: Path = RESULTS) -> None:
    """Append one run's figures as a JSON line (the one place results are written)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as out:
        out.write(json.dumps(record, sort_keys=True) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--only", nargs="*", default=[], help="instance ids to run")
    parser.add_argument("--repos", default="", help="comma-separated repository names")
    parser.add_argument("--budgets", default=",".join(map(str, DEFAULT_BUDGETS)))
    parser.add_argument("--label", default="", help="a name for this run in the results file")
    parser.add_argument("--no-aider", action="store_true", help="leave Aider's map out")
    parser.add_argument(
        "--aider-per-repo",
        type=int,
        default=0,
        help="run Aider on the first N instances of each repository only (0: all)",
    )
    parser.add_argument(
        "--aider-fresh", action="store_true", help="recompute Aider's maps (else cached)"
    )
    parser.add_argument(
        "--write",
        action="store_true",
        help="record a whole-set run in bench/history and RESULTS.md",
    )
    args = parser.parse_args()
    budgets = [int(b) for b in args.budgets.split(",") if b]
    repos = {r for r in args.repos.split(",") if r}
    instances = [
        i
        for i in load()
        if (not args.only or i.id in args.only) and (not repos or i.project in repos)
    ]
    outcomes: list[Outcome] = []
    missing: dict[str, str] = {}
    aider_counts: dict[str, int] = {}
    if not args.no_aider:
        aider_setup()
    for instance in instances:
        tree = materialise(instance)
        if isinstance(tree, str):
            missing[instance.id] = tree
            print(f"{instance.id}: not materialised: {tree}", flush=True)
            continue
        peers = aider_counts.get(instance.project, 0)
        run_aider = not args.no_aider and (not args.aider_per_repo or peers < args.aider_per_repo)
        aider_counts[instance.project] = peers + run_aider
        outcome = measure(instance, tree, budgets, run_aider, args.aider_fresh)
        rank = outcome.rank(outcome.order)
        print(
            f"{instance.id}: rank {rank}, bm25 {outcome.rank(outcome.bm25)}, shown "
            + " ".join(f"{k}={'y' if v else 'n'}" for k, v in outcome.shown.items())
            + (" aider " if outcome.aider else "")
            + " ".join(f"{k}={'y' if v else 'n'}" for k, v in outcome.aider.items())
            + f", {outcome.cold:.1f} s",
            flush=True,
        )
        outcomes.append(outcome)
    labels = ["default", *map(str, budgets)]
    print(render(outcomes, labels, missing))
    groups: dict[str, list[Outcome]] = {}
    for o in outcomes:
        groups.setdefault(o.instance.project, []).append(o)
    result: dict[str, object] = {
        "bench": "localize",
        "label": args.label,
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "all": summary(outcomes, labels),
        "repositories": {name: summary(g, labels) for name, g in sorted(groups.items())},
        "not_materialised": missing,
        "ranks": {o.instance.id: o.rank(o.order) for o in outcomes},
    }
    append_result(result)
    if args.write and not args.only and not repos:
        record(this_run("localize", figures(result), render(outcomes, labels, missing)))


def figures(result: dict[str, object]) -> list[Figure]:
    """The figures of a whole-set run for the results page (Acc@k against BM25's)."""
    overall = result["all"]
    assert isinstance(overall, dict)
    acc, bm25, shown = overall["acc"], overall["bm25_acc"], overall["shown"]
    peer, sample = overall["aider_shown"], overall["aider_instances"]
    found = [
        Figure(
            f"where to look Acc@{k} (higher is better)", acc[f"@{k}"], "%", bm25[f"@{k}"], "BM25"
        )
        for k in (1, 5, 10)
    ]
    found += [
        Figure(
            f"edited file in the first call's context, budget {label}",
            float(share.rstrip("%")),
            "%",
            float(peer[label].rstrip("%")) if label in peer else None,
            f"Aider's map ({sample} instances)" if label in peer else "",
        )
        for label, share in shown.items()
    ]
    return found


if __name__ == "__main__":
    main()
