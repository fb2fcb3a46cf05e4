"""A background summary called for by a step that finishes the focused goal waits for its fold."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from cairn.agent.compaction.cache_breaks import finishes_goal
from cairn.agent.engine import Engine
from cairn.llm import ModelReply
from cairn.llm.reply import ToolCall
from tests.unit.test_agent_support import call, make_engine, reply
from tests.unit.test_compaction_summary import Spy, Timeline, narrative, project, summaries

WINDOW: dict[str, Any] = {
    "context_window": 12_000,
    "max_output_tokens": 500,
    "safety_margin": 200,
    "compaction_threshold": 0.6,
}


class OrderedSpy(Spy):
    """A `Spy` that also notes each compaction call in the timeline's order."""

    def __init__(self, engine: Engine, order: list[str]) -> None:
        super().__init__(engine)
        self.order = order

    async def complete(
        self, model: str, messages: Sequence[Mapping[str, Any]], tools: Any, **kw: Any
    ) -> ModelReply:
        if kw.get("agent") == "compaction":
            self.order.append("compaction call")
        return await super().complete(model, messages, tools, **kw)


def read_then(finish: dict[str, Any]) -> list[dict[str, Any]]:
    """A goal focused, the big file read, then the reply `finish` (over the early threshold)."""
    return [
        reply("", call("goal", add="Read the big file")),
        reply("", call("goal", focus="1")),
        reply("", call("read_file", path="big.txt")),
        finish,
        reply("Done."),
    ]


async def test_no_compaction_call_for_a_summary_the_fold_leaves_stalled(tmp_path: Path) -> None:
    project(tmp_path)
    timeline = Timeline()
    engine = make_engine(
        tmp_path, read_then(reply("", call("goal", done="read it"))), timeline, **WINDOW
    )
    spy = Spy(engine)
    result = await engine.turn("read")
    assert result.finish_reason == "stop"
    # The summary was called for at the reply; the fold of goal 1 then freed the big read,
    # and no compaction call was spent on a summary that, recorded after the fold, stalls.
    assert spy.calls == []
    order = timeline.order
    assert order[order.index("summary:start") :] == [
        "summary:start",
        "toolStart:goal",
        "toolEnd:goal",
        "goal:start",
        "goal:done",
        "summary:failed",
    ]
    [failed] = [e for e in timeline.compactions if e.stage == "failed"]
    assert failed.error is not None and failed.error.startswith("stalled")
    assert not summaries(engine, result.session_id)
    engine.close()


async def test_a_summary_still_worth_it_after_the_fold_is_made_then(tmp_path: Path) -> None:
    project(tmp_path)
    timeline = Timeline()
    script = [
        # Outside the goal (the fold keeps it), too small to start a summary by itself.
        reply("", call("read_file", path="big.txt", start_line=1, end_line=30)),
        *read_then(reply("", call("goal", done="read it")))[:-1],
        narrative(objective="read the big file twice"),
        reply("Done."),
    ]
    engine = make_engine(tmp_path, script, timeline, **WINDOW)
    spy = OrderedSpy(engine, timeline.order)
    result = await engine.turn("read")
    assert result.finish_reason == "stop"
    order = timeline.order
    # Called for at the reply that finished goal 1, the compaction call is made once the
    # fold is (the range read before the goal is left for it to cover), and recorded.
    assert order[order.index("summary:start") :] == [
        "summary:start",
        "toolStart:goal",
        "toolEnd:goal",
        "goal:start",
        "goal:done",
        "compaction call",
        "summary:done",
    ]
    assert len(spy.calls) == 1
    [summary] = summaries(engine, result.session_id)
    assert summary.objective == "read the big file twice"
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
