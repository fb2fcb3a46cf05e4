"""Crash safety: a writer SIGKILLed at random points never loses acknowledged records.

A forked writer process appends messages and rewrites goal.json in a loop,
reporting each completed (returned, fsynced) write on a pipe. The test kills
it with SIGKILL after a random number of writes plus a random delay, then
proves that: the trace still loads; every acknowledged message is there, in
order, with at most the one in-flight message beyond them and nothing else
lost; goal.json is a complete old or new version; the lock is free and a new
writer can append after whatever torn tail the crash left.

The session loop does the same with a session's real writes (turn starts and
ends in the journal and meta.json, the user's and the model's goal
operations, messages) and proves what recovery promises after each kill:
the killed turn is closed as interrupted at its last message, meta.json
agrees with the journal, goal.json with the recorded goal operations, and
the session goes on.

Both loops run `SLOW_ITERATIONS` kills in the `slow` marker and a handful
(`CI_ITERATIONS`) in every run.
"""

from __future__ import annotations

import os
import random
import signal
import time
import traceback
from collections.abc import Callable
from pathlib import Path

import pytest

from cairn.agent.listener import SafeListener
from cairn.agent.sessions.goal_ops import change_goal, set_mission
from cairn.agent.sessions.recovery import recover
from cairn.agent.sessions.session import Session
from cairn.goals import apply_verb
from cairn.goals.replay import replay_goals
from cairn.models.base import utc_now
from cairn.models.goals import GoalTree, GoalVerb
from cairn.models.messages import Message, TextPart, ToolResultPart
from cairn.models.session import Turn
from cairn.trace import TraceStore, files

SLOW_ITERATIONS = 200
CI_ITERATIONS = 8
ITERATIONS_PER_TRACE = 20
MAX_ACKS_BEFORE_KILL = 8
MAX_KILL_DELAY_S = 0.002
MAX_MESSAGE_CHARS = 8_000
GOAL_PADDING_CHARS = 20_000
GOALS_EVERY = 2
SEED = 20_261_129


def _goal_tree(version: int) -> GoalTree:
    return GoalTree(mission=f"v{version} " + "p" * GOAL_PADDING_CHARS)


def _version_of(tree: GoalTree) -> int:
    return int(tree.mission.split(" ", 1)[0][1:])


def _writer(root: Path, session_id: str, prefix: str, version: int, ack: int) -> None:
    """The child: append and rewrite forever, acknowledging each finished write."""
    rng = random.Random(prefix)
    trace = TraceStore(root).open(session_id)
    index = 0
    while True:
        message_id = f"{prefix}-{index}"
        text = "x" * rng.randrange(MAX_MESSAGE_CHARS)
        trace.append_message(Message(id=message_id, role="assistant", parts=[TextPart(text=text)]))
        os.write(ack, f"M {message_id}\n".encode())
        if index % GOALS_EVERY == 0:
            version += 1
            trace.save_goals(_goal_tree(version))
            os.write(ack, f"G {version}\n".encode())
        index += 1


def _run_and_kill(
    root: Path, session_id: str, prefix: str, version: int, rng: random.Random
) -> list[str]:
    """Fork a writer, kill it at a random point, return every acknowledgement it sent."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the writer
        os.close(read_end)
        try:
            _writer(root, session_id, prefix, version, write_end)
        except BaseException:
            os.write(write_end, f"E {traceback.format_exc()!r}\n".encode())
        finally:
            os._exit(1)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        wanted = rng.randrange(MAX_ACKS_BEFORE_KILL + 1)
        acks: list[str] = []
        while len(acks) < wanted:
            line = pipe.readline()
            if not line:
                break
            acks.append(line.decode().strip())
        time.sleep(rng.random() * MAX_KILL_DELAY_S)
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        acks.extend(line.decode().strip() for line in pipe.read().splitlines())
    errors = [a for a in acks if a.startswith("E ")]
    assert not errors, errors
    return acks


def _check_after_crash(
    root: Path, session_id: str, prefix: str, expected: list[str], acks: list[str], version: int
) -> tuple[list[str], int]:
    """Verify the trace after one crash; return the ids now expected and the goal version."""
    acked = [a[2:] for a in acks if a.startswith("M ")]
    acked_versions = [int(a[2:]) for a in acks if a.startswith("G ")]
    trace = TraceStore(root).open(session_id)
    ids = [m.id for m in trace.messages()]
    assert ids[: len(expected)] == expected, "a previously written message was lost"
    new = ids[len(expected) :]
    assert new[: len(acked)] == acked, "an acknowledged message was lost"
    assert new == [f"{prefix}-{i}" for i in range(len(new))]
    assert len(new) <= len(acked) + 1, "more than the one in-flight message appeared"
    last_acked = acked_versions[-1] if acked_versions else version
    on_disk = _version_of(trace.goals())  # raises if goal.json is not a complete document
    assert on_disk in (last_acked, last_acked + 1)
    return ids, on_disk


def _write_after_crash(root: Path, session_id: str, prefix: str) -> str:
    """A new writer takes the freed lock and appends after the crash's torn tail."""
    trace = TraceStore(root).open(session_id)
    marker = f"{prefix}-after"
    trace.append_message(Message(id=marker, role="user"))
    trace.close()
    assert not list(trace.dir.glob(".*.tmp")), "stale temp files were not cleaned"
    assert TraceStore(root).open(session_id).messages()[-1].id == marker
    return marker


@pytest.mark.parametrize(
    "iterations",
    [pytest.param(SLOW_ITERATIONS, marks=pytest.mark.slow), CI_ITERATIONS],
    ids=["slow", "ci"],
)
def test_sigkilled_writer_never_loses_acknowledged_records(
    tmp_path: Path, record_property: Callable[[str, object], None], iterations: int
) -> None:
    root = tmp_path / ".cairn"
    store = TraceStore(root)
    rng = random.Random(SEED)
    session_id = ""
    expected: list[str] = []
    version = 0
    torn_tails = 0
    for iteration in range(iterations):
        if iteration % ITERATIONS_PER_TRACE == 0:
            trace = store.create(f"crash {iteration}")
            trace.save_goals(_goal_tree(0))
            trace.close()
            session_id, expected, version = trace.id, [], 0
        prefix = f"i{iteration}"
        acks = _run_and_kill(root, session_id, prefix, version, rng)
        expected, version = _check_after_crash(root, session_id, prefix, expected, acks, version)
        torn_tails += TraceStore(root).open(session_id).load_report.messages.torn_tail
        expected.append(_write_after_crash(root, session_id, prefix))
    record_property("torn_tails", torn_tails)  # how many kills landed mid-line
    for meta in store.list():
        assert TraceStore(root).open(meta.id).messages(), "every trace still loads"


MID_LINE_ITERATIONS = 20
MID_LINE_WAIT_S = 60.0


def _torn_writer(root: Path, session_id: str, message_id: str, ack: int) -> None:
    """The child: write half of a message line, say so, and wait to be killed."""

    def half_and_wait(fd: int, data: bytes) -> None:
        real_write_all(fd, data[: len(data) // 2])
        os.fsync(fd)
        os.write(ack, b"H\n")
        time.sleep(MID_LINE_WAIT_S)

    real_write_all = files.write_all
    files.write_all = half_and_wait
    trace = TraceStore(root).open(session_id)
    trace.append_message(Message(id=message_id, role="user", parts=[TextPart(text="t" * 500)]))


def test_kill_in_the_middle_of_a_line_leaves_a_skippable_tail(tmp_path: Path) -> None:
    root = tmp_path / ".cairn"
    trace = TraceStore(root).create()
    trace.close()
    expected: list[str] = []
    for iteration in range(MID_LINE_ITERATIONS):
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read_end)
            try:
                _torn_writer(root, trace.id, f"torn-{iteration}", write_end)
            finally:
                os._exit(1)
        os.close(write_end)
        with os.fdopen(read_end, "rb") as pipe:
            assert pipe.readline() == b"H\n"
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        loaded = TraceStore(root).open(trace.id)
        assert [m.id for m in loaded.messages()] == expected
        assert loaded.load_report.messages.torn_tail
        assert loaded.load_report.messages.corrupt == iteration + 1
        expected.append(_write_after_crash(root, trace.id, f"i{iteration}"))


def test_atomic_write_keeps_the_mode_of_an_existing_file(tmp_path: Path) -> None:
    target = tmp_path / "script.sh"
    target.write_bytes(b"old\n")
    target.chmod(0o750)
    files.atomic_write(target, b"new\n")
    assert target.read_bytes() == b"new\n"
    assert target.stat().st_mode & 0o777 == 0o750
    assert [p.name for p in tmp_path.iterdir()] == ["script.sh"]


SESSION_SEED = 20_261_201
SESSION_ITERATIONS_PER_TRACE = 25
MAX_SESSION_ACKS_BEFORE_KILL = 6
MODEL = "scripted/crash.jsonl"


def _model_goal_op(session: Session, verb: GoalVerb, text: str, call_id: str) -> None:
    """What the `goal` tool does: save the tree, then record its result."""
    session.trace.save_goals(apply_verb(session.goals(), verb, text))
    data = {"goal": {verb: text}}
    part = ToolResultPart(call_id=call_id, name="goal", output="ok", ok=True, data=data)
    session.append("tool", [part], use_focus=False)


def _session_writer(root: Path, session_id: str, prefix: str, ack: int) -> None:
    """The child: turns with goal operations by the model and the user, forever."""
    session = Session(TraceStore(root).open(session_id))
    listener = SafeListener(None)
    step = 0
    while True:
        turn_id = f"{prefix}-t{step}"
        session.current_turn_id = turn_id
        user = session.append("user", [TextPart(text=f"turn {turn_id}")])
        set_mission(session, listener, user)
        turn = Turn(id=turn_id, user_message_id=user.id, model=MODEL)
        session.start_turn(turn, user.text())
        os.write(ack, f"T {turn_id}\n".encode())
        _model_goal_op(session, "add", f"goal of {turn_id}", f"{turn_id}-c0")
        new_id = session.goals().goals[-1].id
        change_goal(session, listener, "focus", new_id, by_user=True)
        session.append("assistant", [TextPart(text="x" * 500)])
        _model_goal_op(session, "done", f"done in {turn_id}", f"{turn_id}-c1")
        turn.ended_at = utc_now()
        turn.finish_reason = "stop"
        session.save_turn(turn)
        session.current_turn_id = None
        os.write(ack, f"E {turn_id}\n".encode())
        step += 1


def _run_session_and_kill(
    root: Path, session_id: str, prefix: str, rng: random.Random
) -> list[str]:
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        try:
            _session_writer(root, session_id, prefix, write_end)
        except BaseException:
            os.write(write_end, f"X {traceback.format_exc()!r}\n".encode())
        finally:
            os._exit(1)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        wanted = rng.randrange(MAX_SESSION_ACKS_BEFORE_KILL + 1)
        acks: list[str] = []
        while len(acks) < wanted:
            line = pipe.readline()
            if not line:
                break
            acks.append(line.decode().strip())
        time.sleep(rng.random() * MAX_KILL_DELAY_S)
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        acks.extend(line.decode().strip() for line in pipe.read().splitlines())
    errors = [a for a in acks if a.startswith("X ")]
    assert not errors, errors
    return acks


def _check_recovered(root: Path, session_id: str, acks: list[str]) -> None:
    """After `recover`: every turn ended, the right way; meta, journal and goals agree."""
    trace = TraceStore(root).open(session_id)
    recover(trace)
    trace.close()
    fresh = TraceStore(root).open(session_id)
    meta = fresh.meta()
    assert not fresh.damaged
    messages = fresh.messages()
    ended = {a[2:] for a in acks if a.startswith("E ")}
    started = {a[2:] for a in acks if a.startswith("T ")}
    turns = {t.id: t for t in meta.turns}
    assert started <= set(turns), "an acknowledged turn start was lost"
    for turn in meta.turns:
        assert turn.finish_reason in ("stop", "interrupted"), turn
        if turn.id in ended:
            assert turn.finish_reason == "stop"
        if turn.finish_reason == "interrupted":
            times = [m.created_at for m in messages if m.turn_id == turn.id]
            assert turn.ended_at == max([turn.started_at, *times])
    assert [t.id for t in fresh.rebuilt_meta().turns] == [t.id for t in meta.turns]
    assert fresh.rebuilt_meta().usage == meta.usage
    assert fresh.goals() == replay_goals(messages).tree, "goal.json disagrees with the records"
    assert recover(fresh) == [], "a second recovery found more to do"
    fresh.close()


@pytest.mark.parametrize(
    "iterations",
    [pytest.param(SLOW_ITERATIONS, marks=pytest.mark.slow), CI_ITERATIONS],
    ids=["slow", "ci"],
)
def test_sigkilled_session_is_recovered_consistently(tmp_path: Path, iterations: int) -> None:
    root = tmp_path / ".cairn"
    store = TraceStore(root)
    rng = random.Random(SESSION_SEED)
    session_id = ""
    for iteration in range(iterations):
        if iteration % SESSION_ITERATIONS_PER_TRACE == 0:
            trace = store.create(f"session crash {iteration}", model=MODEL)
            trace.close()
            session_id = trace.id
        acks = _run_session_and_kill(root, session_id, f"s{iteration}", rng)
        _check_recovered(root, session_id, acks)
    for meta in store.list():
        assert all(t.finish_reason is not None for t in meta.turns)
