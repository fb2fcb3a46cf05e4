"""Benchmark: the map's next call after a file changed on disk, against the same edit made
in an open buffer, in one warm process.

    .venv/bin/python -m bench.repomap_disk_edit [--corpus DIR] [--edits N] [--no-write]

The corpus defaults to the Django wheel (`pip download --no-deps django`, unzipped into
`bench/.work/django`). A warm map (index in a cache folder) renders an 8k-token map with
two files in play; then, `--edits` times each, the same statement is typed into a
function body of the first file in play, once as a buffer edit (`update_buffer`, what an
editor's didChange gives) and once written to disk (what `edit_file` does without an
editor: the next render re-stats the folder, re-scans the file and saves the index).
Medians and p95 of the two, and their ratio (disk / buffer), are recorded
(`bench/history/repomap_disk_edit.jsonl`, `bench/RESULTS.md`) unless `--no-write`. Run it with another checkout's `server/` on
`PYTHONPATH` to measure that code the same way.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

from bench.harness.machine import current_machine, head_commit, utc_now
from bench.harness.paths import WORK
from bench.harness.records import Figure
from bench.harness.timing import P95, percentile
from bench.harness.writer import invocation, record, this_run
from cairn.files.ignore import IgnoreRules
from cairn.repomap.map import RepoMap
from cairn.tokens.counter import counter_for

DJANGO = WORK / "django"
CHAT = ("django/db/models/query.py", "django/db/models/base.py")
MENTIONED = {"QuerySet", "Model", "Manager"}
BUDGET = 8192
MODEL = "gpt-4o"
MARKER = "\n        return "
DEFAULT_EDITS = 20


def _django() -> Path:
    if not (DJANGO / "django").is_dir():
        wheels = WORK / "wheels"
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "-q",
                "--no-deps",
                "django",
                "-d",
                str(wheels),
            ],
            check=True,
        )
        with zipfile.ZipFile(sorted(wheels.glob("django-*.whl"))[-1]) as archive:
            archive.extractall(DJANGO)
    return DJANGO


def _edited(original: str, step: int) -> str:
    at = original.index(MARKER) + 1
    return original[:at] + f"        edited_probe_{step} = len([])\n" + original[at:]


def _timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def measure(root: Path, edits: int) -> dict[str, list[float]]:
    count = counter_for(MODEL)
    count("warm up")
    rules = IgnoreRules.for_folder(root)
    play = [root / rel for rel in CHAT]
    target = play[0]
    original = target.read_text(encoding="utf-8")
    times: dict[str, list[float]] = {"buffer": [], "disk": []}
    with tempfile.TemporaryDirectory() as cache:
        RepoMap(root, rules, Path(cache)).render(play, MENTIONED, BUDGET, count)
        repomap = RepoMap(root, rules, Path(cache))
        repomap.render(play, MENTIONED, BUDGET, count)
        try:
            for step in range(edits):
                text = _edited(original, step)

                def buffer(text: str = text) -> None:
                    repomap.update_buffer(target, text)
                    repomap.render(play, MENTIONED, BUDGET, count)

                times["buffer"].append(_timed(buffer))
                repomap.update_buffer(target, None)
                repomap.render(play, MENTIONED, BUDGET, count)

                def disk(text: str = text) -> None:
                    target.write_text(text, encoding="utf-8")
                    repomap.render(play, MENTIONED, BUDGET, count)

                times["disk"].append(_timed(disk))
        finally:
            target.write_text(original, encoding="utf-8")
    return times


def render(root: Path, times: dict[str, list[float]], edits: int) -> str:
    files = sum(1 for path in root.rglob("*.py"))
    rows = []
    for kind in ("buffer", "disk"):
        values = times[kind]
        rows.append(
            f"| {kind} | {statistics.median(values) * 1000:.1f} | {percentile(values, P95) * 1000:.1f} |"
        )
    ratio = statistics.median(times["disk"]) / statistics.median(times["buffer"])
    return "\n".join(
        [
            f"## Repository map: next call after a disk edit vs a buffer edit (commit {head_commit()})",
            "",
            f"- Command: `{command_of(edits)}`",
            f"- Machine: {current_machine().describe()} (shared, load at the end), {utc_now()} UTC",
            f"- Corpus: {root.name} ({files} .py files); files in play {', '.join(CHAT)}; "
            f"{BUDGET}-token map; index in a cache folder (saved after each call)",
            "",
            "| edit | median (ms) | p95 (ms) |",
            "| --- | --- | --- |",
            *rows,
            f"| ratio disk / buffer (medians) | {ratio:.2f}× | |",
            "",
        ]
    )


def command_of(edits: int) -> str:
    """The command that reruns this measurement."""
    return invocation("repomap_disk_edit", ["--edits", str(edits)])


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--corpus", type=Path)
    parser.add_argument("--edits", type=int, default=DEFAULT_EDITS)
    parser.add_argument("--no-write", action="store_true")
    options = parser.parse_args()
    root = (options.corpus or _django()).resolve()
    times = measure(root, options.edits)
    text = render(root, times, options.edits)
    sys.stdout.write(text)
    if not options.no_write:
        figure = Figure(
            f"{root.name}: next 8k map after a disk edit, median (lower is better)",
            round(statistics.median(times["disk"]) * 1000, 1),
            "ms",
            round(statistics.median(times["buffer"]) * 1000, 1),
            "the same edit in a buffer",
        )
        record(this_run("repomap_disk_edit", [figure], text, command_of(options.edits)))


if __name__ == "__main__":
    main()
