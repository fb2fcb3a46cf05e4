"""Goal renderings: the Current Plan block, the compact tree, the trace view and its data."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from cairn.goals import apply_goal, render_plan, render_trace_view, render_tree, trace_view_data
from cairn.goals.view import format_duration
from cairn.models.goals import GoalTree
from cairn.models.messages import Message, Part, TextPart, ToolCallPart, ToolResultPart
from cairn.models.session import SessionMeta, Usage

T0 = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def _tree() -> GoalTree:
    tree = apply_goal(GoalTree(mission="Fix the parser"), add="read code, fix bug, rewrite")
    tree = apply_goal(tree, focus="1")
    tree = apply_goal(tree, done="the bug is in parse_line")
    tree = apply_goal(tree, focus="3")
    tree = apply_goal(tree, add="port to regex")
    tree = apply_goal(tree, abandon="regex cannot handle nesting")
    tree = apply_goal(tree, focus="2")
    return apply_goal(tree, add="write test, patch")


def _msg(
    i: int, goal: str | None, seconds: int, text: str = "", parts: list[Part] | None = None
) -> Message:
    parts = [TextPart(text=text), *(parts or [])] if text else list(parts or [])
    return Message(
        id=f"m{i}",
        role="assistant",
        parts=parts,
        goal_id=goal,
        created_at=T0 + timedelta(seconds=seconds),
    )


def _messages() -> list[Message]:
    return [
        Message(id="m0", role="user", parts=[TextPart(text="fix it " * 40)], created_at=T0),
        _msg(
            1,
            "1",
            1,
            "reading",
            parts=[ToolCallPart(call_id="c1", name="read_file", arguments={"path": "p.py"})],
        ),
        _msg(2, "1", 31, parts=[ToolResultPart(call_id="c1", name="read_file", output="x" * 50)]),
        _msg(3, "3.1", 40, "trying regex"),
        _msg(4, "2", 100, "now fixing"),
        _msg(5, "2.1", 230, "writing the test"),
    ]


def test_render_plan_has_mission_current_goal_and_outcomes() -> None:
    plan = render_plan(_tree())
    lines = plan.splitlines()
    assert lines[0] == "# Current Plan"
    assert "Mission: Fix the parser" in lines
    assert "Current goal: 2 fix bug" in lines
    assert "[x] 1 read code — done: the bug is in parse_line" in lines
    assert "[~] 2 fix bug ← current" in lines
    assert "  [ ] 2.1 write test" in lines
    assert "[-] 3 rewrite — abandoned (do not retry): regex cannot handle nesting" in lines
    assert "  [-] 3.1 port to regex — abandoned (do not retry): parent abandoned" in lines


def test_render_plan_of_an_empty_tree_says_so() -> None:
    plan = render_plan(GoalTree())
    assert "Mission: (not set)" in plan
    assert "Current goal: none" in plan
    assert "no goals yet" in plan


def test_render_tree_is_one_line_per_goal() -> None:
    assert len(render_tree(_tree()).splitlines()) == 6


def test_trace_view_collapses_finished_goals_and_lists_open_ones() -> None:
    meta = SessionMeta(id="s1", title="parser", created_at=T0, updated_at=T0)
    view = render_trace_view(_tree(), _messages(), meta)
    lines = view.splitlines()
    assert lines[0] == "Session s1  'parser'"
    assert "  [x] 1 read code — done: the bug is in parse_line  (2 steps, 30s)" in lines
    assert (
        "  [-] 3 rewrite — abandoned (do not retry): regex cannot handle nesting  (1 step, <1s)"
        " [1 sub-goals collapsed]"
    ) in lines
    assert "  [~] 2 fix bug ← current  (2 steps, 2m 10s)" in lines
    assert "      assistant: now fixing" in lines
    assert "        assistant: writing the test" in lines
    assert "trying regex" not in view  # inside a collapsed goal
    assert "reading" not in view
    assert "Messages outside any goal (1):" in lines
    loose = lines[lines.index("Messages outside any goal (1):") + 1]
    assert loose.startswith("  user: fix it fix it") and loose.endswith("…")


def test_trace_view_data_is_json_ready() -> None:
    data = trace_view_data(_tree(), _messages())
    assert data["currentId"] == "2" and data["steps"] == 6
    first, second, third = data["goals"]
    assert (first["steps"], first["durationS"], first["collapsed"]) == (2, 30.0, True)
    assert first["messages"][0]["parts"] == ['→ read_file({"path": "p.py"})']
    assert first["messages"][1]["parts"] == ["← read_file ok: 50 chars"]
    assert second["current"] and not second["collapsed"]
    assert [c["id"] for c in second["children"]] == ["2.1", "2.2"]
    assert third["summary"] == "regex cannot handle nesting"
    assert [m["id"] for m in data["unassigned"]] == ["m0"]


def test_format_duration() -> None:
    assert [format_duration(s) for s in (0.2, 5, 65, 3_725)] == ["<1s", "5s", "1m 05s", "1h 02m"]


def test_trace_view_header_shows_the_model_and_the_cost_when_priced() -> None:
    priced = SessionMeta(
        id="s2",
        model="openai/gpt-4.1",
        usage=Usage(input_tokens=1_200, output_tokens=300, cost=0.0123),
        created_at=T0,
        updated_at=T0,
    )
    header = render_trace_view(_tree(), [], priced).splitlines()[1]
    assert header.startswith("Model: openai/gpt-4.1  Turns: 0")
    assert header.endswith("Tokens in/out: 1200/300  Cost: $0.0123")
    local = SessionMeta(id="s3", created_at=T0, updated_at=T0)
    assert "Cost" not in render_trace_view(_tree(), [], local).splitlines()[1]
    assert render_trace_view(_tree(), [], local).splitlines()[1].startswith("Model: (none)")
