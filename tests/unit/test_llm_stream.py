"""Pure pieces of the runtime: chunk accumulation, argument parsing, backoff, cost."""

from __future__ import annotations

from typing import Any

import pytest

from cairn.llm.lazy import load_litellm
from cairn.llm.retry import BACKOFF_MAX_S, backoff_delay
from cairn.llm.scripted import text_chunks
from cairn.llm.stream import StreamAccumulator, parse_arguments
from cairn.llm.usage import cost_of


def chunk(
    content: str | None = None,
    tool_calls: list[dict[str, Any]] | None = None,
    finish: str | None = None,
    usage: dict[str, int] | None = None,
) -> dict[str, Any]:
    delta: dict[str, Any] = {"content": content, "tool_calls": tool_calls}
    return {"choices": [{"delta": delta, "finish_reason": finish}], "usage": usage}


def piece(index: int, *, call_id: str | None = None, name: str | None = None, args: str = ""):
    return {"index": index, "id": call_id, "function": {"name": name, "arguments": args}}


def test_interleaved_tool_call_pieces_are_joined_by_index() -> None:
    acc = StreamAccumulator()
    acc.feed(chunk(tool_calls=[piece(0, call_id="a", name="grep", args='{"pat')]))
    acc.feed(chunk(tool_calls=[piece(1, call_id="b", name="glob", args='{"pattern": ')]))
    acc.feed(chunk(tool_calls=[piece(0, args='tern": "x"}')]))
    acc.feed(chunk(tool_calls=[piece(1, args='"*.py"}')], finish="tool_calls"))
    calls = acc.tool_calls("fallback")
    assert [(c.call_id, c.name, c.arguments) for c in calls] == [
        ("a", "grep", {"pattern": "x"}),
        ("b", "glob", {"pattern": "*.py"}),
    ]
    assert acc.finish_reason == "tool_calls"


def test_pieces_without_indexes_continue_the_last_call() -> None:
    acc = StreamAccumulator()
    acc.feed(chunk(tool_calls=[{"id": "a", "function": {"name": "grep", "arguments": '{"pat'}}]))
    acc.feed(chunk(tool_calls=[{"function": {"arguments": 'tern": "x"}'}}]))
    acc.feed(chunk(tool_calls=[{"id": "b", "function": {"name": "glob", "arguments": "{}"}}]))
    calls = acc.tool_calls("fallback")
    assert [(c.call_id, c.arguments) for c in calls] == [("a", {"pattern": "x"}), ("b", {})]


def test_text_is_forwarded_as_it_arrives_and_usage_taken_from_the_last_chunk() -> None:
    seen: list[str] = []
    acc = StreamAccumulator(on_text=seen.append)
    acc.feed(chunk("Hel"))
    acc.feed(chunk("lo"))
    acc.feed({"choices": [], "usage": {"prompt_tokens": 7, "completion_tokens": 2}})
    assert seen == ["Hel", "lo"]
    assert acc.text == "Hello"
    assert acc.usage is not None
    assert (acc.usage.input_tokens, acc.usage.output_tokens) == (7, 2)
    assert acc.delivered


def test_calls_without_ids_or_names_are_still_reported() -> None:
    acc = StreamAccumulator()
    acc.feed(chunk(tool_calls=[piece(0, args="{}")]))
    [call] = acc.tool_calls("call-x")
    assert call.call_id == "call-x-0"
    assert call.error == "tool call without a tool name"


@pytest.mark.parametrize(
    ("raw", "arguments", "error_part"),
    [
        ("", {}, None),
        ('{"a": 1}', {"a": 1}, None),
        ('{"a": ', None, "not valid JSON"),
        ('"text"', None, "got str"),
        ("null", None, "got NoneType"),
    ],
)
def test_parse_arguments(
    raw: str, arguments: dict[str, Any] | None, error_part: str | None
) -> None:
    parsed, error = parse_arguments(raw)
    assert parsed == arguments
    if error_part is None:
        assert error is None
    else:
        assert error is not None and error_part in error


def test_backoff_grows_exponentially_up_to_a_cap() -> None:
    delays = [backoff_delay(n, 1.0) for n in range(1, 5)]
    assert delays == [1.0, 2.0, 4.0, 8.0]
    assert backoff_delay(100, 1.0) == BACKOFF_MAX_S


def test_text_chunks_split_on_words_and_join_back() -> None:
    text = "one two  three four\nfive six seven"
    pieces = text_chunks(text, words=2)
    assert "".join(pieces) == text
    assert len(pieces) == 4
    assert text_chunks("") == []


def test_cost_is_known_for_priced_models_and_none_otherwise() -> None:
    litellm = load_litellm()
    priced = cost_of(litellm, "gpt-4o", 1_000, 100)
    assert priced is not None and priced > 0
    assert cost_of(litellm, "no-such-provider/unpriced-model", 1_000, 100) is None
