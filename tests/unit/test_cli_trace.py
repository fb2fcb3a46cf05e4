"""`cairn trace list|show` through the real entry point (`python -m cairn`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from cairn.agent.sessions.recovery import fork_session
from cairn.files.trust import grant
from cairn.goals import apply_goal
from cairn.models.goals import GoalTree
from cairn.models.messages import Message, TextPart, ToolCallPart
from cairn.trace import Trace, TraceStore


def _cairn(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cairn", *args], capture_output=True, text=True, check=False
    )


def _record(store: TraceStore, title: str) -> Trace:
    trace = store.create(title, model="scripted/s.jsonl")
    tree = apply_goal(GoalTree(mission="make tests pass"), add="find failure, fix it")
    tree = apply_goal(tree, focus="1")
    trace.append_message(Message(id="u1", role="user", parts=[TextPart(text="tests fail")]))
    trace.append_message(
        Message(
            id="a1",
            role="assistant",
            goal_id="1",
            parts=[ToolCallPart(call_id="c1", name="run_command", arguments={"command": "pytest"})],
        )
    )
    tree = apply_goal(tree, done="test_x fails on None")
    tree = apply_goal(tree, focus="2")
    trace.append_message(
        Message(id="a2", role="assistant", goal_id="2", parts=[TextPart(text="patching")])
    )
    trace.save_goals(tree)
    trace.close()
    return trace


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "main.py").write_text("print('hi')\n")
    return tmp_path


def test_list_of_an_empty_workspace(workspace: Path) -> None:
    done = _cairn("trace", "list", "-w", str(workspace))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"no sessions in {workspace}"
    assert not (workspace / ".cairn").exists()


def test_list_shows_sessions_newest_first(workspace: Path) -> None:
    store = TraceStore(workspace / ".cairn")
    first = _record(store, "first session")
    child = fork_session(store, first.id, at_message_id="a1")
    done = _cairn("trace", "list", "--workspace", str(workspace))
    assert done.returncode == 0, done.stderr
    header, *rows = done.stdout.splitlines()
    assert header.split() == ["ID", "TITLE", "TURNS", "LAST", "UPDATED", "PARENT"]
    assert [r.split()[0] for r in rows] == [child.id, first.id]
    assert rows[0].rstrip().endswith(first.id)
    assert "first session" in rows[1] and rows[1].rstrip().endswith("-")


def test_show_prints_goals_with_their_messages(workspace: Path) -> None:
    trace = _record(TraceStore(workspace / ".cairn"), "fix tests")
    done = _cairn("trace", "show", trace.id[:-2], "-w", str(workspace))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"Session {trace.id}  'fix tests'"
    assert "Mission: make tests pass" in lines
    assert any(
        line.startswith("  [x] 1 find failure — done: test_x fails on None") for line in lines
    )
    assert any(line.startswith("  [~] 2 fix it ← current  (1 step") for line in lines)
    assert "      assistant: patching" in lines
    assert "  user: tests fail" in lines
    assert done.stderr == ""


def test_show_of_a_branch(workspace: Path) -> None:
    store = TraceStore(workspace / ".cairn")
    trace = _record(store, "with branch")
    trace.branch("try-a").append_message(Message(id="b1", role="user", parts=[TextPart(text="x")]))
    trace.close()
    shown = _cairn("trace", "show", trace.id, "-w", str(workspace))
    assert "  try-a: 1 message" in shown.stdout.splitlines()
    branch = _cairn("trace", "show", f"{trace.id}/try-a", "-w", str(workspace))
    assert branch.returncode == 0, branch.stderr
    assert branch.stdout.splitlines()[0] == f"Session {trace.id}/try-a  'try-a'"


def test_show_warns_about_skipped_lines(workspace: Path) -> None:
    trace = _record(TraceStore(workspace / ".cairn"), "torn")
    with (trace.dir / "messages.jsonl").open("ab") as f:
        f.write(b'{"id": "half')
    done = _cairn("trace", "show", trace.id, "-w", str(workspace))
    assert done.returncode == 0
    assert done.stderr.strip().startswith("warning: 1 unreadable line(s) skipped in ")
    assert "Messages: 3" in done.stdout


def test_unknown_session_is_one_line_error(workspace: Path) -> None:
    _record(TraceStore(workspace / ".cairn"), "x")
    done = _cairn("trace", "show", "nope", "-w", str(workspace))
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr == "error: unknown session: 'nope'\n"


def test_ambiguous_prefix_is_one_line_error(workspace: Path) -> None:
    store = TraceStore(workspace / ".cairn")
    a, b = _record(store, "a"), _record(store, "b")
    common = next(i for i in range(len(a.id)) if a.id[i] != b.id[i])
    done = _cairn("trace", "show", a.id[:common], "-w", str(workspace))
    assert done.returncode == 1
    assert len(done.stderr.splitlines()) == 1
    assert done.stderr.startswith("error: ambiguous session id")
    assert "Traceback" not in done.stderr


def test_trace_dir_setting_is_respected(workspace: Path) -> None:
    (workspace / "cairn.toml").write_text('trace_dir = ".cairn/custom"\n')
    grant(workspace)  # trace_dir counts in a trusted folder only
    trace = _record(TraceStore(workspace / ".cairn" / "custom"), "custom dir")
    done = _cairn("trace", "list", "-w", str(workspace))
    assert done.returncode == 0, done.stderr
    assert trace.id in done.stdout


def test_bad_settings_are_one_line_error(workspace: Path) -> None:
    (workspace / "cairn.toml").write_text("step_limit = [1]\n")
    done = _cairn("trace", "list", "-w", str(workspace))
    assert done.returncode == 1
    assert len(done.stderr.splitlines()) == 1 and "step_limit" in done.stderr


def test_missing_workspace_is_one_line_error(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    done = _cairn("trace", "list", "-w", str(missing))
    assert done.returncode == 1
    assert done.stderr == f"error: workspace not found: {missing}\n"
