"""`bench/RESULTS.md` is what the results writer makes of `bench/history/`, and the writer
keeps the latest figure of each benchmark on top."""

from __future__ import annotations

from pathlib import Path

from bench.harness.machine import Machine
from bench.harness.paths import HISTORY, RESULTS
from bench.harness.records import Figure, Run, load_runs
from bench.harness.writer import record, results_text

MACHINE = Machine("x86_64", 2, "3.11.7", 1.5)


def _run(commit: str, value: float, figure: str = "median build") -> Run:
    return Run(
        benchmark="context_build",
        command=".venv/bin/python -m bench.context_build --repeats 3",
        commit=commit,
        date="2026-12-02 08:00",
        machine=MACHINE,
        figures=(Figure(figure, value, "ms", 20.0, "no cache"),),
        report="## Context build\n\n- a report | with a pipe\n",
    )


def test_results_page_is_generated_from_the_history() -> None:
    assert RESULTS.read_text(encoding="utf-8") == results_text(HISTORY), (
        "bench/RESULTS.md differs from the history: run `python -m bench.results`"
    )


def test_every_run_has_a_command_to_reproduce_it_and_units_on_its_figures() -> None:
    runs = load_runs(HISTORY)
    assert runs
    for run in runs:
        assert run.command.startswith(".venv/bin/python -m bench.")
        assert run.commit and run.date
        assert all(figure.unit for figure in run.figures), run.benchmark


def test_a_recorded_run_round_trips_and_supersedes_the_older_figure(tmp_path: Path) -> None:
    history, results = tmp_path / "history", tmp_path / "RESULTS.md"
    record(_run("aaaaaaa", 10.0), history, results)
    record(_run("bbbbbbb", 5.0), history, results)
    record(_run("ccccccc", 7.0, figure="another figure"), history, results)

    assert load_runs(history) == [
        _run("aaaaaaa", 10.0),
        _run("bbbbbbb", 5.0),
        _run("ccccccc", 7.0, figure="another figure"),
    ]
    page = results.read_text(encoding="utf-8")
    assert page == results_text(history)
    rows = [line for line in page.splitlines() if line.startswith("| `bench.")]
    assert rows == [
        "| `bench.context_build` | median build | 5 ms | 20 ms (no cache) | 0.25× | bbbbbbb"
        " | 2026-12-02 08:00 | x86_64, 2 cores, Python 3.11.7, load 1.5"
        " | `.venv/bin/python -m bench.context_build --repeats 3` |",
        "| `bench.context_build` | another figure | 7 ms | 20 ms (no cache) | 0.35× | ccccccc"
        " | 2026-12-02 08:00 | x86_64, 2 cores, Python 3.11.7, load 1.5"
        " | `.venv/bin/python -m bench.context_build --repeats 3` |",
    ]
    assert page.index("## Today") < page.index("## Guide")
