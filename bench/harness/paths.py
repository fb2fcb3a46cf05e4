"""Where the benchmarks read and write: the repository, the history and the results page."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"
HISTORY = BENCH / "history"
RESULTS = BENCH / "RESULTS.md"
WORK = BENCH / ".work"
