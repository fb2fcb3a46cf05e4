"""Forking at a point in time: the fork's plan is the parent's tree as it was at the fork message."""

from __future__ import annotations

from pathlib import Path

from cairn.agent.engine import Engine
from cairn.goals import render_tree
from cairn.goals.replay import replay_goals
from cairn.models.goals import GoalTree
from cairn.models.messages import GoalOpPart, Message, ToolResultPart
from tests.unit.test_agent_support import call, make_engine, reply


def _goal_result(messages: list[Message], verb: str) -> Message:
    """The tool message recording the model's `goal` call with this verb."""
    return next(
        m
        for m in messages
        for p in m.parts
        if isinstance(p, ToolResultPart) and p.name == "goal" and verb in (p.data or {})["goal"]
    )


async def _planned_session(root: Path) -> tuple[Engine, str]:
    engine = make_engine(
        root,
        [
            reply("Planning.", call("goal", add="Reproduce, Fix")),
            reply("", call("goal", focus="1")),
            reply("", call("goal", done="reproduced: the test fails")),
            reply("Reproduced; fixing next."),
        ],
    )
    result = await engine.turn("Fix the failing test\nmore detail")
    await engine.goal_async(result.session_id, add="Write a regression test")
    return engine, result.session_id


def _statuses(tree: GoalTree) -> dict[str, str]:
    return {g.id: g.status for g in tree.goals}


async def test_fork_at_the_first_message_has_an_empty_tree(tmp_path: Path) -> None:
    engine, session_id = await _planned_session(tmp_path)
    try:
        first = engine.session(session_id).messages()[0]
        child = engine.fork(session_id, first.id)
        tree = engine.session(child).goals()
        assert tree.goals == [] and tree.current_id is None
        assert tree.mission == "Fix the failing test"
        child_session = engine.session(child)
        scope = engine.scope(child_session, engine._between_turns(child_session))
        seen = "\n".join(str(m.get("content")) for m in engine.contexts.build(scope).messages)
        assert "(no goals yet" in seen
        assert "Reproduce" not in seen
    finally:
        engine.close()


async def test_fork_at_a_later_message_has_the_tree_of_that_time(tmp_path: Path) -> None:
    engine, session_id = await _planned_session(tmp_path)
    try:
        messages = engine.session(session_id).messages()
        added = _goal_result(messages, "add")
        after_add = engine.session(engine.fork(session_id, added.id)).goals()
        assert _statuses(after_add) == {"1": "pending", "2": "pending"}
        focused = _goal_result(messages, "focus")
        after_focus = engine.session(engine.fork(session_id, focused.id)).goals()
        assert after_focus.current_id == "1"
        assert _statuses(after_focus) == {"1": "in_progress", "2": "pending"}
        done = _goal_result(messages, "done")
        after_done = engine.session(engine.fork(session_id, done.id)).goals()
        assert _statuses(after_done) == {"1": "completed", "2": "pending"}
        assert after_done.goals[0].summary == "reproduced: the test fails"
        # The parent is untouched; a fork of the whole session has the user's edit too.
        parent = engine.session(session_id).goals()
        assert [g.description for g in parent.goals][-1] == "Write a regression test"
        whole = engine.session(engine.fork(session_id)).goals()
        assert whole == parent
    finally:
        engine.close()


async def test_every_goal_operation_is_in_the_messages(tmp_path: Path) -> None:
    engine, session_id = await _planned_session(tmp_path)
    try:
        session = engine.session(session_id)
        messages = session.messages()
        user_ops = [p for m in messages for p in m.parts if isinstance(p, GoalOpPart)]
        assert [(p.verb, p.text, p.by) for p in user_ops] == [
            ("add", "Write a regression test", "user")
        ]
        replay = replay_goals(messages)
        assert replay.tree == session.goals()
        assert (replay.applied, replay.skipped) == (4, 0)
        assert render_tree(replay.tree) == session.goal_view().rendered
    finally:
        engine.close()


async def test_an_explore_branch_records_the_plan_it_starts_from(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("x = 1\n")
    engine = make_engine(
        tmp_path,
        [
            reply("", call("goal", add="Look around")),
            reply("", call("explore", branches=["look"], background="x is 1")),
            reply("x is one", agent="0"),
            reply("Done."),
        ],
    )
    try:
        result = await engine.turn("what is x?")
        parent = engine.session(result.session_id)
        [name] = parent.trace.branches()
        branch = parent.trace.existing_branch(name)
        assert branch is not None
        assert replay_goals(branch.messages()).tree == branch.goals()
        assert [g.description for g in branch.goals().goals] == ["Look around"]
    finally:
        engine.close()
