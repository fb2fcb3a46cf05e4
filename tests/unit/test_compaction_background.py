"""A summary prepared in the background is not started when the step's own fold frees the room."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cairn.agent.compaction.cache_breaks import finishes_goal
from cairn.llm.reply import ToolCall
from tests.unit.test_agent_support import call, make_engine, reply
from tests.unit.test_compaction_summary import Spy, Timeline, project, summaries

WINDOW: dict[str, Any] = {
    "context_window": 12_000,
    "max_output_tokens": 500,
    "safety_margin": 200,
    "compaction_threshold": 0.6,
}


def read_then(finish: dict[str, Any]) -> list[dict[str, Any]]:
    """A goal focused, the big file read, then the reply `finish` (over the early threshold)."""
    return [
        reply("", call("goal", add="Read the big file")),
        reply("", call("goal", focus="1")),
        reply("", call("read_file", path="big.txt")),
        finish,
        reply("Done."),
    ]


async def test_no_background_summary_when_the_step_finishes_the_goal(tmp_path: Path) -> None:
    project(tmp_path)
    timeline = Timeline()
    engine = make_engine(
        tmp_path, read_then(reply("", call("goal", done="read it"))), timeline, **WINDOW
    )
    spy = Spy(engine)
    result = await engine.turn("read")
    assert result.finish_reason == "stop"
    # The fold of goal 1 freed the big read; no compaction call was spent on a summary that
    # would have been recorded after the fold, freeing nothing.
    assert "summary:start" not in timeline.order
    assert spy.calls == []
    assert [(e.kind, e.stage) for e in timeline.compactions] == [("goal", "start"), ("goal", "done")]
    engine.close()


async def test_a_step_that_keeps_the_goal_still_summarises_in_the_background(
    tmp_path: Path,
) -> None:
    project(tmp_path)
    timeline = Timeline()
    engine = make_engine(
        tmp_path, read_then(reply("", call("read_file", path="calc.py"))), timeline, **WINDOW
    )
    result = await engine.turn("read")
    assert result.finish_reason == "stop"
    order = timeline.order
    start, done = order.index("summary:start"), order.index("summary:done")
    assert order[start + 1 : done] == ["toolStart:read_file", "toolEnd:read_file"]
    assert summaries(engine, result.session_id)
    engine.close()


@pytest.mark.parametrize(
    ("name", "arguments", "finishes"),
    [
        ("goal", {"done": "ok"}, True),
        ("goal", {"abandon": "dead end"}, True),
        ("goal", {"focus": "2"}, False),
        ("goal", {"add": "a, b"}, False),
        ("goal", None, False),
        ("read_file", {"done": "not a goal"}, False),
    ],
)
def test_finishes_goal(name: str, arguments: dict[str, Any] | None, finishes: bool) -> None:
    calls = [ToolCall("c1", "grep", {"pattern": "x"}, ""), ToolCall("c2", name, arguments, "")]
    assert finishes_goal(calls) is finishes
