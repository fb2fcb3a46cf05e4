"""Anthropic Messages API wire shapes for the local test server (`POST /v1/messages`).

litellm's `anthropic/` provider with `api_base` pointing at the server
sends its requests here. A scripted `Reply` is answered as Anthropic would:
one JSON message, or (with `"stream": true`) the server-sent events
`message_start` (with the input usage), `content_block_start` /
`content_block_delta` / `content_block_stop` for text and each tool use
(its JSON input split across `input_json_delta` pieces), `message_delta`
(stop reason, output tokens) and `message_stop`. Usage reports the prompt
cache as Anthropic does: `input_tokens` (neither read nor written),
`cache_read_input_tokens`, `cache_creation_input_tokens`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from tests.fakes.prompt_cache import CacheUse

if TYPE_CHECKING:
    from tests.fakes.openai_server import Reply

MESSAGES_PATH = "/v1/messages"
TEXT_CHUNK_CHARS = 12
ARGUMENT_PIECES = 3


def _pieces(text: str, count: int) -> list[str]:
    size = max(1, -(-len(text) // count))
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def _input(call: dict[str, Any]) -> str:
    raw = call.get("arguments", {})
    return raw if isinstance(raw, str) else json.dumps(raw, ensure_ascii=False)


def usage_of(use: CacheUse, output_tokens: int) -> dict[str, int]:
    return {
        "input_tokens": use.uncached,
        "cache_read_input_tokens": use.read,
        "cache_creation_input_tokens": use.written,
        "output_tokens": output_tokens,
    }


def _stop_reason(reply: Reply) -> str:
    return "tool_use" if reply.tool_calls else "end_turn"


def _tool_id(index: int, call: dict[str, Any]) -> str:
    return str(call.get("id") or f"toolu_{index}_{call.get('name', 'tool')}")


def message_body(model: str, number: int, reply: Reply, usage: dict[str, int]) -> dict[str, Any]:
    """The non-streamed answer."""
    content: list[dict[str, Any]] = []
    if reply.text:
        content.append({"type": "text", "text": reply.text})
    for index, call in enumerate(reply.tool_calls):
        arguments = _input(call)
        content.append(
            {
                "type": "tool_use",
                "id": _tool_id(index, call),
                "name": call["name"],
                "input": json.loads(arguments) if arguments.strip() else {},
            }
        )
    return {
        "id": f"msg_{number}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": _stop_reason(reply),
        "stop_sequence": None,
        "usage": usage,
    }


def _text_events(index: int, text: str) -> Iterator[tuple[str, dict[str, Any]]]:
    yield (
        "content_block_start",
        {
            "type": "content_block_start",
            "index": index,
            "content_block": {"type": "text", "text": ""},
        },
    )
    for start in range(0, len(text), TEXT_CHUNK_CHARS):
        yield (
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": index,
                "delta": {"type": "text_delta", "text": text[start : start + TEXT_CHUNK_CHARS]},
            },
        )
    yield "content_block_stop", {"type": "content_block_stop", "index": index}


def _tool_events(
    index: int, position: int, call: dict[str, Any]
) -> Iterator[tuple[str, dict[str, Any]]]:
    block = {"type": "tool_use", "id": _tool_id(position, call), "name": call["name"], "input": {}}
    yield (
        "content_block_start",
        {
            "type": "content_block_start",
            "index": index,
            "content_block": block,
        },
    )
    for piece in _pieces(_input(call), ARGUMENT_PIECES):
        yield (
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": index,
                "delta": {"type": "input_json_delta", "partial_json": piece},
            },
        )
    yield "content_block_stop", {"type": "content_block_stop", "index": index}


def stream_events(
    model: str, number: int, reply: Reply, usage: dict[str, int]
) -> Iterator[tuple[str | None, dict[str, Any]]]:
    """The streamed answer: (event name, data) pairs."""
    message = {
        "id": f"msg_{number}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {**usage, "output_tokens": 1},
    }
    yield "message_start", {"type": "message_start", "message": message}
    index = 0
    if reply.text:
        yield from _text_events(index, reply.text)
        index += 1
    for position, call in enumerate(reply.tool_calls):
        yield from _tool_events(index, position, call)
        index += 1
    yield (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": _stop_reason(reply), "stop_sequence": None},
            "usage": {"output_tokens": usage["output_tokens"]},
        },
    )
    yield "message_stop", {"type": "message_stop"}
