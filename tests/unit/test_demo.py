"""`cairn demo` as a user runs it: offline, three turns, exits 0 with the tree, the compaction
report (what each kind freed and kept, checked against the trace's markers), the tests."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from cairn.commands.demo import first_line
from cairn.compaction import ledger
from cairn.compaction.markers import compaction_parts, tool_results
from cairn.models.messages import Message
from cairn.trace import TraceStore

DEMO_TIMEOUT_S = 240
DEMO_TURNS = 3
KINDS = {"goal fold": "goal", "prune": "prune", "summary": "summary"}
ROW = re.compile(
    r"^  turn (\d+) · (goal fold|prune|summary): (\d+) × \(tokens (.+); freed (\d+)\)$"
)
KEPT = re.compile(r"^      kept: (\d+) tokens, (.+)$")
FAILED_RUN = re.compile(r"^  ✗ run_command: .*\(exit code (-?\d+)\)$", re.MULTILINE)
PASSED_RUN = re.compile(r"^  ✓ run_command: ", re.MULTILINE)
# How much of a branch's conclusion must be on the terminal (the line is shortened there).
CONCLUSION_PREFIX = 60


def demo(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cairn", "demo", *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=DEMO_TIMEOUT_S,
        check=False,
    )


def report_rows(out: str) -> list[tuple[int, str, int, list[tuple[int, int]], int, int, str]]:
    """(turn, kind, count, steps, freed, kept tokens, kept text) of each report row."""
    lines = out.splitlines()
    rows = []
    for index, line in enumerate(lines):
        match = ROW.match(line)
        if match is None:
            continue
        kept = KEPT.match(lines[index + 1])
        assert kept is not None, lines[index + 1]
        steps = [tuple(int(n) for n in s.split("→")) for s in match[4].split(", ")]
        rows.append(
            (
                int(match[1]),
                KINDS[match[2]],
                int(match[3]),
                [(a, b) for a, b in steps],
                int(match[5]),
                int(kept[1]),
                kept[2],
            )
        )
    return rows


def markers_by_turn(messages: list[Message], turn_ids: list[str]) -> Counter[tuple[int, str]]:
    """How many markers of each kind the trace recorded in each turn (1-based)."""
    return Counter(
        (turn_ids.index(m.turn_id or "") + 1, part.kind)
        for m in messages
        for part in compaction_parts(m)
    )


def branch_conclusions(messages: list[Message]) -> list[str]:
    """The conclusions of every explore branch, from the explore results in the trace."""
    said: list[str] = []
    for message in messages:
        for part in tool_results(message):
            if part.name == "explore":
                said += [b["conclusion"] for b in json.loads(part.output)["branches"]]
    return said


@pytest.fixture(scope="module")
def kept_demo(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """One demo run (kept), shared by the tests that read its output and trace."""
    kept = tmp_path_factory.mktemp("demo") / "workspace"
    done = demo("--keep", str(kept))
    assert done.returncode == 0, done.stderr
    return kept, done


def test_demo_fixes_the_bug_and_reports(
    kept_demo: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    kept, done = kept_demo
    out, err = done.stdout, done.stderr
    # The first line comes before the engine is imported, and says where the demo runs.
    assert err.startswith(first_line(kept.resolve()))
    assert "Goal tree:" in out
    assert "[-] 2.1 Rewrite as a sweep over sorted endpoints" in out
    assert "[x] 3 Verify with the tests" in out
    assert "final test run: passed" in out
    assert "→ explore" in err and "✓ edit_file" in err
    for number in range(1, DEMO_TURNS + 1):
        assert f"▶ turn {number}/{DEMO_TURNS}: " in err

    assert "start <= merged[-1][1]" in (kept / "intervals.py").read_text()
    [meta] = TraceStore(kept / ".cairn").list()
    trace = TraceStore(kept / ".cairn").open(meta.id)
    assert trace.branches() == ["explore1-0", "explore1-1"]
    assert len(meta.turns) == DEMO_TURNS
    assert all(t.finish_reason == "stop" for t in meta.turns)
    assert all(t.patch_artifact_id is not None for t in meta.turns)
    messages = trace.messages()

    # The explore branches' conclusions are on the terminal, not the tool's JSON.
    conclusions = branch_conclusions(messages)
    assert len(conclusions) == len(trace.branches())
    for conclusion in conclusions:
        assert conclusion[:CONCLUSION_PREFIX] in err
    assert '{"branches"' not in err

    # The failing first test run is shown failed with its exit code; the passing ones ✓.
    runs = ledger.tests_run(messages)
    failed = [r for r in runs if r.status == "failed"]
    assert failed and runs[-1].status == "passed"
    codes = [int(code) for code in FAILED_RUN.findall(err)]
    assert len(codes) == len(failed) and all(code != 0 for code in codes)
    assert len(PASSED_RUN.findall(err)) == len(runs) - len(failed)


def test_demo_compaction_report_matches_the_trace(
    kept_demo: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    kept, done = kept_demo
    [meta] = TraceStore(kept / ".cairn").list()
    messages = TraceStore(kept / ".cairn").open(meta.id).messages()
    rows = report_rows(done.stdout)

    recorded = markers_by_turn(messages, [t.id for t in meta.turns])
    assert Counter({(turn, kind): count for turn, kind, count, *_ in rows}) == recorded
    for _turn, _kind, count, steps, freed, kept_tokens, kept_text in rows:
        assert len(steps) == count
        assert all(after < before for before, after in steps)
        assert freed == sum(before - after for before, after in steps)
        assert kept_tokens == steps[-1][1]
        assert kept_text.strip()

    # The point of the later turns: a prune and a summary happen after turn 1.
    later = {kind for turn, kind, *_ in rows if turn > 1}
    assert {"prune", "summary"} <= later
    pruned = sum(len(p.pruned_call_ids) for m in messages for p in compaction_parts(m))
    [prune_kept] = [text for _, kind, *_, text in rows if kind == "prune"]
    assert prune_kept.startswith(f"{pruned} stub")
    [summary_kept] = [text for _, kind, *_, text in rows if kind == "summary"]
    assert "ledger:" in summary_kept


def test_demo_refuses_a_non_empty_keep_folder(tmp_path: Path) -> None:
    (tmp_path / "something.txt").write_text("x")
    done = demo("--keep", str(tmp_path))
    assert done.returncode == 1
    assert "--keep folder is not empty" in done.stderr
