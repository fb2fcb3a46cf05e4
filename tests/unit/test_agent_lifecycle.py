"""Turn endings and session lifetime: cancellation, provider errors, malformed tool JSON, restart."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from cairn.agent.engine import Engine
from cairn.models.events import TurnEvent
from cairn.models.messages import ToolResultPart
from cairn.settings import Settings
from tests.fakes.timing import FakeTime
from tests.unit.test_agent_support import Recorder, call, make_engine, reply, write_script

LONG_TEXT = " ".join(f"word{i}" for i in range(200))


class TextGate(Recorder):
    """Sets `first_text` when the first text delta arrives."""

    def __init__(self) -> None:
        super().__init__()
        self.first_text = asyncio.Event()

    def on_turn_event(self, event: TurnEvent) -> None:
        super().on_turn_event(event)
        if event.kind == "text":
            self.first_text.set()


async def test_cancel_mid_stream_records_partial_and_session_stays_usable(tmp_path: Path) -> None:
    gate = TextGate()
    engine = make_engine(
        tmp_path,
        [reply(LONG_TEXT, chunkDelay=0.05), reply("Second turn works.")],
        gate,
    )
    task = asyncio.create_task(engine.turn("write a lot"))
    await asyncio.wait_for(gate.first_text.wait(), timeout=60)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    session_id = engine.active_session_id
    trace = engine.store.open(session_id)
    turn = trace.meta().turns[-1]
    assert turn.finish_reason == "cancelled"
    partial = [m for m in trace.messages() if m.role == "assistant"]
    assert len(partial) == 1
    text = partial[0].text()
    assert text and LONG_TEXT.startswith(text) and len(text) < len(LONG_TEXT)
    assert partial[0].turn_id == turn.id
    assert gate.kinds()[-1] == "end"

    result = await engine.turn("again")
    assert result.finish_reason == "stop"
    assert result.text == "Second turn works."
    engine.close()


async def test_rate_limit_is_retried_then_succeeds(tmp_path: Path) -> None:
    recorder = Recorder()
    fake = FakeTime()
    engine = make_engine(
        tmp_path, [{"error": "rate_limit"}, reply("Made it.")], recorder, timing=fake.timing()
    )
    result = await engine.turn("hello")
    assert result.finish_reason == "stop"
    assert result.text == "Made it."
    retries = [e for e in recorder.turn_events if e.kind == "retry"]
    assert [(e.attempt, e.wait_s) for e in retries] == [(2, fake.sleeps[0])]
    assert retries[0].text is not None and "rate limited (HTTP 429)" in retries[0].text
    engine.close()


async def test_server_error_forever_ends_with_a_clear_error(tmp_path: Path) -> None:
    recorder = Recorder()
    engine = make_engine(
        tmp_path,
        [{"error": "server_error"}] * 3,
        recorder,
        timing=FakeTime().timing(),
        model_retries=2,
    )
    result = await engine.turn("hello")
    assert result.finish_reason == "error"
    assert result.error is not None and "gave up after 3 requests" in result.error
    errors = [e for e in recorder.turn_events if e.kind == "error"]
    assert len(errors) == 1 and errors[0].text == result.error
    meta = engine.store.open(result.session_id).meta()
    assert meta.turns[-1].finish_reason == "error"
    assert meta.turns[-1].error == result.error
    engine.close()


def _malformed(name: str = "read_file") -> dict[str, object]:
    return {"text": "", "toolCalls": [{"name": name, "arguments": '{"path": "app.py"'}]}


async def test_malformed_tool_json_is_fed_back_once(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("x = 1\n")
    engine = make_engine(
        tmp_path,
        [_malformed(), reply("", call("read_file", path="app.py")), reply("Done.")],
    )
    result = await engine.turn("read app.py")
    assert result.finish_reason == "stop"
    results = [
        p
        for m in engine.store.open(result.session_id).messages()
        for p in m.parts
        if isinstance(p, ToolResultPart)
    ]
    assert [r.ok for r in results] == [False, True]
    assert "not valid JSON" in results[0].output and '{"path": "app.py"' in results[0].output
    engine.close()


async def test_second_malformed_reply_ends_the_turn(tmp_path: Path) -> None:
    engine = make_engine(tmp_path, [_malformed(), _malformed(), reply("never reached")])
    result = await engine.turn("read app.py")
    assert result.finish_reason == "error"
    assert result.error is not None and "malformed tool-call arguments 2 times" in result.error
    engine.close()


async def test_restart_resumes_the_session_from_its_trace(tmp_path: Path) -> None:
    model = write_script(
        tmp_path, [reply("", call("goal", add="Remember me")), reply("first"), reply("second")]
    )
    settings = Settings(model=model, allowed_commands=[])
    first = Engine([tmp_path], settings)
    result = await first.turn("start")
    session_id = result.session_id
    first.close()

    second = Engine([tmp_path], settings)
    assert second.goal_tree(session_id).tree.goals[0].description == "Remember me"
    resumed = await second.turn("continue", session_id=session_id)
    assert resumed.session_id == session_id
    assert resumed.text == "second"
    meta = second.store.open(session_id).meta()
    assert [t.finish_reason for t in meta.turns] == ["stop", "stop"]
    users = [m.text() for m in second.store.open(session_id).messages() if m.role == "user"]
    assert users == ["start", "continue"]
    # The resumed context still carries the first turn.
    manifest = await second.context_manifest(session_id)
    assert manifest.call_id is not None
    second.close()


async def test_unknown_session_is_a_clear_error(tmp_path: Path) -> None:
    from cairn.errors import UnknownSessionError

    engine = make_engine(tmp_path, [reply("x")])
    with pytest.raises(UnknownSessionError):
        await engine.turn("hi", session_id="nope")
    engine.close()
