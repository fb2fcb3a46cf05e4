"""Provider cache hints: Anthropic `cache_control` breakpoints captured at the litellm boundary
(litellm's `anthropic/` provider against the local server's `POST /v1/messages`), OpenAI's
`prompt_cache_key`, and the cached tokens read back from usage."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cairn.agent.engine import Engine
from cairn.llm.cache_hints import (
    MAX_BREAKPOINTS,
    CacheHints,
    cache_family,
    cache_tokens,
    hinted_request,
    with_breakpoints,
)
from cairn.models.messages import CompactionPart, TextPart
from cairn.models.summary import SessionSummary
from cairn.settings import Settings
from tests.fakes.openai_server import OpenAIServer, Reply

ANTHROPIC_MODEL = "anthropic/claude-sonnet-4-5"
EPHEMERAL = {"type": "ephemeral"}


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[OpenAIServer]:
    with OpenAIServer() as running:
        monkeypatch.setenv("ANTHROPIC_API_BASE", running.root_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
        yield running


def marked(blocks: list[dict[str, Any]]) -> list[int]:
    return [i for i, b in enumerate(blocks) if b.get("cache_control") == EPHEMERAL]


def content_blocks(body: dict[str, Any]) -> list[dict[str, Any]]:
    """Every content block of the request's messages, in order (tool results unwrapped)."""
    out: list[dict[str, Any]] = []
    for message in body["messages"]:
        for block in message["content"]:
            out.append(block)
            if block.get("type") == "tool_result" and isinstance(block.get("content"), list):
                out.extend(block["content"])
    return out


def test_an_anthropic_request_carries_cache_control_where_intended(
    tmp_path: Path, server: OpenAIServer
) -> None:
    (tmp_path / "AGENTS.md").write_text("# Rules\n" + "- keep it tidy\n" * 200)
    (tmp_path / "mod.py").write_text("def f():\n    return 1\n" * 50)
    engine = Engine(
        [tmp_path],
        Settings.model_validate({"model": ANTHROPIC_MODEL, "max_output_tokens": 1_000}),
    )
    session = engine.session()
    first = session.append("user", [TextPart(text="An earlier request, now summarised.")])
    summary = SessionSummary(objective="SUMMARY-42", covered_until_message_id=first.id)
    session.append_marker(CompactionPart(kind="summary", summary=summary))
    server.queue(
        Reply(tool_calls=[{"name": "goal", "arguments": {"add": "Read mod.py"}}]),
        Reply(tool_calls=[{"name": "read_file", "arguments": {"path": "mod.py"}}]),
        Reply(text="Read it."),
    )
    try:
        result = asyncio.run(engine.turn("Read mod.py.", session_id=session.id))
        assert result.finish_reason == "stop", result.error
        bodies = [r.body for r in server.requests]
        assert [r.path for r in server.requests] == ["/v1/messages"] * 3
        for body in bodies:
            system = body["system"]
            # End of tools + system (the system message), end of the preamble.
            assert [b["text"][:9] for b in system] == ["You are C", "# Project"]
            assert marked(system) == [0, 1]
            blocks = content_blocks(body)
            # The frozen summary opens the history and ends a segment.
            assert "SUMMARY-42" in blocks[0]["text"] and blocks[0]["cache_control"] == EPHEMERAL
            total = len(marked(system)) + len(marked(blocks))
            assert total <= MAX_BREAKPOINTS
            assert all("cache_control" not in tool for tool in body["tools"])
        last = content_blocks(bodies[-1])
        tail = last[-1]
        assert tail["text"].startswith("[Harness context") and "cache_control" not in tail
        # The last history block (the read's result) is the fourth breakpoint.
        assert marked(last)[-1] == len(last) - 2 and "return 1" in last[-2]["text"]
        manifests = engine.session(result.session_id).trace.manifests()
        usage = [m.usage for m in manifests]
        assert usage[0] is not None and usage[0].cache_write_input_tokens > 0
        assert all(u is not None and u.cached_input_tokens > 0 for u in usage[1:])
        meta = engine.session(result.session_id).meta().usage
        assert meta.cache_write_input_tokens == sum(u.cache_write_input_tokens for u in usage if u)
    finally:
        engine.close()


def test_cache_families_of_model_names() -> None:
    assert cache_family("anthropic/claude-sonnet-4-5") == "anthropic"
    assert cache_family("bedrock/anthropic.claude-3-5-sonnet-20240620-v1:0") == "anthropic"
    assert cache_family("vertex_ai/claude-3-7-sonnet@20250219") == "anthropic"
    assert cache_family("claude-3-haiku-20240307") == "anthropic"
    assert cache_family("openai/gpt-5") == "openai"
    assert cache_family("gpt-4o") == "openai"
    assert cache_family("azure/my-deployment") == "openai"
    assert cache_family("deepseek/deepseek-chat") == "automatic"
    assert cache_family("gemini/gemini-2.5-pro") == "automatic"
    assert cache_family("vertex_ai/gemini-2.5-pro") == "automatic"
    assert cache_family("scripted/script.jsonl") == "none"
    assert cache_family("ollama/llama3") == "none"


def test_breakpoints_go_on_the_last_block_of_each_marked_message() -> None:
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "system"},
        {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "x", "arguments": "{}"}},
                {"id": "c2", "type": "function", "function": {"name": "y", "arguments": "{}"}},
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "one"},
        {"role": "user", "content": "tail"},
    ]
    out = with_breakpoints(messages, [0, 1, 2, 3, 9])
    assert out[0]["content"] == [{"type": "text", "text": "system", "cache_control": EPHEMERAL}]
    assert out[1]["content"][0] == {"type": "text", "text": "a"}
    assert out[1]["content"][1]["cache_control"] == EPHEMERAL
    assert "cache_control" not in out[2]["tool_calls"][0]
    assert out[2]["tool_calls"][1]["cache_control"] == EPHEMERAL
    assert out[3]["content"][0]["cache_control"] == EPHEMERAL
    assert out[4] == messages[4]
    assert messages[0]["content"] == "system"  # the caller's messages are not changed
    many = with_breakpoints([{"role": "user", "content": str(i)} for i in range(8)], range(8))
    assert [i for i, m in enumerate(many) if isinstance(m["content"], list)] == [4, 5, 6, 7]


def test_each_family_gets_its_own_hint() -> None:
    messages = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]
    hints = CacheHints(key="session-1", breakpoints=(0, 1))
    sent, extra = hinted_request("openai/gpt-5", messages, hints)
    assert sent == messages and extra == {"prompt_cache_key": "session-1"}
    sent, extra = hinted_request("anthropic/claude-opus-4-1", messages, hints)
    assert extra == {} and all(m["content"][0]["cache_control"] == EPHEMERAL for m in sent)
    for model in ("gemini/gemini-2.5-pro", "scripted/x.jsonl"):
        assert hinted_request(model, messages, hints) == (messages, {})
    assert hinted_request("openai/gpt-5", messages, None) == (messages, {})


def test_cached_and_written_tokens_are_read_from_either_usage_shape() -> None:
    openai = {"prompt_tokens": 2_000, "prompt_tokens_details": {"cached_tokens": 1_792}}
    assert cache_tokens(openai) == (1_792, 0)
    anthropic = {
        "prompt_tokens": 3_000,
        "cache_read_input_tokens": 2_048,
        "cache_creation_input_tokens": 512,
        "prompt_tokens_details": {"cached_tokens": 2_048},
    }
    assert cache_tokens(anthropic) == (2_048, 512)
    assert cache_tokens({"prompt_tokens": 10}) == (0, 0)
    assert cache_tokens(json.loads('{"prompt_tokens_details": null}')) == (0, 0)
