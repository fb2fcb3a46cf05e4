"""`cairn trace show` with turns and details, `fork`, `delete` and `repair` from the command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cairn.agent.engine import Engine
from cairn.trace import TraceStore
from tests.unit.test_agent_support import call, make_engine, reply

CLI_TIMEOUT_S = 240


def cairn(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cairn", *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=CLI_TIMEOUT_S,
        check=False,
    )


async def _two_turns(root: Path) -> str:
    """A session whose first turn stops normally and whose second fails (authentication)."""
    (root / "notes.md").write_text("milk\n")
    engine: Engine = make_engine(
        root,
        [
            reply("Planning.", call("goal", add="Read the notes, Answer")),
            reply("", call("goal", focus="1")),
            reply("", call("read_file", path="notes.md")),
            reply("", call("goal", done="the notes say milk")),
            reply("They say milk."),
            {"error": "auth"},
        ],
    )
    try:
        first = await engine.turn("what do the notes say?")
        second = await engine.turn("and now?", session_id=first.session_id)
    finally:
        engine.close()
    assert (first.finish_reason, second.finish_reason) == ("stop", "error")
    return first.session_id


@pytest.fixture
async def session(tmp_path: Path) -> tuple[Path, str]:
    return tmp_path, await _two_turns(tmp_path)


def test_show_lists_turns_with_their_end_and_a_failed_turns_reason(
    session: tuple[Path, str],
) -> None:
    root, session_id = session
    done = cairn("trace", "show", session_id, "-w", str(root))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    first = next(line for line in lines if line.startswith("  #1 "))
    second = next(line for line in lines if line.startswith("  #2 "))
    assert " stop " in first and "5 calls" in first and '"what do the notes say?"' in first
    assert " error " in second and "1 call " in second and '"and now?"' in second
    reason = lines[lines.index(second) + 1]
    assert reason.strip().startswith("error: model scripted/script.jsonl: authentication failed")
    # The finished goal is collapsed in the overview ...
    assert any(
        line.startswith("  [x] 1 Read the notes — done: the notes say milk") for line in lines
    )
    assert not any("read_file" in line for line in lines)


def test_show_expands_a_goal_a_turn_and_a_call(session: tuple[Path, str]) -> None:
    root, session_id = session
    goal = cairn("trace", "show", session_id, "-w", str(root), "--goal", "1")
    assert goal.returncode == 0, goal.stderr
    assert "→ read_file" in goal.stdout and "← read_file ok" in goal.stdout

    full = cairn("trace", "show", session_id, "-w", str(root), "--goal", "1", "--full")
    assert "milk" in full.stdout.split("← read_file ok")[1]  # the tool's whole output

    turn = cairn("trace", "show", session_id, "-w", str(root), "--turn", "2")
    assert turn.returncode == 0, turn.stderr
    assert "message: and now?" in turn.stdout
    assert "finish: error — model scripted/script.jsonl: authentication failed" in turn.stdout
    assert "model calls: #6" in turn.stdout

    manifest = cairn("trace", "show", session_id, "-w", str(root), "--call", "6")
    assert manifest.returncode == 0, manifest.stderr
    lines = manifest.stdout.splitlines()
    assert lines[0].startswith("Call #6 ") and "(turn #2)" in lines[0]
    assert any(line.strip().startswith("✓ system") for line in lines)

    missing = cairn("trace", "show", session_id, "-w", str(root), "--turn", "9")
    assert missing.returncode == 1
    assert missing.stderr == f"error: no turn #9 in session {session_id} (it has 2)\n"


def test_show_as_json(session: tuple[Path, str]) -> None:
    root, session_id = session
    done = cairn("trace", "show", session_id, "-w", str(root), "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert [t["finishReason"] for t in data["turns"]] == ["stop", "error"]
    assert data["turns"][1]["error"].startswith("model scripted/script.jsonl: authentication")
    assert [c["number"] for c in data["calls"]] == [1, 2, 3, 4, 5, 6]
    assert data["goals"]["goals"][0]["status"] == "completed"
    turn = json.loads(
        cairn("trace", "show", session_id, "-w", str(root), "--json", "--turn", "1").stdout
    )
    assert turn["number"] == 1 and len(turn["messages"]) >= 9


def test_fork_delete_from_the_command_line(session: tuple[Path, str]) -> None:
    root, session_id = session
    store = TraceStore(root / ".cairn")
    first_message = store.open(session_id).messages()[0].id
    forked = cairn("trace", "fork", session_id, "--at", first_message, "-w", str(root))
    assert forked.returncode == 0, forked.stderr
    child_id = forked.stdout.strip()
    child = TraceStore(root / ".cairn").open(child_id)
    assert child.meta().parent_id == session_id
    assert child.goals().goals == []
    assert f"cairn run --session {child_id}" in forked.stderr

    refused = cairn("trace", "delete", child_id, "-w", str(root))
    assert refused.returncode == 1
    assert "without confirmation: add --yes" in refused.stderr
    assert (root / ".cairn" / "traces" / child_id).is_dir()

    deleted = cairn("trace", "delete", child_id, "-w", str(root), "--yes")
    assert deleted.returncode == 0, deleted.stderr
    assert not (root / ".cairn" / "traces" / child_id).exists()
    assert (root / ".cairn" / "traces" / session_id).is_dir()
