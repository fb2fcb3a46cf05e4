"""Learned context limits: a stated limit that leaves no room is not kept, `cairn models` lists
the kept ones with how to clear them, `cairn trace forget-limits` clears them.

The provider is the local OpenAI-compatible server answering a context-length
error (litellm's `openai/` provider over real HTTP); the commands run as the
user runs them, in a subprocess.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from cairn.acp.notices import limit_notice
from cairn.agent.api import LearnedLimit
from cairn.agent.listener import SafeListener
from cairn.agent.sessions.session import Session
from cairn.models.session import ForgetLimitsRecord, LimitRecord
from cairn.trace import TraceStore
from tests.fakes.http_engine import KEY_VALUE, KEY_VARIABLE, MODEL, http_engine
from tests.fakes.openai_server import OpenAIServer, Reply
from tests.unit.test_cli_models import KEY_VARIABLE as CLI_KEY
from tests.unit.test_cli_models import cairn, clean_env, trusted_workspace

# Below the fixture's fixed part: its tool schemas, 1,000 reserved for output, 200 of margin.
TINY_LIMIT = 1_500
ROOMY_LIMIT = 20_000


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    with OpenAIServer(cache="none") as running:
        yield running


@pytest.fixture(autouse=True)
def key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_VARIABLE, KEY_VALUE)


async def test_a_limit_below_the_fixed_part_is_not_kept_and_the_turn_says_why(
    server: OpenAIServer, tmp_path: Path
) -> None:
    server.queue(Reply.context_length(limit=TINY_LIMIT, used=6_000))
    engine = http_engine(server, tmp_path)
    try:
        result = await engine.turn("hello")
        assert result.finish_reason == "error" and result.error is not None
        assert f"states a context limit of {TINY_LIMIT} tokens" in result.error
        assert "leaves no room for input" in result.error and "not kept" in result.error
        assert "max_output_tokens 1000" in result.error and "Fix: " in result.error
        assert len(server.requests) == 1  # no compaction, no retry: nothing could fit
        trace = engine.store.open(result.session_id)
        assert trace.meta().context_limits == {}
        assert not any(isinstance(r, LimitRecord) for r in trace.journal())
        # The session is not bricked: the next turn is built and answered.
        server.queue(Reply(text="fine"))
        again = await engine.turn("again", session_id=result.session_id)
        assert again.finish_reason == "stop" and again.text == "fine"
    finally:
        engine.close()


async def test_a_kept_limit_that_leaves_no_room_does_not_brick_the_session(
    server: OpenAIServer, tmp_path: Path
) -> None:
    engine = http_engine(server, tmp_path)
    try:
        server.queue(Reply(text="first"))
        first = await engine.turn("hello")
        # What an older version kept: a stated limit below the fixed part.
        engine.session(first.session_id).remember_limit(MODEL, TINY_LIMIT)
        server.queue(Reply(text="second"))
        second = await engine.turn("again", session_id=first.session_id)
        assert second.finish_reason == "stop" and second.text == "second"
    finally:
        engine.close()


def workspace_with_limit(root: Path, server: OpenAIServer) -> str:
    """A trusted workspace served by `server`, with a session that learned a limit."""
    trusted_workspace(root, server, MODEL)
    trace = TraceStore(root / ".cairn").create()
    Session(trace).remember_limit(MODEL, ROOMY_LIMIT)
    trace.close()
    return trace.id


def test_models_lists_a_learned_limit_and_forget_limits_clears_it(
    server: OpenAIServer, tmp_path: Path
) -> None:
    session_id = workspace_with_limit(tmp_path, server)
    env = clean_env(**{CLI_KEY: KEY_VALUE})
    shown = cairn(tmp_path, "models", env=env)
    assert shown.returncode == 0, shown.stderr
    line = next(x for x in shown.stdout.splitlines() if x.strip().startswith("learned"))
    assert f"20,000 tokens in session {session_id}" in line
    assert f"cairn trace forget-limits {session_id}" in line
    listed = json.loads(
        cairn(tmp_path, "models", "--json", "--session", session_id, env=env).stdout
    )
    assert listed[0]["learnedLimits"] == [
        {
            "sessionId": session_id,
            "tokens": ROOMY_LIMIT,
            "clear": f"cairn trace forget-limits {session_id}",
        }
    ]

    forgot = cairn(tmp_path, "trace", "forget-limits", session_id, env=env)
    assert forgot.returncode == 0, forgot.stderr
    assert f"forgot the limit of {MODEL} (20,000 tokens)" in forgot.stdout
    trace = TraceStore(tmp_path / ".cairn").open(session_id)
    assert trace.meta().context_limits == {}
    assert isinstance(trace.journal()[-1], ForgetLimitsRecord)
    assert trace.rebuilt_meta().context_limits == {}  # the journal says so too
    after = json.loads(cairn(tmp_path, "models", "--json", env=env).stdout)
    assert after[0]["learnedLimits"] == []
    nothing = cairn(tmp_path, "trace", "forget-limits", session_id, env=env)
    assert "no context limit learned" in nothing.stdout


class LimitRecorder:
    """A listener that keeps the limits it hears of (and nothing else)."""

    def __init__(self) -> None:
        self.limits: list[LearnedLimit] = []
        self.lines: list[str] = []

    def on_learned_limit(self, event: LearnedLimit) -> None:
        self.limits.append(event)

    def on_log(self, message: str) -> None:
        self.lines.append(message)


async def test_a_kept_limit_is_told_to_the_listener_and_becomes_an_acp_notice(
    server: OpenAIServer, tmp_path: Path
) -> None:
    # The provider counted no more input than Cairn did: the limit is kept as stated.
    server.queue(Reply.context_length(limit=ROOMY_LIMIT, used=1))
    server.queue(Reply(text="fits now"))
    recorder = LimitRecorder()
    engine = http_engine(server, tmp_path, recorder)  # type: ignore[arg-type]
    try:
        result = await engine.turn("hello")
    finally:
        engine.close()
    assert result.finish_reason == "stop" and result.text == "fits now", result.error
    [learned] = recorder.limits
    assert (learned.session_id, learned.model) == (result.session_id, MODEL)
    assert learned.window == ROOMY_LIMIT
    assert f"this session now builds for {learned.window} tokens" in learned.reason
    notice = limit_notice(learned)
    assert notice["sessionUpdate"] == "notice" and notice["severity"] == "warning"
    assert f"{learned.window:,} tokens" in notice["title"]
    assert f"cairn trace forget-limits {result.session_id}" in notice["description"]


class LogOnly:
    """A listener written before `on_learned_limit` existed."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def on_log(self, message: str) -> None:
        self.lines.append(message)


def test_a_listener_without_the_method_gets_the_line() -> None:
    older = LogOnly()
    SafeListener(older).on_learned_limit(LearnedLimit("s", "m", 9, "why"))  # type: ignore[arg-type]
    assert older.lines == ["model m: why"]
