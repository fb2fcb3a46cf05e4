"""The meter's answer never waits for other work (`cairn.agent.meter`), and a goal's fold
left by a cancelled request waits for the next turn (`Engine.goal_async`).

The engine is real (scripted model). The stats builds here are the engine's own,
with the one moment a build learns it must wait for another (its `on_wait`)
staged by the test, which also decides when that build ends: the order of
what is answered is asserted, never a duration.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from cairn.agent.meter import Meter
from cairn.models.manifest import ContextStats
from tests.unit.test_agent_support import Recorder, make_engine


async def test_a_build_that_finds_another_running_answers_the_last_figure_then_sends_the_fresh(
    tmp_path: Path,
) -> None:
    recorder = Recorder()
    engine = make_engine(tmp_path, [], recorder)
    first = await engine.context_stats()
    session = engine.session()
    assert session.last_stats == first and not first.stale
    release = asyncio.Event()
    builds = 0

    async def build(on_wait: Callable[[], None]) -> ContextStats:
        nonlocal builds
        builds += 1
        on_wait()  # as a gather does on its worker thread when another one runs
        await release.wait()
        return first.model_copy(update={"used_input": first.used_input + 1})

    meter = Meter(recorder)
    answer = await meter.stats(session, build)
    assert answer == first.model_copy(update={"stale": True})
    assert await meter.stats(session, build) == answer  # joins the build under way
    assert builds == 1 and recorder.stats == []
    release.set()
    while not recorder.stats:
        await asyncio.sleep(0)
    [fresh] = recorder.stats
    assert fresh.used_input == first.used_input + 1 and not fresh.stale
    assert session.last_stats == fresh
    engine.close()


async def test_a_build_that_does_not_wait_answers_the_fresh_figure(tmp_path: Path) -> None:
    recorder = Recorder()
    engine = make_engine(tmp_path, [], recorder)
    first = await engine.context_stats()

    async def build(on_wait: Callable[[], None]) -> ContextStats:
        await asyncio.sleep(0)
        return first.model_copy(update={"used_input": 7})

    answer = await Meter(recorder).stats(engine.session(), build)
    assert answer.used_input == 7 and not answer.stale and recorder.stats == []
    engine.close()


async def test_a_cancelled_goal_request_leaves_its_fold_to_the_next_turn(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("the notes\n" * 200, encoding="utf-8")
    read = {"toolCalls": [{"name": "read_file", "arguments": {"path": "notes.txt"}}]}
    engine = make_engine(tmp_path, [read, {"text": "Read."}])
    await engine.goal_async(add="Read")
    await engine.goal_async(focus="1")
    await engine.turn("read notes.txt")
    session = engine.session()
    session.cache.snapshot = None  # the fold gathers first: cancelled while it does
    request = asyncio.ensure_future(engine.goal_async(done="read"))
    await asyncio.sleep(0)
    request.cancel()
    await asyncio.gather(request, return_exceptions=True)
    assert request.cancelled()
    assert [fold.goal_id for fold in session.pending_folds] == ["1"]
    assert engine.goal_tree().tree.goals[0].status == "completed"
    assert not session.turn_lock.locked()
    engine.close()
