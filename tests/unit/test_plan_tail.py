"""The plan in the tail: the current turn's goals whole, earlier turns' finished goals counted.

The tail is the one part of a request never read from the cache, so it must
not grow with the session: a goal finished in an earlier turn whose outcome
the history shows (its fold, or the summary's list of finished goals) is
counted on one line instead of listed with its summary.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cairn.context.sources.plan import collapsed_goals, plan_candidate, turn_start
from cairn.goals import render_plan
from cairn.goals.replay import replay_goals
from cairn.models.goals import GoalTree
from cairn.models.messages import CompactionPart, Message, TextPart, ToolResultPart
from cairn.models.summary import GoalSummary, SessionSummary
from cairn.tokens.counter import counter_for
from tests.unit.test_agent_support import call, make_engine, reply

COUNT = counter_for("gpt-4o")
TURN_ONE_SUMMARY = "SUMMARY-OF-TURN-ONE-GOAL"
TURN_ONE_REASON = "REASON-TURN-ONE-ABANDON"
TURN_TWO_SUMMARY = "SUMMARY-OF-TURN-TWO-GOAL"


def _goal(index: int, verb: str, text: str, turn: str, goal_id: str | None = None) -> Message:
    data: dict[str, Any] = {"goal": {verb: text}}
    part = ToolResultPart(call_id=f"c{index}", name="goal", output="ok", data=data)
    return Message(id=f"m{index}", role="tool", parts=[part], turn_id=turn, goal_id=goal_id)


def _user(index: int, text: str, turn: str) -> Message:
    return Message(id=f"m{index}", role="user", parts=[TextPart(text=text)], turn_id=turn)


def _fold(index: int, goal_id: str, covers: list[str], turn: str) -> Message:
    part = CompactionPart(kind="goal", goal_id=goal_id, covers=covers, text=f"Goal {goal_id} ...")
    return Message(id=f"m{index}", role="assistant", parts=[part], turn_id=turn)


def _two_turns() -> list[Message]:
    """Turn 1 finishes goal 1 (done) and 2 (abandoned), both folded; goal 3 is finished
    without any message to fold; turn 2 adds goals 4 and 5 and finishes 4."""
    t1, t2 = "turn-1", "turn-2"
    return [
        _user(0, "Fix the parser", t1),
        _goal(1, "add", "Read, Regex, Note", t1),
        _goal(2, "focus", "1", t1, "1"),
        _goal(3, "done", TURN_ONE_SUMMARY, t1, "1"),
        _fold(4, "1", ["m2", "m3"], t1),
        _goal(5, "focus", "2", t1, "2"),
        _goal(6, "abandon", TURN_ONE_REASON, t1, "2"),
        _fold(7, "2", ["m5", "m6"], t1),
        _goal(8, "focus", "3", t1, "3"),
        _goal(9, "done", "noted", t1, "3"),
        _user(10, "Now the exporter", t2),
        _goal(11, "add", "Export, Document", t2),
        _goal(12, "focus", "4", t2, "4"),
        _goal(13, "done", TURN_TWO_SUMMARY, t2, "4"),
        _fold(14, "4", ["m12", "m13"], t2),
        _goal(15, "focus", "5", t2, "5"),
    ]


def _tree(messages: list[Message]) -> GoalTree:
    return replay_goals(messages).tree


def test_the_current_turn_starts_at_its_first_message() -> None:
    messages = _two_turns()
    assert turn_start(messages) == 10
    assert turn_start([]) == 0


def test_earlier_turns_goals_with_a_visible_outcome_are_counted_not_listed() -> None:
    messages = _two_turns()
    tree = _tree(messages)
    # Goal 3 was finished in turn 1 but has no fold: nothing else shows its outcome.
    assert collapsed_goals(messages, tree) == {"1", "2"}
    candidate = plan_candidate(tree, messages, COUNT)
    assert candidate is not None
    text = candidate.block.text
    assert TURN_ONE_SUMMARY not in text and TURN_ONE_REASON not in text
    assert "Earlier turns: 1 goal(s) done, 1 abandoned, not listed" in text
    assert "[x] 3 Note — done: noted" in text
    # The current turn's goals are whole: the finished one with its summary, the focused one.
    assert f"[x] 4 Export — done: {TURN_TWO_SUMMARY}" in text
    assert "[~] 5 Document ← current" in text
    # Smaller than the whole tree (the rendering before collapsing).
    assert COUNT(text) < COUNT(render_plan(tree))


def test_a_goal_covered_by_the_summary_is_counted_when_the_summary_lists_it() -> None:
    messages = _two_turns()
    summary = SessionSummary(
        objective="fix the parser",
        goal_summaries=[
            GoalSummary(goal_id="3", description="Note", status="completed", summary="noted")
        ],
        covered_until_message_id="m9",
    )
    marker = Message(
        id="m9s", role="assistant", parts=[CompactionPart(kind="summary", summary=summary)]
    )
    with_summary = [*messages[:10], marker, *messages[10:]]
    tree = _tree(with_summary)
    # The folds of goals 1 and 2 are under the watermark and the summary lists only goal 3.
    assert collapsed_goals(with_summary, tree) == {"3"}


def test_a_single_turn_session_lists_every_goal() -> None:
    messages = _two_turns()[:10]
    tree = _tree(messages)
    assert collapsed_goals(messages, tree) == frozenset()
    assert render_plan(tree, collapsed_goals(messages, tree)) == render_plan(tree)


async def test_a_later_turns_tail_counts_the_first_turns_goals(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n", encoding="utf-8")
    engine = make_engine(
        tmp_path,
        [
            reply("", call("goal", add="Inspect a.py")),
            reply("", call("goal", focus="1")),
            reply("", call("read_file", path="a.py")),
            reply("", call("goal", done=TURN_ONE_SUMMARY)),
            reply("Inspected."),
            reply("", call("goal", add="Second look")),
            reply("", call("goal", focus="2")),
            reply("", call("read_file", path="a.py")),
            reply("Looking."),
        ],
    )
    try:
        first = await engine.turn("Inspect the code")
        await engine.turn("Look again", session_id=first.session_id)
        session = engine.session(first.session_id)
        scope = engine.scope(session, engine._between_turns(session))
        built = engine.contexts.build(scope)
        tail = str(built.messages[-1]["content"])
        seen = "\n".join(str(m.get("content")) for m in built.messages[:-1])
        assert "# Current Plan" in tail and "Earlier turns: 1 goal(s) done" in tail
        assert TURN_ONE_SUMMARY not in tail
        assert TURN_ONE_SUMMARY in seen  # the fold in the history shows the outcome
        assert "[~] 2 Second look ← current" in tail
    finally:
        engine.close()
