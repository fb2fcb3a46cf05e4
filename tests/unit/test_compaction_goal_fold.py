"""Goal folding: done/abandon replace the goal's messages in the context; the trace keeps them."""

from __future__ import annotations

from pathlib import Path

from cairn.agent.engine import Engine
from cairn.agent.scope.inputs import TurnInputs
from cairn.compaction.goal_fold import ABANDON_ADVICE
from cairn.models.messages import CompactionPart, ToolResultPart
from tests.unit.test_agent_support import Recorder, call, make_engine, reply

BIG = "\n".join(f"line {i}: the quick brown fox jumps over the lazy dog" for i in range(300))


def _context_text(engine: Engine, session_id: str) -> str:
    session = engine.session(session_id)
    inputs = TurnInputs(model=str(engine.settings.model), mode="build")
    built = engine.contexts.build(engine.scope(session, inputs))
    return "\n".join(str(m.get("content") or "") for m in built.messages)


async def test_done_folds_the_goal_and_its_subgoals(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text(BIG)
    recorder = Recorder()
    engine = make_engine(
        tmp_path,
        [
            reply("Planning.", call("goal", add="Read the big file, Write the report")),
            reply("", call("goal", focus="1")),
            reply("", call("goal", add="Skim the start")),
            reply("", call("goal", focus="1.1")),
            reply("Reading.", call("read_file", path="big.txt")),
            reply("", call("goal", done="the file is 300 numbered fox lines")),
            reply("", call("goal", done="read: 300 lines about a fox")),
            reply("All read."),
        ],
        recorder,
    )
    result = await engine.turn("summarise big.txt")
    assert result.finish_reason == "stop"

    messages = engine.store.open(result.session_id).messages()
    markers = [p for m in messages for p in m.parts if isinstance(p, CompactionPart)]
    assert [(p.kind, p.goal_id) for p in markers] == [("goal", "1.1"), ("goal", "1")]
    outer = markers[1]
    read_msgs = [
        m
        for m in messages
        if any(isinstance(p, ToolResultPart) and p.name == "read_file" for p in m.parts)
    ]
    assert read_msgs and read_msgs[0].id in outer.covers
    assert messages[0].id not in outer.covers  # the user's message is never folded
    assert outer.text == "Goal 1 (Read the big file) completed: read: 300 lines about a fox"

    # The trace keeps the original output; the context shows the fold instead.
    assert any(
        BIG.splitlines()[150] in p.output
        for m in read_msgs
        for p in m.parts
        if isinstance(p, ToolResultPart)
    )
    context = _context_text(engine, result.session_id)
    assert "line 150: the quick brown fox" not in context
    assert outer.text in context

    goal_events = [e for e in recorder.compactions if e.kind == "goal"]
    assert [e.stage for e in goal_events] == ["start", "done", "start", "done"]
    done = goal_events[-1]
    assert done.tokens_after is not None and done.tokens_after < done.tokens_before
    # mission set + 6 goal tool calls: one notification after each change.
    assert len(recorder.trees) == 7
    engine.close()


async def test_abandon_keeps_the_reason_and_warns_not_to_retry(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text(BIG)
    engine = make_engine(
        tmp_path,
        [
            reply("", call("goal", add="Try regex parsing, Use a real parser")),
            reply("", call("goal", focus="1")),
            reply("", call("read_file", path="big.txt")),
            reply("", call("goal", abandon="regex cannot handle nested input")),
            reply("Switching approach."),
        ],
    )
    result = await engine.turn("parse it")
    context = _context_text(engine, result.session_id)
    expected = (
        "Goal 1 (Try regex parsing) ABANDONED: regex cannot handle nested input — " + ABANDON_ADVICE
    )
    assert expected in context
    assert "line 150: the quick brown fox" not in context
    tree = engine.goal_tree(result.session_id).tree
    assert tree.goals[0].status == "abandoned"
    engine.close()


async def test_user_goal_verbs_fold_and_notify(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text(BIG)
    recorder = Recorder()
    engine = make_engine(
        tmp_path,
        [reply("", call("read_file", path="big.txt")), reply("Read it.")],
        recorder,
    )
    await engine.goal_async(add="Read")
    await engine.goal_async(focus="1")
    result = await engine.turn("read big.txt")
    before = len(recorder.trees)
    view = await engine.goal_async(done="read by the agent")
    assert len(recorder.trees) == before + 1
    assert view.tree.goals[0].status == "completed"
    assert "line 150: the quick brown fox" not in _context_text(engine, result.session_id)
    assert [e.stage for e in recorder.compactions if e.kind == "goal"] == ["start", "done"]
    engine.close()
