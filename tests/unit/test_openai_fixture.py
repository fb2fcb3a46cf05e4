"""The local OpenAI-compatible server, driven through litellm's `openai/` provider over real HTTP."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from cairn.llm.lazy import load_litellm
from tests.fakes.openai_server import (
    CACHE_MIN_TOKENS,
    OpenAIServer,
    Reply,
    cached_tokens,
    common_prefix_chars,
)

MODEL = "openai/fixture-model"
LONG_SYSTEM = "You are a careful assistant. " * 400  # well over the cache minimum


def _call(server: OpenAIServer, messages: list[dict[str, Any]], **extra: Any) -> Any:
    litellm = load_litellm()
    return asyncio.run(
        litellm.acompletion(
            model=MODEL,
            messages=messages,
            api_base=server.base_url,
            api_key="test-key",
            max_retries=0,
            **extra,
        )
    )


async def _stream(server: OpenAIServer, messages: list[dict[str, Any]]) -> list[Any]:
    litellm = load_litellm()
    stream = await litellm.acompletion(
        model=MODEL,
        messages=messages,
        api_base=server.base_url,
        api_key="test-key",
        stream=True,
        stream_options={"include_usage": True},
        max_retries=0,
    )
    return [chunk async for chunk in stream]


def test_a_streamed_tool_call_arrives_whole_with_usage() -> None:
    with OpenAIServer() as server:
        server.queue(
            Reply(
                text="Reading it.",
                tool_calls=[{"name": "read_file", "arguments": {"path": "a.py"}}],
            )
        )
        chunks = asyncio.run(_stream(server, [{"role": "user", "content": "hi"}]))
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    pieces = [
        call.function.arguments or ""
        for c in chunks
        if c.choices and c.choices[0].delta.tool_calls
        for call in c.choices[0].delta.tool_calls
    ]
    assert text == "Reading it."
    assert len(pieces) > 1  # split across chunks, as providers do
    assert json.loads("".join(pieces)) == {"path": "a.py"}
    usage = [c.usage for c in chunks if getattr(c, "usage", None)]
    assert usage and usage[-1].prompt_tokens > 0
    assert server.requests[0].body["stream"] is True


def test_a_repeated_long_prefix_is_reported_as_cached() -> None:
    system = {"role": "system", "content": LONG_SYSTEM}
    with OpenAIServer() as server:
        first = _call(server, [system, {"role": "user", "content": "one"}])
        second = _call(server, [system, {"role": "user", "content": "two"}])
    assert first.usage.prompt_tokens_details.cached_tokens == 0
    cached = second.usage.prompt_tokens_details.cached_tokens
    assert CACHE_MIN_TOKENS <= cached < second.usage.prompt_tokens
    assert cached % 128 == 0


def test_faults_reach_litellm_as_its_error_classes() -> None:
    litellm = load_litellm()
    with OpenAIServer() as server:
        server.queue(
            Reply.rate_limit(2),
            Reply.unauthorized(),
            Reply.context_length(100, 200),
            Reply.server_error(),
        )
        with pytest.raises(litellm.RateLimitError):
            _call(server, [{"role": "user", "content": "x"}])
        with pytest.raises(litellm.AuthenticationError):
            _call(server, [{"role": "user", "content": "x"}])
        with pytest.raises(litellm.ContextWindowExceededError):
            _call(server, [{"role": "user", "content": "x"}])
        with pytest.raises(litellm.InternalServerError):
            _call(server, [{"role": "user", "content": "x"}])
        assert len(server.requests) == 4  # max_retries=0: one request each


def test_prefix_helpers() -> None:
    assert common_prefix_chars(["ab", "cd"], ["ab", "cx"]) == 3
    assert common_prefix_chars(["ab"], ["ab", "cd"]) == 2
    assert cached_tokens(CACHE_MIN_TOKENS - 1) == 0
    assert cached_tokens(1_300) == 1_280
