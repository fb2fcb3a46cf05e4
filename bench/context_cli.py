"""`cairn context` wall time on a large workspace: this tree vs a peer source tree, same run.

Usage:
    git archive <commit> server grammars | tar -x -C /tmp/peer   # the peer's sources and data
    .venv/bin/python -m bench.context_cli --workspace /tmp/django --peer /tmp/peer/server \
        [--file django/db/models/query.py --message "..."] [--repeats 5] [--write]

Each side runs `python -m cairn context --workspace W --json` in a new process
(`PYTHONPATH` picks the side's `server/`): one untimed warm-up (this tree
writes the repository-map index under `.cairn/cache/` then; the OS file cache
warms for both), then `--repeats` timed runs, interleaved so both see the same
load. Prints the median wall time of each side and the ratio peer / this tree,
and checks that both built the same blocks (source, ref, included) with the
repository map included (a peer tree without `grammars/` beside its `server/`
would time a failing map). `--write` records the run (`bench/history/context_cli.jsonl`).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench.harness.paths import ROOT
from bench.harness.records import Figure
from bench.harness.writer import record, this_run

HERE = ROOT / "server"
TRACE_DIR = ".cairn"
DESCRIPTION = "`cairn context` wall time on a large workspace: this tree vs a peer source tree"


Block = tuple[str, str | None, bool]


def run(src: Path, workspace: Path, extra: list[str]) -> tuple[float, list[Block]]:
    """One `cairn context --json` with `src` on the path: (wall seconds, its blocks)."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    command = [sys.executable, "-m", "cairn", "context", "--workspace", str(workspace), "--json"]
    command += extra
    start = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{src}: cairn context failed:\n{done.stderr}")
    manifest = json.loads(done.stdout)
    blocks = [(b["source"], b.get("ref"), b["included"]) for b in manifest["blocks"]]
    if not any(source == "repomap" and included for source, _, included in blocks):
        raise SystemExit(f"{src}: the repository map is missing from the context")
    return elapsed, blocks


def main() -> None:
    parser = argparse.ArgumentParser(description=DESCRIPTION)
    parser.add_argument("--workspace", type=Path, required=True)
    parser.add_argument("--peer", type=Path, required=True, help="the peer's server/ folder")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--file", help="a file in play (relative to the workspace)")
    parser.add_argument("--message", default="", help="the user message")
    parser.add_argument(
        "--write", action="store_true", help="record the run and regenerate bench/RESULTS.md"
    )
    args = parser.parse_args()
    extra = ["--message", args.message] + (["--file", args.file] if args.file else [])
    workspace = args.workspace.resolve()
    shutil.rmtree(workspace / TRACE_DIR, ignore_errors=True)
    sides = {"this tree": HERE, "peer": args.peer.resolve()}
    times: dict[str, list[float]] = {name: [] for name in sides}
    blocks: dict[str, list[Block]] = {}
    for name, src in sides.items():
        first, blocks[name] = run(src, workspace, extra)
        print(f"{name}: first (untimed) run {first:.2f} s")
    for _ in range(args.repeats):
        for name, src in sides.items():
            elapsed, _ = run(src, workspace, extra)
            times[name].append(elapsed)
    lines: list[str] = []
    for name, values in times.items():
        listed = ", ".join(f"{v:.2f}" for v in values)
        lines.append(f"{name}: median {statistics.median(values):.2f} s ({listed})")
    ours, peer = statistics.median(times["this tree"]), statistics.median(times["peer"])
    lines.append(f"ratio peer / this tree: {peer / ours:.2f}x")
    lines.append(
        f"same blocks: {blocks['this tree'] == blocks['peer']} ({len(blocks['peer'])} blocks)"
    )
    load = os.getloadavg()
    lines.append(f"load average: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    text = "\n".join(lines)
    print(text)
    if args.write:
        figure = Figure(
            f"cairn context on {workspace.name}, {args.file or 'no file'} in play,"
            " median wall (lower is better)",
            round(ours, 2),
            "s",
            round(peer, 2),
            f"peer tree {args.peer}",
        )
        record(this_run("context_cli", [figure], text))


if __name__ == "__main__":
    main()
