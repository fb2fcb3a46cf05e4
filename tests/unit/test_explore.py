"""explore: concurrent read-only branches with their own traces, one structured result."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from cairn.agent.engine import Engine
from cairn.llm import ModelReply
from cairn.models.messages import SubtaskPart, ToolResultPart
from tests.unit.test_agent_support import call, make_engine, reply

BRANCH_LANES = {"0", "1", "2"}
BARRIER_TIMEOUT_S = 60


class Overlap:
    """Holds every branch's first model call until `expected` branch calls are in flight.

    If the branches ran one after another, the barrier would never open and the
    test would fail on the timeout: reaching it proves they overlap.
    """

    def __init__(self, engine: Engine, expected: int) -> None:
        self.expected = expected
        self.in_flight = 0
        self.max_in_flight = 0
        self.lanes_seen: list[str] = []
        self.opened = asyncio.Event()
        self._inner = engine.runtime.complete
        engine.runtime.complete = self.complete  # type: ignore[method-assign]

    async def complete(
        self, model: str, messages: Sequence[Mapping[str, Any]], tools: Any, **kw: Any
    ) -> ModelReply:
        names = kw.get("agent")
        # A branch's lane is named by its index first, then its trace name and text.
        lane = names[0] if isinstance(names, tuple) else names
        if lane not in BRANCH_LANES:
            return await self._inner(model, messages, tools, **kw)
        self.lanes_seen.append(lane)
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.in_flight >= self.expected:
                self.opened.set()
            await asyncio.wait_for(self.opened.wait(), BARRIER_TIMEOUT_S)
            return await self._inner(model, messages, tools, **kw)
        finally:
            self.in_flight -= 1


def branch_script() -> list[dict[str, Any]]:
    return [
        reply(
            "Exploring.",
            call(
                "explore",
                branches=["Check the sign", "Check the types", "Check the tests"],
                background="add() in app.py returns a - b.",
            ),
        ),
        reply("Branch 0 says the sign is wrong.", agent="0"),
        {"agent": "1", "error": "bad_request"},
        reply("", call("read_file", path="app.py"), agent="0"),
        reply("", call("edit_file", path="app.py", new="hacked\n"), agent="2"),
        reply("No tests exist; nothing to run.", agent="2"),
        reply("Done exploring."),
    ]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "app.py").write_text("def add(a, b):\n    return a - b\n")
    return tmp_path


async def test_three_branches_run_concurrently_and_one_failure_is_contained(
    project: Path,
) -> None:
    script = branch_script()
    # Branch 0 reads first, then concludes: reorder its lines.
    script[1], script[3] = script[3], script[1]
    engine = make_engine(project, script)
    overlap = Overlap(engine, expected=3)
    result = await engine.turn("why does add fail?")
    assert result.finish_reason == "stop"
    assert overlap.max_in_flight == 3

    session = engine.session(result.session_id)
    tool_message = next(
        m
        for m in session.messages()
        if any(isinstance(p, ToolResultPart) and p.name == "explore" for p in m.parts)
    )
    [outcome] = [p for p in tool_message.parts if isinstance(p, ToolResultPart)]
    report = json.loads(outcome.output)["branches"]
    assert [b["status"] for b in report] == ["completed", "failed", "completed"]
    assert report[0]["conclusion"] == "Branch 0 says the sign is wrong."
    assert report[0]["evidence"] == ["app.py"]
    assert report[0]["tokens"] > 0
    assert "bad request" in report[1]["error"]
    assert report[2]["conclusion"] == "No tests exist; nothing to run."
    # Branches only get read-only tools: the edit was refused and nothing changed.
    assert (project / "app.py").read_text().startswith("def add")

    subtasks = [p for p in tool_message.parts if isinstance(p, SubtaskPart)]
    assert [s.status for s in subtasks] == ["completed", "failed", "completed"]
    assert session.trace.branches() == ["explore1-0", "explore1-1", "explore1-2"]
    branch = session.trace.existing_branch("explore1-0")
    assert branch is not None
    first = branch.messages()[0]
    assert first.role == "user" and "add() in app.py returns a - b." in first.text()
    engine.close()


async def test_concurrency_limit_is_respected(project: Path) -> None:
    script = branch_script()
    script[1], script[3] = script[3], script[1]
    engine = make_engine(project, script, explore_concurrency=2)
    overlap = Overlap(engine, expected=2)
    result = await engine.turn("why does add fail?")
    assert result.finish_reason == "stop"
    assert overlap.max_in_flight == 2
    engine.close()


async def test_cancelling_the_parent_cancels_every_branch(project: Path) -> None:
    engine = make_engine(
        project,
        [
            reply("", call("explore", branches=["a", "b"])),
            reply("slow a", agent="0", delay=60),
            reply("slow b", agent="1", delay=60),
        ],
    )
    overlap = Overlap(engine, expected=2)
    task = asyncio.create_task(engine.turn("explore slowly"))
    await asyncio.wait_for(overlap.opened.wait(), BARRIER_TIMEOUT_S)
    await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    session = engine.session(engine.active_session_id)
    assert session.meta().turns[-1].finish_reason == "cancelled"
    for name in session.trace.branches():
        branch = session.trace.existing_branch(name)
        assert branch is not None
        assert branch.meta().turns[-1].finish_reason == "cancelled"
    assert len(session.trace.branches()) == 2
    engine.close()


def _results(messages: Sequence[Any]) -> list[ToolResultPart]:
    return [p for m in messages for p in m.parts if isinstance(p, ToolResultPart)]


async def test_refusals_say_why_a_tool_is_not_run(project: Path) -> None:
    engine = make_engine(
        project,
        [
            reply("", call("no_such_tool")),
            reply("", call("explore", branches=["Run the tests"], background="app.py")),
            reply("", call("run_command", command="true"), agent="Run the tests"),
            reply("Could not run them here.", agent="0"),
            reply("Done."),
        ],
    )
    try:
        result = await engine.turn("look around")
        assert result.finish_reason == "stop"
        session = engine.session(result.session_id)
        [unknown] = [r for r in _results(session.messages()) if r.name == "no_such_tool"]
        assert not unknown.ok
        assert unknown.output.startswith("error: unknown tool 'no_such_tool' (available: ")
        branch = session.trace.existing_branch("explore1-0")
        assert branch is not None
        [refused] = [r for r in _results(branch.messages()) if r.name == "run_command"]
        assert not refused.ok
        assert "not available in a read-only explore branch" in refused.output
        assert "build mode" not in refused.output
    finally:
        engine.close()
