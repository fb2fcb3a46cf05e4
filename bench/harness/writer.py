"""The one writer of benchmark results: record a run, regenerate `bench/RESULTS.md`."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

from bench.harness import page
from bench.harness.machine import current_machine, head_commit, utc_now
from bench.harness.paths import HISTORY, RESULTS
from bench.harness.records import Figure, Run, append_run, load_runs


def results_text(history: Path = HISTORY) -> str:
    """What `bench/RESULTS.md` must say for the runs in `history`."""
    return page.render(load_runs(history))


def regenerate(history: Path = HISTORY, results: Path = RESULTS) -> Path:
    """Rewrite `results` from `history`; returns it."""
    results.write_text(results_text(history), encoding="utf-8")
    return results


def record(run: Run, history: Path = HISTORY, results: Path = RESULTS) -> Path:
    """Append `run` to its history file and regenerate the results page; returns the history file."""
    path = append_run(history, run)
    regenerate(history, results)
    return path


def invocation(benchmark: str, args: Sequence[str] | None = None) -> str:
    """The command that reruns `benchmark` with `args` (this process's arguments by default)."""
    given = sys.argv[1:] if args is None else list(args)
    return shlex.join([".venv/bin/python", "-m", f"bench.{benchmark}", *given])


def this_run(
    benchmark: str, figures: Sequence[Figure], report: str = "", command: str | None = None
) -> Run:
    """A run of `benchmark` measured now, on this machine and this checkout's commit; the
    command defaults to this process's own invocation."""
    return Run(
        benchmark=benchmark,
        command=invocation(benchmark) if command is None else command,
        commit=head_commit(),
        date=utc_now(),
        machine=current_machine(),
        figures=tuple(figures),
        report=report,
    )
