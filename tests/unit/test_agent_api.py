"""The engine facade: it implements `EngineApi` and its session bookkeeping."""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn.agent.api import EngineApi
from cairn.errors import GoalError, UnknownSessionError
from tests.unit.test_agent_support import Recorder, make_engine, reply


async def test_engine_implements_the_api_and_manages_sessions(tmp_path: Path) -> None:
    recorder = Recorder()
    engine: EngineApi = make_engine(tmp_path, [reply("one"), reply("two")], recorder)
    active = engine.active_session_id
    assert engine.active_session_id == active
    first = await engine.turn("hello there")
    assert first.session_id == active
    [info] = engine.sessions()
    assert info.session_id == active and info.turns == 1 and info.title == "hello there"

    child = engine.fork(active)
    assert {s.session_id for s in engine.sessions()} == {active, child}
    second = await engine.turn("in the fork", session_id=child)
    assert second.session_id == child

    stats = await engine.context_stats(active)
    assert stats.session_id == active and stats.used_input <= stats.available_input
    assert len(recorder.stats) == 2  # one per model call
    last = await engine.context_manifest(active)
    assert last.call_id is not None
    dry = await engine.context_manifest(active, message="what next?")
    assert dry.call_id is None and any(b.source == "user" for b in dry.blocks)

    with pytest.raises(GoalError):
        await engine.goal_async(active, done="nothing is focused")
    assert engine.goal_tree(active).tree.goals == []

    engine.delete_session(child)
    with pytest.raises(UnknownSessionError):
        engine.goal_tree(child)
    assert "python" not in engine.project_profile().languages
    (tmp_path / "tool.py").write_text("print('hi')\n")
    assert "python" in engine.project_profile(refresh=True).languages
    engine.close()
