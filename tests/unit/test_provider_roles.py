"""Provider settings over real HTTP: per-role models, sessions keeping their model, deadlines,
context-length recovery, headers and extra parameters, keys, and no model at all.

The local OpenAI-compatible server records the model name of every request,
so the tests see which call went to which model.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from cairn.agent.engine import Engine
from cairn.errors import ModelError, NoModelError
from cairn.llm.provider import PLACEHOLDER_KEY
from cairn.settings import Settings
from tests.fakes.http_engine import KEY_VALUE, KEY_VARIABLE, MODEL, MODEL_NAME, http_engine
from tests.fakes.openai_server import OpenAIServer, RecordedRequest, Reply, prompt_units
from tests.fakes.timing import FakeTime
from tests.unit.test_agent_support import Recorder

SUMMARY_MODEL = "summary-model"
# In litellm's map (a window of 1,047,576): branches build for it, not for the main window.
EXPLORE_MODEL = "gpt-4.1-mini"
# Characters of each file the history test reads (a read stays inline below 24,000).
FILE_CHARS = 20_000


class ByModel:
    """A responder with one queue of replies per model name (a default reply when empty)."""

    def __init__(self, default: Reply | None = None) -> None:
        self.queues: dict[str, list[Reply]] = {}
        self.default = default or Reply(text="ok")

    def add(self, model: str, *replies: Reply) -> None:
        self.queues.setdefault(model, []).extend(replies)

    def __call__(self, request: RecordedRequest) -> Reply:
        queue = self.queues.get(request.model) or []
        return queue.pop(0) if queue else self.default


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    with OpenAIServer(cache="none") as running:
        yield running


@pytest.fixture(autouse=True)
def key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_VARIABLE, KEY_VALUE)


def models_seen(server: OpenAIServer) -> list[str]:
    return [r.model for r in server.requests]


def write_files(root: Path, count: int) -> list[str]:
    names = []
    for index in range(count):
        name = f"part{index}.txt"
        words = " ".join(f"w{index}_{n}" for n in range(FILE_CHARS // 8))
        (root / name).write_text(words[:FILE_CHARS] + "\n", encoding="utf-8")
        names.append(name)
    return names


def reads(names: list[str]) -> list[Reply]:
    """One step per file (a summary may cover whole steps only)."""
    return [Reply(tool_calls=[{"name": "read_file", "arguments": {"path": n}}]) for n in names]


async def test_each_role_calls_its_own_model(server: OpenAIServer, tmp_path: Path) -> None:
    routes = ByModel()
    server.responder = routes
    names = write_files(tmp_path, 3)
    routes.add(
        MODEL_NAME,
        *reads(names),
        Reply(tool_calls=[{"name": "explore", "arguments": {"branches": ["one", "two"]}}]),
        Reply(text="Done exploring."),
    )
    routes.add(EXPLORE_MODEL, Reply(text="branch conclusion"), Reply(text="branch conclusion"))
    routes.add(SUMMARY_MODEL, Reply(text='{"objective": "explore the parts"}'))
    engine = http_engine(
        server,
        tmp_path,
        compaction_model=f"openai/{SUMMARY_MODEL}",
        explore_model=f"openai/{EXPLORE_MODEL}",
        context_window=16_000,
    )
    result = await engine.turn("explore")
    assert result.finish_reason == "stop"
    compacted = await engine.compact(result.session_id)
    assert compacted.kind == "summary"
    seen = models_seen(server)
    assert seen.count(MODEL_NAME) == 5
    assert seen.count(EXPLORE_MODEL) == 2
    assert seen.count(SUMMARY_MODEL) == 1
    # Every role's request went to the same configured endpoint with the same key.
    assert {r.header("Authorization") for r in server.requests} == {f"Bearer {KEY_VALUE}"}
    branch_manifests = [
        json.loads(line)
        for path in (tmp_path / ".cairn").rglob("branches/*/manifests.jsonl")
        for line in path.read_text(encoding="utf-8").splitlines()
    ]
    assert len(branch_manifests) == 2
    assert all(m["model"] == f"openai/{EXPLORE_MODEL}" for m in branch_manifests)
    assert all(m["availableInput"] > 16_000 for m in branch_manifests)  # the model's own window
    engine.close()


async def test_a_session_keeps_its_model_until_another_is_chosen(
    server: OpenAIServer, tmp_path: Path
) -> None:
    def engine(model: str) -> Engine:
        return http_engine(server, tmp_path, model=model)

    first = engine("openai/model-a")
    session_id = (await first.turn("one")).session_id
    first.close()
    switched = engine("openai/model-a")
    await switched.turn("two", session_id=session_id, model="openai/model-b")
    turn = switched.store.open(session_id).meta().turns[-1]
    assert (turn.model, turn.switched_from) == ("openai/model-b", "openai/model-a")
    switched.close()
    resumed = engine("openai/model-a")  # the same configuration: the session's model wins
    await resumed.turn("three", session_id=session_id)
    resumed.close()
    reconfigured = engine("openai/model-c")  # the setting changed: a new choice
    await reconfigured.turn("four", session_id=session_id)
    meta = reconfigured.store.open(session_id).meta()
    reconfigured.close()
    assert models_seen(server) == ["model-a", "model-b", "model-b", "model-c"]
    assert [t.model for t in meta.turns] == [
        "openai/model-a",
        "openai/model-b",
        "openai/model-b",
        "openai/model-c",
    ]


async def test_a_context_length_refusal_compacts_retries_once_and_is_remembered(
    server: OpenAIServer, tmp_path: Path
) -> None:
    recorder = Recorder()
    routes = ByModel()
    server.responder = routes
    names = write_files(tmp_path, 4)
    limit = 12_000
    refused: list[RecordedRequest] = []

    def refuse(request: RecordedRequest) -> Reply:
        refused.append(request)
        return Reply.context_length(limit=limit, used=len("".join(prompt_units(request.body))) // 4)

    routes.add(MODEL_NAME, *reads(names), Reply(text="Read them all."))
    routes.add(SUMMARY_MODEL, Reply(text='{"objective": "read the parts"}'))
    engine = http_engine(
        server,
        tmp_path,
        recorder,
        compaction_model=f"openai/{SUMMARY_MODEL}",
        prune_minimum=1_000,
        prune_protect=2_000,
    )
    first = await engine.turn("read every part")
    assert first.finish_reason == "stop"
    before = len(server.requests)
    routes.queues[MODEL_NAME] = []
    server.responder = lambda request: refuse(request) if not refused else routes(request)
    routes.add(MODEL_NAME, Reply(text="Answered after compaction."))
    second = await engine.turn("summarise what you read", session_id=first.session_id)
    assert second.finish_reason == "stop" and second.text == "Answered after compaction."
    main = [r for r in server.requests[before:] if r.model == MODEL_NAME]
    assert len(main) == 2  # the refused request and its one retry
    sizes = [len("".join(prompt_units(r.body))) for r in main]
    assert sizes[1] < sizes[0]
    manifests = engine.store.open(first.session_id).manifests()
    retried = manifests[-1]
    assert retried.retry_of == manifests[-2].call_id
    assert retried.retry_reason is not None
    assert f"the provider's limit is {limit} tokens" in retried.retry_reason
    assert "retried once" in retried.retry_reason
    learned = engine.store.open(first.session_id).meta().context_limits[MODEL]
    assert 0 < learned <= limit
    assert retried.available_input <= learned
    assert any(e.stage == "start" for e in recorder.compactions)
    engine.close()
    # A new process on the same session builds within the remembered limit from the start.
    later = http_engine(server, tmp_path)
    server.responder = lambda request: Reply(text="ok")
    await later.turn("and now?", session_id=first.session_id)
    assert later.store.open(first.session_id).manifests()[-1].available_input <= learned
    later.close()


async def test_a_context_length_refusal_after_the_retry_ends_the_turn(
    server: OpenAIServer, tmp_path: Path
) -> None:
    too_long = {
        "message": "This model's maximum context length is 32000 tokens.",
        "code": "context_length_exceeded",
    }
    server.responder = lambda request: Reply(status=400, error=too_long)
    engine = http_engine(server, tmp_path)
    result = await engine.turn("hello")
    assert result.finish_reason == "error"
    assert result.error is not None and result.error.startswith("still too long after compacting")
    assert len(server.requests) == 2
    engine.close()


async def test_retry_waits_stop_at_the_call_deadline(server: OpenAIServer, tmp_path: Path) -> None:
    fake = FakeTime()
    server.responder = lambda request: Reply.rate_limit(retry_after_s=30)
    engine = http_engine(server, tmp_path, fake=fake, model_retries=10, call_deadline_s=70)
    result = await engine.turn("hello")
    assert result.finish_reason == "error"
    assert len(server.requests) == 3
    assert fake.waits == [30.0, 30.0]
    assert result.error is not None
    assert "gave up after 3 requests over" in result.error
    assert "the next wait of 30.0 s (Retry-After) would pass the deadline" in result.error
    assert "(call_deadline_s = 70)" in result.error
    engine.close()


async def test_retry_waits_stop_at_the_turn_deadline(server: OpenAIServer, tmp_path: Path) -> None:
    fake = FakeTime()
    server.responder = lambda request: Reply.rate_limit(retry_after_s=30)
    engine = http_engine(server, tmp_path, fake=fake, model_retries=10, turn_deadline_s=50)
    result = await engine.turn("hello")
    assert len(server.requests) == 2
    assert result.error is not None and "turn_deadline_s = 50" in result.error
    engine.close()


async def test_headers_and_extra_params_reach_the_wire(
    server: OpenAIServer, tmp_path: Path
) -> None:
    engine = http_engine(
        server,
        tmp_path,
        extra_headers={"X-Team": "cairn-ci"},
        extra_params={"temperature": 0.25, "seed": 7},
    )
    await engine.turn("hello")
    [request] = server.requests
    assert request.header("X-Team") == "cairn-ci"
    assert request.body["temperature"] == 0.25 and request.body["seed"] == 7
    assert request.body["max_tokens"] == 1_000
    engine.close()


async def test_a_local_server_needs_no_key_variable(
    server: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    engine = http_engine(server, tmp_path, api_key_env=None)
    result = await engine.turn("hello")
    assert result.finish_reason == "stop"
    assert server.requests[0].header("Authorization") == f"Bearer {PLACEHOLDER_KEY}"
    server.queue(Reply.unauthorized())
    refused = await engine.turn("again", session_id=result.session_id)
    assert refused.error is not None
    assert "no key was sent (OPENAI_API_KEY is not set; set it or api_key_env)" in refused.error
    engine.close()


async def test_a_missing_key_variable_fails_before_any_request_or_record(
    server: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(KEY_VARIABLE)
    engine = http_engine(server, tmp_path)
    with pytest.raises(ModelError) as raised:
        await engine.turn("hello")
    assert str(raised.value) == (
        f"model {MODEL}: {KEY_VARIABLE} is not set (api_key_env names it): export it with your"
        " openai API key"
    )
    assert server.requests == []
    assert engine.store.list() == []
    engine.close()


async def test_the_provider_key_variable_is_checked_before_calling(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    engine = Engine([tmp_path], Settings(model="openai/gpt-4o-mini"))
    with pytest.raises(ModelError, match="OPENAI_API_KEY is not set: export it"):
        await engine.turn("hello")
    assert engine.store.list() == []
    engine.close()


async def test_no_model_configured_says_how_to_set_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEEPSEEK_API_KEY", "sk-test")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    engine = Engine([tmp_path], Settings())
    with pytest.raises(NoModelError) as raised:
        await engine.turn("hello")
    message = str(raised.value)
    assert message.startswith("no model configured. Set `model` in cairn.toml (or pass --model)")
    assert 'model = "deepseek/deepseek-chat"    # DEEPSEEK_API_KEY is set' in message
    assert engine.store.list() == []
    with pytest.raises(NoModelError):
        await engine.context_stats()
    engine.close()
