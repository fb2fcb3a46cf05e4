"""Whole turns against a local OpenAI-compatible server, through litellm's `openai/` provider.

Every provider behaviour a user meets, over real HTTP with `api_base` and
`api_key_env` from the settings: a normal tool-calling turn, rate limits
with `Retry-After`, 5xx, a hung provider, a stream cut mid-reply, malformed
tool-call JSON, an unknown tool, an empty reply, a context-length refusal
and a refused key. After each, the trace says why the turn ended and the
session takes another turn. Request counts are exact: litellm's and the
SDK's own retries are off, so each request the server records is one of
Cairn's.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from cairn.agent.engine import Engine
from cairn.models.messages import ToolResultPart
from cairn.models.session import Turn
from tests.fakes.http_engine import KEY_VALUE, KEY_VARIABLE, MODEL, MODEL_NAME, http_engine
from tests.fakes.openai_server import OpenAIServer, Reply
from tests.fakes.timing import FakeTime
from tests.unit.test_agent_support import Recorder

# Seconds a hung request waits before the fixture answers (far past the timeout used).
HANG_S = 5.0
SHORT_TIMEOUT_S = 0.5


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    with OpenAIServer(cache="none") as running:
        yield running


@pytest.fixture(autouse=True)
def key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_VARIABLE, KEY_VALUE)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "notes.md").write_text("remember the milk\n", encoding="utf-8")
    return tmp_path


def last_turn(engine: Engine, session_id: str) -> Turn:
    return engine.store.open(session_id).meta().turns[-1]


def tool_results(engine: Engine, session_id: str) -> list[ToolResultPart]:
    messages = engine.store.open(session_id).messages()
    return [p for m in messages for p in m.parts if isinstance(p, ToolResultPart)]


async def assert_usable(engine: Engine, server: OpenAIServer, session_id: str) -> None:
    """The session takes another turn after whatever went wrong."""
    server.queue(Reply(text="Still here."))
    again = await engine.turn("are you there?", session_id=session_id)
    assert again.finish_reason == "stop" and again.text == "Still here."


async def test_a_tool_calling_turn_goes_over_http_with_the_configured_key(
    server: OpenAIServer, root: Path
) -> None:
    recorder = Recorder()
    engine = http_engine(server, root, recorder)
    server.queue(
        Reply(
            text="Reading.", tool_calls=[{"name": "read_file", "arguments": {"path": "notes.md"}}]
        ),
        Reply(text="The notes say: remember the milk."),
    )
    result = await engine.turn("what do the notes say?")
    assert result.finish_reason == "stop"
    assert result.text == "The notes say: remember the milk."
    assert [r.model for r in server.requests] == [MODEL_NAME, MODEL_NAME]
    assert all(r.header("Authorization") == f"Bearer {KEY_VALUE}" for r in server.requests)
    assert all(r.body["stream"] is True for r in server.requests)
    second = server.requests[1].messages
    assert any(m["role"] == "tool" and "remember the milk" in str(m["content"]) for m in second)
    [read] = tool_results(engine, result.session_id)
    assert read.ok
    usage = [e for e in recorder.turn_events if e.kind == "usage"]
    assert len(usage) == 2 and all(e.model == MODEL and e.attempt == 1 for e in usage)
    assert all(e.usage is not None and e.usage.input_tokens > 0 for e in usage)
    assert len(engine.store.open(result.session_id).manifests()) == 2
    engine.close()


async def test_a_rate_limit_waits_what_retry_after_asks_and_shows_the_retry(
    server: OpenAIServer, root: Path
) -> None:
    recorder, fake = Recorder(), FakeTime()
    engine = http_engine(server, root, recorder, fake)
    server.queue(Reply.rate_limit(retry_after_s=7), Reply(text="Made it."))
    result = await engine.turn("hello")
    assert result.finish_reason == "stop" and result.text == "Made it."
    assert len(server.requests) == 2
    assert fake.waits == [7.0]
    [retry] = [e for e in recorder.turn_events if e.kind == "retry"]
    assert (retry.attempt, retry.wait_s) == (2, 7.0)
    assert retry.text is not None
    assert "rate limited (HTTP 429): Rate limit reached" in retry.text
    assert "retrying in 7.0 s (request 2)" in retry.text
    engine.close()


async def test_a_server_error_is_retried_after_a_backoff(server: OpenAIServer, root: Path) -> None:
    fake = FakeTime(backoff_base_s=1.5)
    engine = http_engine(server, root, fake=fake)
    server.queue(Reply.server_error(), Reply(text="Recovered."))
    result = await engine.turn("hello")
    assert result.finish_reason == "stop" and result.text == "Recovered."
    assert len(server.requests) == 2
    assert fake.waits == [1.5]
    engine.close()


async def test_a_permanent_server_error_takes_exactly_retries_plus_one_requests(
    server: OpenAIServer, root: Path
) -> None:
    fake = FakeTime(backoff_base_s=1.0)
    engine = http_engine(server, root, fake=fake, model_retries=3)
    server.responder = lambda request: Reply.server_error()
    result = await engine.turn("hello")
    assert result.finish_reason == "error"
    assert len(server.requests) == 4
    assert fake.waits == [1.0, 2.0, 4.0]
    assert result.error is not None
    assert result.error.startswith(
        f"model {MODEL}: server error (HTTP 500): The server had an error"
    )
    assert "gave up after 4 requests over" in result.error
    assert "(model_retries = 3)" in result.error
    turn = last_turn(engine, result.session_id)
    assert (turn.finish_reason, turn.error) == ("error", result.error)
    server.responder = lambda request: Reply(text="Still here.")
    again = await engine.turn("again", session_id=result.session_id)
    assert again.finish_reason == "stop"
    engine.close()


async def test_a_hung_provider_times_out_after_model_timeout_s_on_every_request(
    server: OpenAIServer, root: Path
) -> None:
    engine = http_engine(server, root, model_timeout_s=SHORT_TIMEOUT_S, model_retries=1)
    server.queue(Reply(hang_s=HANG_S), Reply(hang_s=HANG_S))
    result = await engine.turn("hello")
    assert result.finish_reason == "error"
    assert len(server.requests) == 2
    assert result.error is not None and "timed out" in result.error
    assert f"model_timeout_s = {SHORT_TIMEOUT_S:g} s" in result.error
    assert "gave up after 2 requests" in result.error
    await assert_usable(engine, server, result.session_id)
    engine.close()


async def test_a_stream_cut_after_text_ends_the_turn_and_keeps_the_partial_reply(
    server: OpenAIServer, root: Path
) -> None:
    engine = http_engine(server, root)
    full = "The first words of a long answer that never ends"
    server.queue(Reply(text=full, cut_after=3))
    result = await engine.turn("hello")
    assert result.finish_reason == "error"
    assert len(server.requests) == 1  # text was shown: a retry would repeat it
    assert result.error is not None and "stream cut" in result.error
    assert "not retried: the reply had already started streaming" in result.error
    messages = engine.store.open(result.session_id).messages()
    [partial] = [m.text() for m in messages if m.role == "assistant"]
    assert 0 < len(partial) < len(full) and full.startswith(partial)
    assert last_turn(engine, result.session_id).error == result.error
    await assert_usable(engine, server, result.session_id)
    engine.close()


async def test_a_stream_cut_before_any_text_is_retried(server: OpenAIServer, root: Path) -> None:
    recorder = Recorder()
    engine = http_engine(server, root, recorder)
    server.queue(Reply(text="lost", cut_after=1), Reply(text="Whole this time."))
    result = await engine.turn("hello")
    assert result.finish_reason == "stop" and result.text == "Whole this time."
    assert len(server.requests) == 2
    [retry] = [e for e in recorder.turn_events if e.kind == "retry"]
    assert retry.text is not None and retry.text.startswith("stream cut")
    engine.close()


async def test_malformed_tool_call_json_is_shown_to_the_model_once(
    server: OpenAIServer, root: Path
) -> None:
    engine = http_engine(server, root)
    broken = '{"path": "notes.md"'
    server.queue(
        Reply(tool_calls=[{"name": "read_file", "arguments": broken}]),
        Reply(text="Sorry, fixed."),
    )
    result = await engine.turn("read the notes")
    assert result.finish_reason == "stop"
    [feedback] = tool_results(engine, result.session_id)
    assert not feedback.ok and "not valid JSON" in feedback.output and broken in feedback.output
    assert any(
        m["role"] == "tool" and "not valid JSON" in str(m["content"])
        for m in server.requests[1].messages
    )
    engine.close()


async def test_an_unknown_tool_gets_an_error_result_and_the_turn_goes_on(
    server: OpenAIServer, root: Path
) -> None:
    engine = http_engine(server, root)
    server.queue(
        Reply(tool_calls=[{"name": "launch_rockets", "arguments": {"count": 3}}]),
        Reply(text="I will stick to the tools I have."),
    )
    result = await engine.turn("do something wild")
    assert result.finish_reason == "stop"
    [refused] = tool_results(engine, result.session_id)
    assert not refused.ok and "unknown tool 'launch_rockets'" in refused.output
    engine.close()


async def test_an_empty_reply_is_asked_again_once_then_reported(
    server: OpenAIServer, root: Path
) -> None:
    recorder = Recorder()
    engine = http_engine(server, root, recorder)
    server.queue(Reply(text=""), Reply(text=""))
    result = await engine.turn("hello")
    assert result.finish_reason == "error"
    assert len(server.requests) == 2
    assert result.error is not None and "empty reply (no text and no tool call" in result.error
    assert "2 requests over" in result.error
    assert [e.attempt for e in recorder.turn_events if e.kind == "retry"] == [2]
    assert last_turn(engine, result.session_id).finish_reason == "error"
    await assert_usable(engine, server, result.session_id)
    engine.close()


async def test_one_empty_reply_then_an_answer_is_a_normal_turn(
    server: OpenAIServer, root: Path
) -> None:
    engine = http_engine(server, root)
    server.queue(Reply(text=""), Reply(text="Here."))
    result = await engine.turn("hello")
    assert result.finish_reason == "stop" and result.text == "Here."
    assert len(server.requests) == 2
    engine.close()


async def test_a_refused_key_is_not_retried_and_the_message_names_the_variable(
    server: OpenAIServer, root: Path
) -> None:
    fake = FakeTime()
    engine = http_engine(server, root, fake=fake, model_retries=3)
    server.queue(Reply.unauthorized())
    result = await engine.turn("hello")
    assert result.finish_reason == "error"
    assert len(server.requests) == 1 and fake.waits == []
    assert result.error is not None
    assert "authentication failed (HTTP 401): Incorrect API key provided" in result.error
    assert f"check {KEY_VARIABLE} (api_key_env key variable)" in result.error
    assert KEY_VALUE not in result.error
    await assert_usable(engine, server, result.session_id)
    engine.close()


async def test_a_provider_error_names_the_provider_status_and_the_fix(
    server: OpenAIServer, root: Path
) -> None:
    engine = http_engine(server, root)
    missing = {"message": "The model `fixture-model` does not exist", "code": "model_not_found"}
    server.queue(Reply(status=404, error=missing))
    result = await engine.turn("hello")
    assert result.error is not None
    assert "model not found (HTTP 404): The model `fixture-model` does not exist" in result.error
    assert f"check the model name served at {server.base_url}" in result.error
    assert len(server.requests) == 1
    engine.close()
