"""Benchmark: the map of a repository holding pathological files, against the same
repository without them.

    .venv/bin/python -m bench.repomap_pathological [--corpus DIR] [--repeats N] [--no-write]

The corpus (default: this repository's `server/`) is copied to a temporary folder three
times: as it is; with a 360 KB one-line minified bundle (`static/app.bundle.js`, about
10,000 functions), 2,000 of which another module calls; with four modules of 6,000
`x = i` lines each (one name defined 24,000 times, mentioned). Each copy gets a cold
8k-token map (no cache) in this process, `--repeats` times; the medians and their ratio
to the plain copy are recorded (`bench/history/repomap_pathological.jsonl`,
`bench/RESULTS.md`) unless `--no-write`. Put another
checkout's `server/` first on `PYTHONPATH` to measure that code.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench.harness.machine import current_machine, head_commit, utc_now
from bench.harness.paths import ROOT
from bench.harness.records import Figure
from bench.harness.writer import invocation, record, this_run
from cairn.files.ignore import IgnoreRules
from cairn.repomap.map import RepoMap
from cairn.tokens.counter import counter_for

DEFAULT_CORPUS = ROOT / "server"
BUDGET = 8192
MODEL = "gpt-4o"
DEFAULT_REPEATS = 3
BUNDLE_BYTES = 360_000
BUNDLE_NAMES_USED = 2000
"""How many of the bundle's functions another module calls (so the map ranks them)."""
SAME_NAME_FILES = 4
SAME_NAME_LINES = 6000


def _bundle(root: Path) -> None:
    pieces: list[str] = []
    size = index = 0
    while size < BUNDLE_BYTES:
        piece = f"function render_part{index}(a){{return a+{index}}}var v{index}=1;"
        pieces.append(piece)
        size += len(piece)
        index += 1
    (root / "static").mkdir()
    (root / "static" / "app.bundle.js").write_text("".join(pieces) + "\n")
    calls = "".join(f"        render_part{i}(v{i}),\n" for i in range(BUNDLE_NAMES_USED))
    (root / "uses_bundle.py").write_text(f"def start():\n    return [\n{calls}    ]\n")


def _same_names(root: Path) -> None:
    for number in range(SAME_NAME_FILES):
        body = "".join(f"x = {i}\n" for i in range(SAME_NAME_LINES))
        (root / f"generated_values_{number}.py").write_text(body)
    (root / "uses_values.py").write_text("def total():\n    return x + x\n")


SCENARIOS: dict[str, Callable[[Path], None] | None] = {
    "plain": None,
    "with a 360 KB minified bundle": _bundle,
    "with 4 x 6,000 `x = i` lines": _same_names,
}


def _cold(root: Path, count: Callable[[str], int]) -> float:
    rules = IgnoreRules.for_folder(root)
    started = time.perf_counter()
    RepoMap(root, rules).render([], {"x", "render_part7", "start", "total"}, BUDGET, count)
    return time.perf_counter() - started


def measure(corpus: Path, repeats: int) -> dict[str, float]:
    count = counter_for(MODEL)
    count("warm up")
    medians: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as scratch:
        for number, (name, add) in enumerate(SCENARIOS.items()):
            root = Path(scratch) / f"copy{number}"
            shutil.copytree(corpus, root, ignore=shutil.ignore_patterns("__pycache__"))
            if add is not None:
                add(root)
            samples = [_cold(root, count) for _ in range(repeats)]
            medians[name] = statistics.median(samples)
            print(f"{name}: {medians[name]:.3f} s", file=sys.stderr, flush=True)
    return medians


def render(corpus: Path, medians: dict[str, float], repeats: int) -> str:
    plain = medians["plain"]
    rows = [f"| {name} | {value:.3f} | {value / plain:.2f}× |" for name, value in medians.items()]
    return "\n".join(
        [
            f"## Repository map with pathological files (commit {head_commit()})",
            "",
            f"- Command: `{command_of(repeats)}`",
            f"- Machine: {current_machine().describe()} (shared, load at the end), {utc_now()} UTC",
            f"- Corpus: a copy of `{corpus.name}/`; cold {BUDGET}-token map, no cache, one "
            "process; medians; ratio to the plain copy in the same run",
            "",
            "| repository | cold map (s) | ratio |",
            "| --- | --- | --- |",
            *rows,
            "",
        ]
    )


def command_of(repeats: int) -> str:
    """The command that reruns this measurement."""
    return invocation("repomap_pathological", ["--repeats", str(repeats)])


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--repeats", type=int, default=DEFAULT_REPEATS)
    parser.add_argument("--no-write", action="store_true")
    options = parser.parse_args()
    medians = measure(options.corpus.resolve(), options.repeats)
    text = render(options.corpus, medians, options.repeats)
    sys.stdout.write(text)
    if not options.no_write:
        plain = medians["plain"]
        figures = [
            Figure(
                f"cold 8k map, {name} (lower is better)",
                round(value, 3),
                "s",
                round(plain, 3),
                "the plain copy",
            )
            for name, value in medians.items()
            if name != "plain"
        ]
        record(this_run("repomap_pathological", figures, text, command_of(options.repeats)))


if __name__ == "__main__":
    main()
