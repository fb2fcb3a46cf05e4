"""Checkpoints (`Engine.restore`), transcripts and sessions written only by their first record."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cairn.errors import CairnError, InvalidRequestError, ModelError
from tests.unit.test_agent_support import Recorder, call, make_engine, reply


def edit(path: str, new: str, old: str | None = None) -> dict[str, object]:
    arguments: dict[str, object] = {"path": path, "new": new}
    if old is not None:
        arguments["old"] = old
    return call("edit_file", **arguments)


def three_turns(root: Path) -> list[dict[str, object]]:
    (root / "app.py").write_text('def greet():\n    return "hi"\n')
    return [
        reply("", call("goal", add="Greet better")),
        reply("", edit("app.py", 'return "hello"', 'return "hi"')),
        reply("First edit."),
        reply("", edit("notes.md", "# Notes\n")),
        reply("Created notes."),
        reply("", edit("app.py", 'return "hello, world"', 'return "hello"')),
        reply("Third edit."),
    ]


async def test_restoring_files_undoes_the_turn_and_every_later_one(tmp_path: Path) -> None:
    engine = make_engine(tmp_path, three_turns(tmp_path))
    first = await engine.turn("greet better")
    await engine.turn("add notes")
    await engine.turn("greet the world")
    assert (tmp_path / "notes.md").exists()

    turns = engine.session(first.session_id).meta().turns
    result = await engine.restore(first.session_id, turns[1].id)
    assert result.session_id == first.session_id
    assert result.restored_files == ["app.py", "notes.md"]
    assert not (tmp_path / "notes.md").exists()
    assert (tmp_path / "app.py").read_text() == 'def greet():\n    return "hello"\n'
    reverted = [t.reverted for t in engine.session(first.session_id).meta().turns]
    assert reverted == [False, True, True]

    # Turns already undone are not undone twice: restoring before turn 1 undoes only turn 1.
    result = await engine.restore(first.session_id, turns[0].id)
    assert result.restored_files == ["app.py"]
    assert (tmp_path / "app.py").read_text() == 'def greet():\n    return "hi"\n'
    engine.close()


async def test_a_file_changed_since_stops_the_restore_and_nothing_is_written(
    tmp_path: Path,
) -> None:
    engine = make_engine(tmp_path, three_turns(tmp_path))
    first = await engine.turn("greet better")
    await engine.turn("add notes")
    (tmp_path / "app.py").write_text('def greet():\n    return "mine now"\n')
    turn = engine.session(first.session_id).meta().turns[0]
    with pytest.raises(CairnError, match=r"app\.py: changed since.*nothing was changed"):
        await engine.restore(first.session_id, turn.id)
    assert (tmp_path / "notes.md").exists(), "the other file was not touched"
    assert (tmp_path / "app.py").read_text() == 'def greet():\n    return "mine now"\n'
    assert not any(t.reverted for t in engine.session(first.session_id).meta().turns)
    engine.close()


async def test_restoring_the_conversation_forks_before_the_turn(tmp_path: Path) -> None:
    engine = make_engine(tmp_path, three_turns(tmp_path))
    first = await engine.turn("greet better")
    second = await engine.turn("add notes")
    session = engine.session(first.session_id)
    turn = session.meta().turns[1]
    result = await engine.restore(first.session_id, turn.id, files=False, conversation=True)
    assert result.session_id != first.session_id and result.restored_files == []
    assert (tmp_path / "notes.md").exists(), "files=false leaves the files alone"

    fork = engine.session(result.session_id)
    meta = fork.meta()
    assert meta.parent_id == first.session_id
    assert meta.title == "greet better (before turn 2)"
    assert [t.id for t in meta.turns] == [session.meta().turns[0].id]
    assert all(m.turn_id != second.turn_id for m in fork.messages())
    # The goal tree as it was when turn 2 started (turn 1 added the goal).
    assert [g.description for g in fork.goals().goals] == ["Greet better"]
    assert fork.goals().mission == "greet better"

    first_turn = session.meta().turns[0]
    again = await engine.restore(first.session_id, first_turn.id, files=False, conversation=True)
    before_all = engine.session(again.session_id)
    assert before_all.messages() == [] and before_all.goals().goals == []
    assert before_all.goals().mission == "", "the mission came from the turn undone"
    engine.close()


async def test_restore_refuses_nonsense(tmp_path: Path) -> None:
    engine = make_engine(tmp_path, [reply("hi")])
    result = await engine.turn("hello")
    with pytest.raises(InvalidRequestError, match="nothing to restore"):
        await engine.restore(result.session_id, result.turn_id, files=False)
    with pytest.raises(InvalidRequestError, match="turn 'nope' is not in session"):
        await engine.restore(result.session_id, "nope")
    assert (await engine.restore(result.session_id, result.turn_id)).restored_files == []
    engine.close()


async def test_the_transcript_replays_a_session_like_the_live_events(tmp_path: Path) -> None:
    recorder = Recorder()
    engine = make_engine(tmp_path, three_turns(tmp_path), recorder)
    (tmp_path / "ref.txt").write_text("see me\n")
    first = await engine.turn("greet better @ref.txt", references=["ref.txt"])
    transcript = engine.transcript(first.session_id)
    assert transcript.title == "greet better @ref.txt"
    [turn] = transcript.turns
    assert turn.message == "greet better @ref.txt" and turn.references == ["ref.txt"]
    assert turn.mode == "build" and turn.finish_reason == "stop"
    assert turn.changed_files == ["app.py"] and not turn.reverted
    # Per-call retry and usage events are live only: the record keeps the turn's usage.
    live = [
        (e.kind, e.tool, e.call_id, e.ok, e.text, e.detail)
        for e in recorder.turn_events
        if e.kind not in ("retry", "usage")
    ]
    replay = [(e.kind, e.tool, e.call_id, e.ok, e.text, e.detail) for e in turn.events]
    # Streamed text arrives in chunks live and as one piece in the record.
    merged: list[tuple[object, ...]] = []
    for event in live:
        if event[0] == "text" and merged and merged[-1][0] == "text":
            merged[-1] = (*merged[-1][:4], str(merged[-1][4]) + str(event[4]), None)
        else:
            merged.append(event)
    assert replay == merged
    start = next(e for e in turn.events if e.kind == "toolStart" and e.tool == "edit_file")
    assert json.loads(start.text or "")["path"] == "app.py"
    end = next(e for e in turn.events if e.kind == "toolEnd" and e.tool == "edit_file")
    assert end.text == "edited app.py (+1 -1)" and '+    return "hello"' in (end.detail or "")

    engine.close()
    reopened = make_engine(tmp_path, [])
    assert reopened.transcript(first.session_id) == transcript, "the same after a restart"
    reopened.close()


async def test_a_new_session_is_written_by_its_first_record_only(tmp_path: Path) -> None:
    engine = make_engine(tmp_path, [reply("hello")])
    session_id = engine.new_session()
    assert engine.active_session_id == session_id
    assert engine.goal_tree(session_id).tree.goals == []
    assert engine.sessions() == [] and not (tmp_path / ".cairn" / "traces" / session_id).exists()
    engine.delete_session(session_id)
    assert engine.sessions() == []

    session_id = engine.new_session()
    engine.settings.model = "scripted/missing.jsonl"
    with pytest.raises(ModelError, match="no script at"):
        await engine.turn("this fails before any model call")
    assert engine.sessions() == [], "a prompt that failed before any model call leaves nothing"
    engine.close()


async def test_a_session_whose_turns_all_failed_takes_the_next_prompt_as_title(
    tmp_path: Path,
) -> None:
    engine = make_engine(tmp_path, [{"error": "auth"}, reply("works")], model_retries=0)
    failed = await engine.turn("bad key attempt")
    assert failed.finish_reason == "error"
    assert engine.goal_tree(failed.session_id).tree.mission == "bad key attempt"
    ok = await engine.turn("the real question")
    assert ok.finish_reason == "stop"
    [info] = engine.sessions()
    assert info.title == "the real question"
    assert engine.goal_tree(ok.session_id).tree.mission == "the real question"
    engine.close()


async def test_a_fork_is_titled_after_its_parent(tmp_path: Path) -> None:
    engine = make_engine(tmp_path, [reply("one")])
    result = await engine.turn("plan the release")
    fork = engine.fork(result.session_id)
    titles = {s.session_id: s.title for s in engine.sessions()}
    assert titles[fork] == "plan the release (fork)"
    engine.close()
