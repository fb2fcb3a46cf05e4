"""Recovery: a killed turn is closed as interrupted, damaged goal.json / meta.json are rebuilt."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cairn.agent.engine import Engine
from cairn.agent.sessions.recovery import recover
from cairn.agent.sessions.session import Session
from cairn.goals import apply_verb
from cairn.goals.replay import replay_goals
from cairn.models.messages import TextPart
from cairn.models.session import Turn, TurnRecord
from cairn.trace import TraceStore
from tests.unit.test_agent_support import Recorder, call, make_engine, reply, write_script

CLI_TIMEOUT_S = 240
WAIT_STEP_S = 0.05
# A reply that never comes while the test waits (the process is killed first).
NEVER_S = 600


def cairn(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cairn", *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=CLI_TIMEOUT_S,
        check=False,
    )


async def _session(root: Path) -> tuple[str, Engine]:
    engine = make_engine(
        root,
        [
            reply("Planning.", call("goal", add="One, Two")),
            reply("", call("goal", focus="1")),
            reply("", call("goal", done="one is done")),
            reply("Done with one."),
        ],
    )
    result = await engine.turn("do one and two")
    await engine.goal_async(result.session_id, focus="2")
    return result.session_id, engine


@pytest.mark.parametrize("damage", [b"", b'{"mission": "do one', b"\x00" * 64])
async def test_a_damaged_goal_json_is_rebuilt_from_the_messages(
    tmp_path: Path, damage: bytes
) -> None:
    session_id, engine = await _session(tmp_path)
    before = engine.session(session_id).goals()
    engine.close()
    (tmp_path / ".cairn" / "traces" / session_id / "goal.json").write_bytes(damage)

    recorder = Recorder()
    again = Engine([tmp_path], engine.settings, listener=recorder)
    try:
        assert again.session(session_id).goals() == before
        assert before.current_id == "2" and before.goals[0].status == "completed"
    finally:
        again.close()
    assert any("goal.json is unreadable" in log and "rebuilt" in log for log in recorder.logs)
    on_disk = json.loads((tmp_path / ".cairn" / "traces" / session_id / "goal.json").read_text())
    assert on_disk["currentId"] == "2"


@pytest.mark.parametrize("damage", [b"", b'{"id": "2026', b"not json at all"])
async def test_a_damaged_meta_json_is_rebuilt_from_the_records(
    tmp_path: Path, damage: bytes
) -> None:
    session_id, engine = await _session(tmp_path)
    before = engine.session(session_id).meta()
    engine.close()
    meta_path = tmp_path / ".cairn" / "traces" / session_id / "meta.json"
    meta_path.write_bytes(damage)

    listed = TraceStore(tmp_path / ".cairn").list()
    assert [m.id for m in listed] == [session_id], "a damaged session is still listed"
    shown = cairn("trace", "show", session_id, "-w", str(tmp_path))
    assert shown.returncode == 0, shown.stderr
    assert "meta.json is unreadable" in shown.stderr
    assert "  #1 " in shown.stdout and " stop " in shown.stdout
    assert meta_path.read_bytes() == damage, "show does not write"

    repaired = cairn("trace", "repair", session_id, "-w", str(tmp_path))
    assert repaired.returncode == 0, repaired.stderr
    assert "repaired:" in repaired.stdout and "meta.json" in repaired.stdout
    after = TraceStore(tmp_path / ".cairn").open(session_id).meta()
    assert (after.title, after.model, after.usage) == (before.title, before.model, before.usage)
    assert [(t.id, t.finish_reason, t.usage) for t in after.turns] == [
        (t.id, t.finish_reason, t.usage) for t in before.turns
    ]
    assert after.created_at == before.created_at
    again = cairn("trace", "repair", session_id, "-w", str(tmp_path))
    assert again.stdout.strip() == f"session {session_id}: nothing to repair"


def _wait_for(condition: object, what: str) -> None:
    deadline = time.monotonic() + CLI_TIMEOUT_S
    while not condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(WAIT_STEP_S)


def _sessions(traces: Path) -> list[Path]:
    """The session folders (not the hidden ones a session is made in)."""
    if not traces.is_dir():
        return []
    return [p for p in traces.iterdir() if not p.name.startswith(".")]


def _has_turn(meta: Path) -> bool:
    """meta.json records a turn (read while another process may be replacing it)."""
    try:
        return bool(json.loads(meta.read_bytes()).get("turns"))
    except (OSError, ValueError):
        return False


def _has_tool_result(messages: Path) -> bool:
    return messages.exists() and b'"role":"tool"' in messages.read_bytes()


def test_a_killed_turn_is_shown_as_interrupted_and_closed_when_the_session_continues(
    tmp_path: Path,
) -> None:
    model = write_script(
        tmp_path,
        [
            reply("Looking.", call("list_dir")),
            {"text": "never sent", "delay": NEVER_S},
            reply("Back again."),
        ],
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "cairn", "run", "-w", str(tmp_path), "--model", model, "look"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    traces = tmp_path / ".cairn" / "traces"
    try:
        _wait_for(lambda: _sessions(traces), "the session")
        [folder] = _sessions(traces)
        _wait_for(lambda: _has_tool_result(folder / "messages.jsonl"), "the first tool result")
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
    session_id = folder.name
    last_record = TraceStore(tmp_path / ".cairn").open(session_id).messages()[-1].created_at

    shown = cairn("trace", "show", session_id, "-w", str(tmp_path))
    assert shown.returncode == 0, shown.stderr
    assert "never ended; closed as interrupted" in shown.stderr
    row = next(line for line in shown.stdout.splitlines() if line.startswith("  #1 "))
    assert " interrupted " in row
    listed = cairn("trace", "list", "-w", str(tmp_path))
    assert " interrupted " in listed.stdout

    again = cairn("run", "-w", str(tmp_path), "--model", model, "--session", session_id, "again")
    assert again.returncode == 0, again.stderr
    assert "Back again." in again.stdout
    turns = TraceStore(tmp_path / ".cairn").open(session_id).meta().turns
    assert [t.finish_reason for t in turns] == ["interrupted", "stop"]
    assert turns[0].ended_at == last_record
    assert turns[0].error is not None and "killed or crashed" in turns[0].error


async def test_a_turn_another_process_is_running_is_left_open(tmp_path: Path) -> None:
    model = write_script(tmp_path, [{"text": "slow", "delay": NEVER_S}])
    script = (
        "import asyncio, sys\n"
        "from pathlib import Path\n"
        "from cairn.agent.engine import Engine\n"
        "from cairn.settings import Settings\n"
        f"engine = Engine([Path({str(tmp_path)!r})], Settings(model={model!r}))\n"
        "asyncio.run(engine.turn('slow one'))\n"
    )
    process = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.DEVNULL)
    traces = tmp_path / ".cairn" / "traces"
    try:
        _wait_for(lambda: _sessions(traces), "the session")
        [folder] = _sessions(traces)
        _wait_for(lambda: _has_turn(folder / "meta.json"), "the running turn in meta.json")
        trace = TraceStore(tmp_path / ".cairn").open(folder.name)
        assert trace.writer_pid() == str(process.pid)
        assert recover(trace) == []
        assert trace.meta().turns[0].finish_reason is None
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.wait()


def _open_turn(root: Path, *, save_meta: bool) -> tuple[str, str]:
    """A session whose process died in a turn: the turn's start is in the journal (and in
    meta.json when `save_meta`); the session id and the turn id."""
    trace = TraceStore(root / ".cairn").create("crash", model="scripted/x.jsonl")
    session = Session(trace)
    session.current_turn_id = "t-crash"
    user = session.append("user", [TextPart(text="add a goal")])
    turn = Turn(id="t-crash", user_message_id=user.id, model="scripted/x.jsonl")
    if save_meta:
        session.start_turn(turn, user.text())
    else:
        trace.append_record(TurnRecord(turn=turn))
    trace.close()
    return trace.id, turn.id


def test_a_turn_start_in_the_journal_but_not_in_meta_json_is_adopted_and_closed(
    tmp_path: Path,
) -> None:
    session_id, turn_id = _open_turn(tmp_path, save_meta=False)
    trace = TraceStore(tmp_path / ".cairn").open(session_id)
    assert trace.meta().turns == [], "the kill came between the journal and meta.json"

    notes = recover(trace)
    assert any("lacked the journal's record of turn(s) t-crash" in n for n in notes), notes
    assert any(f"turn {turn_id} never ended" in n for n in notes), notes
    trace.close()
    again = TraceStore(tmp_path / ".cairn").open(session_id)
    assert [(t.id, t.finish_reason) for t in again.meta().turns] == [(turn_id, "interrupted")]
    assert recover(again) == []


def test_a_goal_json_ahead_of_the_records_after_a_crash_is_rolled_back(tmp_path: Path) -> None:
    session_id, _ = _open_turn(tmp_path, save_meta=True)
    trace = TraceStore(tmp_path / ".cairn").open(session_id)
    # The goal tool saved the tree, and the process died before its result was recorded.
    trace.save_goals(apply_verb(trace.goals(), "add", "Never recorded"))

    notes = recover(trace)
    assert any("goal.json did not match the recorded goal operations" in n for n in notes)
    assert trace.goals() == replay_goals(trace.messages()).tree
    assert trace.goals().goals == [] and trace.goals().mission == "add a goal"
    trace.close()


def test_goal_json_is_left_alone_when_no_turn_was_interrupted(tmp_path: Path) -> None:
    session_id, _ = _open_turn(tmp_path, save_meta=True)
    trace = TraceStore(tmp_path / ".cairn").open(session_id)
    recover(trace)
    # A tree changed outside any turn (nothing was killed) is the truth, not a crash leftover.
    trace.save_goals(apply_verb(trace.goals(), "add", "Outside a turn"))
    assert recover(trace) == []
    assert [g.description for g in trace.goals().goals] == ["Outside a turn"]
    trace.close()
