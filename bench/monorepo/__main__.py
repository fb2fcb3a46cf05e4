"""Benchmark: the repository map's index on a ~20k-file monorepo and a sympy-sized tree.

    git archive <commit> server grammars | tar -x -C /tmp/peer   # the peer's sources
    .venv/bin/python -m bench.monorepo --peer /tmp/peer/server [--repeats N] [--write]

The trees are built from registry packages on first use (`bench/monorepo/tree.py`,
git-ignored under `bench/.work/monorepo`). Each side — this tree and the peer's
`server/` (a previous commit, put first on `PYTHONPATH`) — runs in fresh processes
(`bench/monorepo/driver.py`: gather's repository-map step for a first call to
gpt-4.1, message only, no file in play) with its own index folder:

- monorepo cold: its index deleted, one process lists, scans and ranks everything;
- monorepo warm, new process: the index of the cold run, a new process (median of the
  repeats); the map's part (index load, refresh, where-to-look, map) and the whole
  process up to the first map (imports and the tokenizer included);
- peak RSS of the cold and warm processes (largest of the process and its helpers);
- sympy first call cold: `cairn context --model openai/gpt-4.1 --message ...` in a fresh
  copy of the sympy sources, wall time of the whole command (process start included);
- sympy warm ranking: where-to-look for three more messages in the process that served
  the first call (median).

Wall and CPU seconds are both reported: on a shared machine the wall time follows the
load, the CPU time much less.

The two sides alternate within each repeat, so load on the shared machine hits both; the
blocks they build must be the same bytes (the run says so). Aider's map is not the peer
here: its cold map of the sympy corpus alone takes about a minute (`bench.repomap_vs_aider`),
a 20k-file tree would take many. `--write` records the run (`bench/history/monorepo.jsonl`).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench.harness.paths import ROOT
from bench.harness.records import Figure
from bench.harness.writer import record, this_run
from bench.monorepo.tree import HOME, fresh_copy_of, monorepo, sympy_tree

HERE = ROOT / "server"
DRIVER = Path(__file__).resolve().parent / "driver.py"
MODEL = "openai/gpt-4.1"
WINDOW = 1_047_576
CHILD_TIMEOUT_S = 1800
MONOREPO_MESSAGE = (
    "Tensor.index_put_ raises RuntimeError when boolean-mask values need broadcasting:"
    " torch/_refs/__init__.py index_put fails in _prims_common check_same_shape"
)
SYMPY_MESSAGE = (
    "nsimplify(0.333333333, rational=True) returns a Float inside Poly.factor_list when"
    " the domain is QQ; factor_terms then loses the leading coefficient.\n"
    'File "sympy/simplify/simplify.py", line 1410, in nsimplify'
)
WARM_MESSAGES = (
    "QuerySet.bulk_create ignores db_default on PostgreSQL",
    "Matrix.eigenvals hangs on a 4x4 symbolic matrix with rational entries",
    "Stream.mapEffect with concurrency drops the last element",
)
DESCRIPTION = "The repository map's index on a ~20k-file monorepo and a sympy-sized tree"


def _run(command: list[str], src: Path) -> str:
    env = {**os.environ, "PYTHONPATH": str(src)}
    done = subprocess.run(
        command, capture_output=True, text=True, env=env, timeout=CHILD_TIMEOUT_S, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"{src}: {command[1:3]} failed:\n{done.stderr[-4000:]}")
    return done.stdout


def drive(src: Path, root: Path, cache: Path, message: str) -> dict[str, object]:
    """One driver process for the side `src`: its phases, rankings, RSS and digest."""
    args = {
        "root": str(root),
        "cache_dir": str(cache),
        "model": MODEL,
        "window": WINDOW,
        "message": message,
        "messages": list(WARM_MESSAGES),
    }
    out = _run([sys.executable, str(DRIVER), json.dumps(args)], src)
    return json.loads(out.strip().splitlines()[-1])


def context_cold(src: Path, tree: Path, target: Path) -> tuple[float, float]:
    """Wall and CPU seconds (its helpers included) of `cairn context` in a fresh copy of
    `tree` (process start included)."""
    fresh_copy_of(tree, target)
    command = [sys.executable, "-m", "cairn", "context", "--workspace", str(target)]
    command += ["--model", MODEL, "--message", SYMPY_MESSAGE, "--json"]
    before = _children_cpu()
    started = time.perf_counter()
    out = _run(command, src)
    elapsed = time.perf_counter() - started
    blocks = json.loads(out)["blocks"]
    if not any(b["source"] == "repomap" and b["included"] for b in blocks):
        raise SystemExit(f"{src}: the repository map is missing from the context")
    return elapsed, _children_cpu() - before


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _map_s(result: dict[str, object], clock: str = "phases") -> float:
    """The map's part of a driver run: index load to the first map (wall or CPU)."""
    phases: dict[str, float] = result[clock]  # type: ignore[assignment]
    return phases["first map"] - phases["tokenizer"]


def _peak_mb(result: dict[str, object]) -> float:
    return max(int(result["rss_kb"]), int(result["children_rss_kb"])) / 1024  # type: ignore[call-overload]


def one_side(src: Path, side: str, tree: Path, sympy: Path) -> dict[str, float | str]:
    """Cold and warm monorepo runs, then the sympy first call and rankings, for one side."""
    cache = HOME / f"cache-{side}"
    shutil.rmtree(cache, ignore_errors=True)
    cold = drive(src, tree, cache, MONOREPO_MESSAGE)
    warm = drive(src, tree, cache, MONOREPO_MESSAGE)
    sympy_cold, sympy_cold_cpu = context_cold(src, sympy, HOME / f"sympy-{side}")
    sympy_cache = HOME / f"sympy-cache-{side}"
    drive(src, sympy, sympy_cache, SYMPY_MESSAGE)  # warms the index
    sympy_warm = drive(src, sympy, sympy_cache, SYMPY_MESSAGE)
    warm_phases: dict[str, float] = warm["phases"]  # type: ignore[assignment]
    sample: dict[str, float | str] = {
        "cold_s": _map_s(cold),
        "warm_map_s": _map_s(warm),
        "warm_map_cpu_s": _map_s(warm, "cpu"),
        "warm_process_s": warm_phases["first map"],
        "warm_load_s": warm_phases["index loaded"] - warm_phases["tokenizer"],
        "monorepo_ranking_s": statistics.median(warm["ranking_s"]),  # type: ignore[arg-type]
        "monorepo_ranking_cpu_s": statistics.median(warm["ranking_cpu_s"]),  # type: ignore[arg-type]
        "cold_rss_mb": _peak_mb(cold),
        "warm_rss_mb": _peak_mb(warm),
        "sympy_cold_s": sympy_cold,
        "sympy_cold_cpu_s": sympy_cold_cpu,
        "sympy_ranking_s": statistics.median(sympy_warm["ranking_s"]),  # type: ignore[arg-type]
        "sympy_ranking_cpu_s": statistics.median(sympy_warm["ranking_cpu_s"]),  # type: ignore[arg-type]
        "digest": f"{warm['digest']}/{sympy_warm['digest']}",
        "cold_digest": f"{cold['digest']}",
    }
    shown = " ".join(
        f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}" for k, v in sample.items()
    )
    print(f"{side}: {shown}", file=sys.stderr, flush=True)
    return sample


MONO = "monorepo:"
WARM = "monorepo: warm index, new process,"
FIGURES = (
    ("cold_s", f"{MONO} cold map in a new process, wall (lower is better)", "s", 2),
    ("warm_map_s", f"{WARM} index load to the first map, wall (lower is better)", "s", 3),
    ("warm_map_cpu_s", f"{WARM} index load to the first map, CPU (lower is better)", "s", 3),
    ("warm_process_s", f"{WARM} process start to the first map, wall (lower is better)", "s", 3),
    ("cold_rss_mb", f"{MONO} peak RSS of the cold process (lower is better)", "MB", 0),
    ("warm_rss_mb", f"{MONO} peak RSS of the warm process (lower is better)", "MB", 0),
    ("monorepo_ranking_s", f"{MONO} warm where-to-look ranking, wall (lower is better)", "s", 3),
    ("monorepo_ranking_cpu_s", f"{MONO} warm where-to-look ranking, CPU (lower is better)", "s", 3),
    ("sympy_cold_s", "sympy: cairn context first call cold, wall (lower is better)", "s", 2),
    ("sympy_cold_cpu_s", "sympy: cairn context first call cold, CPU (lower is better)", "s", 2),
    ("sympy_ranking_s", "sympy: warm where-to-look ranking, wall (lower is better)", "s", 4),
    ("sympy_ranking_cpu_s", "sympy: warm where-to-look ranking, CPU (lower is better)", "s", 4),
)
"""(key, figure name, unit, digits): medians of the repeats. CPU is this process's (the
cold `cairn context`: with its helpers), which a loaded machine inflates less than wall."""


def main() -> None:
    parser = argparse.ArgumentParser(description=DESCRIPTION)
    parser.add_argument("--peer", type=Path, required=True, help="the peer's server/ folder")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--write", action="store_true", help="record the run")
    args = parser.parse_args()
    tree, sympy = monorepo(), sympy_tree()
    sides = {"this tree": HERE, "peer": args.peer.resolve()}
    started = time.perf_counter()
    samples: dict[str, list[dict[str, float | str]]] = {side: [] for side in sides}
    for _ in range(args.repeats):
        for index, (side, src) in enumerate(sides.items()):
            samples[side].append(one_side(src, f"side{index}", tree, sympy))
    medians = {
        side: {key: statistics.median(float(s[key]) for s in runs) for key, *_ in FIGURES}
        for side, runs in samples.items()
    }
    digests = {side: {str(s["digest"]) for s in runs} for side, runs in samples.items()}
    same = digests["this tree"] == digests["peer"] and len(digests["peer"]) == 1
    peer_label = f"peer tree {args.peer}"
    figures = [
        Figure(
            name,
            round(medians["this tree"][key], digits),
            unit,
            round(medians["peer"][key], digits),
            peer_label,
        )
        for key, name, unit, digits in FIGURES
    ]
    load = os.getloadavg()
    lines = ["## Repository map index on a monorepo and a sympy-sized tree", ""]
    lines.append(
        f"- {args.repeats} repeats, sides alternating; load at the end {load[0]:.1f}"
        f" {load[1]:.1f} {load[2]:.1f}; {(time.perf_counter() - started) / 60:.0f} min"
    )
    lines.append(f"- Same blocks on both sides (warm monorepo, warm sympy): {same} {digests}")
    lines += ["", "| figure | this tree | peer |", "| --- | --- | --- |"]
    lines += [f"| {f.name} | {f.value} {f.unit} | {f.peer} {f.unit} |" for f in figures]
    text = "\n".join(lines)
    print(text)
    if args.write:
        record(this_run("monorepo", figures, text))


if __name__ == "__main__":
    main()
