"""Error classification, the retry policy, provider setups and the words of failures.

The classification is checked on the exceptions litellm really raises — from
the local OpenAI-compatible server over HTTP, from a refused port, from
missing credentials — and on small stand-ins for shapes that need no network.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from cairn.llm.explain import Accounting, failure_message
from cairn.llm.failures import Failure, classify, clean_message, context_limit, retry_after_seconds
from cairn.llm.lazy import load_litellm
from cairn.llm.provider import PLACEHOLDER_KEY, provider_setup, request_options
from cairn.llm.retry import backoff_delay, give_up, retry_wait
from cairn.settings import Settings
from tests.fakes.openai_server import OpenAIServer, Reply

# A port nothing listens on (the discard port; connections are refused).
REFUSED_BASE = "http://127.0.0.1:9/v1"


@pytest.fixture(scope="module")
def server() -> Iterator[OpenAIServer]:
    with OpenAIServer(cache="none") as running:
        yield running


def raised(**kwargs: Any) -> BaseException:
    """The exception one streamed litellm call raises (no retries of litellm's own)."""
    litellm = load_litellm()

    async def call() -> None:
        stream = await litellm.acompletion(
            messages=[{"role": "user", "content": "x"}], stream=True, max_retries=0, **kwargs
        )
        async for _ in stream:
            pass

    try:
        asyncio.run(call())
    except Exception as exc:
        return exc
    raise AssertionError("the call did not fail")


@pytest.mark.parametrize(
    ("reply", "kind", "status"),
    [
        (Reply.rate_limit(3), "rate_limit", 429),
        (Reply.server_error(), "server", 500),
        (Reply.server_error(503), "server", 503),
        (Reply.unauthorized(), "auth", 401),
        (Reply(status=403, error={"message": "no access"}), "permission", 403),
        (Reply(status=404, error={"message": "no such model"}), "not_found", 404),
        (Reply(status=400, error={"message": "bad temperature"}), "bad_request", 400),
        (Reply.context_length(100, 200), "context_length", 400),
        (Reply(text="cut short after a while", cut_after=3), "cut", None),
    ],
)
def test_http_faults_are_classified(
    server: OpenAIServer, reply: Reply, kind: str, status: int | None
) -> None:
    server.queue(reply)
    failure = classify(raised(model="openai/m", api_base=server.base_url, api_key="k"))
    assert (failure.kind, failure.status) == (kind, status)


def test_retry_after_and_the_context_limit_are_read(server: OpenAIServer) -> None:
    server.queue(Reply.rate_limit(7), Reply.context_length(8_000, 9_500))
    limited = classify(raised(model="openai/m", api_base=server.base_url, api_key="k"))
    assert limited.retry_after_s == 7.0 and limited.detail == "Rate limit reached"
    too_long = classify(raised(model="openai/m", api_base=server.base_url, api_key="k"))
    assert (too_long.limit, too_long.used) == (8_000, 9_500)


def test_a_refused_connection_and_a_timeout_are_transient(server: OpenAIServer) -> None:
    refused = classify(raised(model="openai/m", api_base=REFUSED_BASE, api_key="k"))
    assert refused.kind == "connection" and refused.retryable
    assert "connection refused" in refused.detail and refused.status is None
    server.queue(Reply(hang_s=3))
    hung = classify(raised(model="openai/m", api_base=server.base_url, api_key="k", timeout=0.3))
    assert hung.kind == "timeout" and hung.retryable


def test_missing_credentials_are_not_a_server_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    failure = classify(raised(model="openai/gpt-4o-mini"))
    assert failure.kind == "missing_key" and not failure.retryable
    assert "OPENAI_API_KEY" in failure.detail


class MidStreamFallbackError(Exception):
    def __init__(self, message: str, original: Exception) -> None:
        super().__init__(message)
        self.original_exception = original


class InternalServerError(Exception):
    status_code = 500


class AuthenticationError(Exception):
    status_code = 401


def test_a_provider_error_inside_a_stream_is_judged_by_what_it_wraps() -> None:
    assert classify(MidStreamFallbackError("x", InternalServerError("boom"))).kind == "server"
    assert classify(MidStreamFallbackError("x", AuthenticationError("no"))).kind == "auth"
    assert classify(MidStreamFallbackError("x", ConnectionResetError("gone"))).kind == "cut"


def test_clean_message_drops_litellm_prefixes_and_tracebacks() -> None:
    error = Exception(
        "litellm.MidStreamFallbackError: litellm.APIConnectionError: boom\nTraceback (most recent"
    )
    assert clean_message(error) == "boom"
    assert clean_message(Exception("litellm.Timeout: APITimeoutError - Request timed out.")) == (
        "Request timed out."
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "This model's maximum context length is 128000 tokens. However, you requested 130000"
            " tokens (129000 in the messages, 1000 in the completion).",
            (128_000, 129_000),
        ),
        ("prompt is too long: 210000 tokens > 200000 maximum", (200_000, 210_000)),
        (
            "The input token count (1200000) exceeds the maximum number of tokens allowed"
            " (1048576).",
            (1_048_576, 1_200_000),
        ),
        ("the request is too large", (None, None)),
    ],
)
def test_context_limits_of_each_providers_wording(
    text: str, expected: tuple[int | None, int | None]
) -> None:
    assert context_limit(text) == expected


def test_retry_after_accepts_seconds_milliseconds_and_dates() -> None:
    now = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
    assert retry_after_seconds({"Retry-After": "2.5"}) == 2.5
    assert retry_after_seconds({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    assert retry_after_seconds({"Retry-After": "Thu, 01 Jan 2026 12:00:30 GMT"}, now) == 30.0
    assert retry_after_seconds({"Retry-After": "soon"}) is None
    assert retry_after_seconds({}) is None


def test_the_retry_policy() -> None:
    limited = Failure("rate_limit", "slow down", 429, retry_after_s=12.0)
    assert retry_wait(limited, 1) == 12.0
    assert retry_wait(Failure("server", "x", 500), 3, base_s=1.0) == backoff_delay(3, 1.0) == 4.0
    common = {"retries_used": 0, "retries_allowed": 3, "delivered": False, "time_left_s": 60.0}
    assert give_up(Failure("auth", "no", 401), wait_s=1.0, **common) == "fatal"
    assert give_up(limited, wait_s=12.0, **common) is None
    assert give_up(limited, wait_s=61.0, **common) == "deadline"
    assert give_up(limited, wait_s=1.0, **{**common, "delivered": True}) == "delivered"
    assert give_up(limited, wait_s=1.0, **{**common, "retries_used": 3}) == "exhausted"
    assert give_up(limited, wait_s=0.0, **{**common, "time_left_s": 0.0}) == "deadline"


def test_provider_settings_belong_to_the_main_models_provider() -> None:
    settings = Settings(
        model="openai/local-model",
        api_base="http://127.0.0.1:8000/v1",
        api_key_env="LOCAL_KEY",
        extra_headers={"X-A": "1"},
        extra_params={"temperature": 0.1},
    )
    env = {"LOCAL_KEY": "secret", "ANTHROPIC_API_KEY": "a"}
    own = provider_setup(settings, "openai/local-model", env)
    options = request_options(own, env)
    assert options["api_base"] == "http://127.0.0.1:8000/v1" and options["api_key"] == "secret"
    assert options["extra_headers"] == {"X-A": "1"} and options["temperature"] == 0.1
    assert options["max_retries"] == 0
    other = provider_setup(settings, "anthropic/claude-haiku-4-5", env)
    assert not other.own_settings and other.api_base is None and other.headers == {}
    assert (other.key_variable, other.key_source, other.problem) == (
        "ANTHROPIC_API_KEY",
        "provider",
        None,
    )
    assert "api_key" not in request_options(other, env)  # litellm reads the variable itself


def test_key_sources() -> None:
    local = Settings(model="ollama_chat/qwen", api_base="http://127.0.0.1:11434")
    assert provider_setup(local, "ollama_chat/qwen", {}).key_source == "none_needed"
    served = Settings(model="openai/qwen", api_base="http://127.0.0.1:8000/v1")
    placeholder = provider_setup(served, "openai/qwen", {})
    assert placeholder.key_source == "placeholder" and placeholder.problem is None
    assert request_options(placeholder, {})["api_key"] == PLACEHOLDER_KEY
    hosted = Settings(model="deepseek/deepseek-chat")
    missing = provider_setup(hosted, "deepseek/deepseek-chat", {})
    assert missing.problem is not None and missing.problem.startswith("DEEPSEEK_API_KEY is not set")
    cloud = Settings(model="bedrock/anthropic.claude-3-haiku")
    assert provider_setup(cloud, "bedrock/anthropic.claude-3-haiku", {}).key_source == "unchecked"


def test_a_failure_message_says_what_to_fix_and_how_many_requests_it_took() -> None:
    settings = Settings(model="openai/m", api_base="http://127.0.0.1:1/v1")
    setup = provider_setup(settings, "openai/m", {"OPENAI_API_KEY": "k"})
    acct = Accounting(
        requests=4,
        elapsed_s=7.25,
        retries_allowed=3,
        timeout_s=120,
        deadline="call_deadline_s = 600",
    )
    failure = Failure("connection", "Connection error (connection refused)")
    assert failure_message("openai/m", failure, "exhausted", setup, acct) == (
        "model openai/m: cannot connect: Connection error (connection refused) — is the server at"
        " http://127.0.0.1:1/v1 running? (api_base); gave up after 4 requests over 7.2 s"
        " (model_retries = 3)"
    )
