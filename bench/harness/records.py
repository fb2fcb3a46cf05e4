"""A benchmark run as a structured record, and its history file (`bench/history/<benchmark>.jsonl`).

One JSON object a line, oldest first; each line is one run: the benchmark's name
(as in `python -m bench.<name>`), the command that reproduces it, the commit and
date it measured, the machine, its figures, where the figures came from when they
were not written by the run itself (`source`), and the run's Markdown report.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bench.harness.machine import Machine


@dataclass(frozen=True)
class Figure:
    """One measured figure; `peer` is the same figure measured for the peer in the same run,
    `peer_label` names the peer (alone when the figure is already a ratio to it)."""

    name: str
    value: float
    unit: str = ""
    peer: float | None = None
    peer_label: str = ""

    @property
    def ratio(self) -> float | None:
        """`value / peer` (None without a peer, or with a zero peer)."""
        if self.peer is None or self.peer == 0:
            return None
        return self.value / self.peer


@dataclass(frozen=True)
class Run:
    """One run of one benchmark, as the writer records it."""

    benchmark: str
    command: str
    commit: str
    date: str
    machine: Machine
    figures: tuple[Figure, ...]
    source: str = ""
    report: str = field(default="", repr=False)

    def to_json(self) -> str:
        data = asdict(self)
        data["figures"] = [asdict(figure) for figure in self.figures]
        return json.dumps(data, ensure_ascii=False)

    @classmethod
    def from_json(cls, line: str) -> Run:
        data: dict[str, Any] = json.loads(line)
        return cls(
            benchmark=data["benchmark"],
            command=data["command"],
            commit=data["commit"],
            date=data["date"],
            machine=Machine(**data["machine"]),
            figures=tuple(Figure(**figure) for figure in data["figures"]),
            source=data.get("source", ""),
            report=data.get("report", ""),
        )


def history_file(history: Path, benchmark: str) -> Path:
    """The history file of `benchmark` in the folder `history`."""
    return history / f"{benchmark}.jsonl"


def append_run(history: Path, run: Run) -> Path:
    """Append `run` to its benchmark's history file; returns the file."""
    path = history_file(history, run.benchmark)
    history.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as out:
        out.write(run.to_json() + "\n")
    return path


def load_runs(history: Path) -> list[Run]:
    """Every recorded run in `history`, benchmark by benchmark (sorted by name), oldest first."""
    runs: list[Run] = []
    for path in sorted(history.glob("*.jsonl")):
        lines = path.read_text(encoding="utf-8").splitlines()
        runs.extend(Run.from_json(line) for line in lines if line.strip())
    return runs
