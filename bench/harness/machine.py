"""Facts about the machine and the tree a run measured: cores, load, Python, commit, date."""

from __future__ import annotations

import os
import platform
import subprocess
from dataclasses import dataclass
from datetime import UTC, datetime

from bench.harness.paths import ROOT


@dataclass(frozen=True)
class Machine:
    """The machine a run measured on; `load` is the 1-minute load average (None when unknown)."""

    arch: str
    cores: int
    python: str
    load: float | None = None

    def describe(self) -> str:
        load = "" if self.load is None else f", load {self.load:.1f}"
        return f"{self.arch}, {self.cores} cores, Python {self.python}{load}"


def current_machine() -> Machine:
    """This machine now."""
    return Machine(
        arch=platform.machine(),
        cores=os.cpu_count() or 1,
        python=platform.python_version(),
        load=round(os.getloadavg()[0], 2),
    )


def head_commit() -> str:
    """The checkout's commit (short), with `+dirty` when the tree has uncommitted changes
    other than recorded results (`bench/history/`, `bench/RESULTS.md`)."""

    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False)
        return done.stdout.strip()

    commit = git("rev-parse", "--short", "HEAD") or "unknown"
    results = (":!bench/history", ":!bench/RESULTS.md")
    changed = git("status", "--porcelain", "--untracked-files=no", "--", ".", *results)
    return f"{commit}+dirty" if changed else commit


def utc_now() -> str:
    """The current time, UTC, to the minute (`2026-12-02 07:40`)."""
    return datetime.now(UTC).strftime("%Y-%m-%d %H:%M")
