"""Benchmark: the map's next call after a file changed on disk, against the same edit made
in an open buffer, in one warm process.

    .venv/bin/python bench/repomap_disk_edit.py [--corpus DIR] [--edits N] [--no-write]

The corpus defaults to the Django wheel (`pip download --no-deps django`, unzipped into
`bench/.work/django`). A warm map (index in a cache folder) renders an 8k-token map with
two files in play; then, `--edits` times each, the same statement is typed into a
function body of the first file in play, once as a buffer edit (`update_buffer`, what an
editor's didChange gives) and once written to disk (what `edit_file` does without an
editor: the next render re-stats the folder, re-scans the file and saves the index).
Medians and p95 of the two, and their ratio (disk / buffer), are appended to
`bench/RESULTS.md` unless `--no-write`. Run it with another checkout's `server/` on
`PYTHONPATH` to measure that code the same way.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

from cairn.files.ignore import IgnoreRules
from cairn.repomap.map import RepoMap
from cairn.tokens.counter import counter_for

BENCH_DIR = Path(__file__).resolve().parent
WORK = BENCH_DIR / ".work"
RESULTS = BENCH_DIR / "RESULTS.md"
DJANGO = WORK / "django"
CHAT = ("django/db/models/query.py", "django/db/models/base.py")
MENTIONED = {"QuerySet", "Model", "Manager"}
BUDGET = 8192
MODEL = "gpt-4o"
MARKER = "\n        return "
DEFAULT_EDITS = 20
P95 = 0.95


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


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(P95 * len(ordered)))]


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
            f"| {kind} | {statistics.median(values) * 1000:.1f} | {_p95(values) * 1000:.1f} |"
        )
    ratio = statistics.median(times["disk"]) / statistics.median(times["buffer"])
    commit = subprocess.run(
        ["git", "-C", str(BENCH_DIR), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    return "\n".join(
        [
            f"## Repository map: next call after a disk edit vs a buffer edit (commit {commit})",
            "",
            f"- Command: `.venv/bin/python bench/repomap_disk_edit.py --edits {edits}`",
            f"- Machine: {platform.machine()}, {os.cpu_count()} cores shared with the other "
            f"engineers' work (load average {os.getloadavg()[0]:.1f} at the end), Python "
            f"{platform.python_version()}, {time.strftime('%Y-%m-%d', time.gmtime())}",
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


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--corpus", type=Path)
    parser.add_argument("--edits", type=int, default=DEFAULT_EDITS)
    parser.add_argument("--no-write", action="store_true")
    options = parser.parse_args()
    root = (options.corpus or _django()).resolve()
    text = render(root, measure(root, options.edits), options.edits)
    sys.stdout.write(text)
    if not options.no_write:
        with RESULTS.open("a", encoding="utf-8") as handle:
            handle.write("\n" + text)


if __name__ == "__main__":
    main()
