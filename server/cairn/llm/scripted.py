"""The `scripted/<path>` model: replays a JSONL script (`cairn.llm.script`), without litellm.

`scripted_stream(path, messages, tools, lane)` answers one call with the
lane's next line, streamed like a real provider in OpenAI's
`chat.completion.chunk` shape (plain dicts, which `StreamAccumulator` reads):
reasoning, then the text in a few chunks, then each tool call's arguments in
two pieces, then a last chunk with the finish reason and the usage counted
with the budget's tokenizer. It never imports litellm, so a scripted session
starts in well under a second. Script problems (bad file, no reply left)
raise `BadRequestError` (not retried); `"error"` lines raise the provider
error of that name. The error classes carry litellm's class names and HTTP
status codes, so `cairn.llm.failures.classify` treats them like litellm's.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from cairn.llm.reply import ToolCall
from cairn.llm.script import (
    COMPACTION_LANE,
    ScriptedErrorName,
    ScriptError,
    ScriptLine,
    current_cursor,
    parse_script,
)
from cairn.llm.usage import completion_text, prompt_text
from cairn.tokens.counter import count_tokens

# Words per streamed text chunk.
WORDS_PER_CHUNK = 3
# Pieces each tool call's argument text is streamed in.
ARGUMENT_PIECES = 2

_WORD = re.compile(r"\s*\S+\s*|\s+")
_call_numbers = itertools.count(1)


class ScriptedProviderError(Exception):
    """An error of the scripted provider; subclasses mirror litellm's exception names."""

    status_code: ClassVar[int | None] = None

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class RateLimitError(ScriptedProviderError):
    status_code = 429


class InternalServerError(ScriptedProviderError):
    status_code = 500


class ServiceUnavailableError(ScriptedProviderError):
    status_code = 503


class Timeout(ScriptedProviderError):
    status_code = 408


class APIConnectionError(ScriptedProviderError):
    pass


class AuthenticationError(ScriptedProviderError):
    status_code = 401


class BadRequestError(ScriptedProviderError):
    status_code = 400


ERRORS: dict[ScriptedErrorName, type[ScriptedProviderError]] = {
    "rate_limit": RateLimitError,
    "server_error": InternalServerError,
    "unavailable": ServiceUnavailableError,
    "timeout": Timeout,
    "connection": APIConnectionError,
    "auth": AuthenticationError,
    "bad_request": BadRequestError,
}


class _OpenStreams:
    """How many scripted streams are open right now (tests check that closes happen)."""

    count = 0


def open_streams() -> int:
    return _OpenStreams.count


def text_chunks(text: str, words: int = WORDS_PER_CHUNK) -> list[str]:
    """`text` cut into pieces of a few words each; joined they give `text` back."""
    tokens = _WORD.findall(text)
    return ["".join(tokens[i : i + words]) for i in range(0, len(tokens), words)]


def _pieces(text: str, count: int = ARGUMENT_PIECES) -> list[str]:
    size = max(1, -(-len(text) // count))
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def _delta(**delta: Any) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": delta, "finish_reason": None}]}


def next_line(path: Path, lane: Sequence[str]) -> ScriptLine:
    """The lane's next line; an empty reply for a compaction call with none left."""
    try:
        line, call = current_cursor().take(path, parse_script(path), lane)
    except ScriptError as exc:
        raise BadRequestError(str(exc)) from None
    if line is not None:
        return line
    if COMPACTION_LANE in lane:
        return ScriptLine(agent=COMPACTION_LANE)
    message = f"scripted model {path}: no reply left for agent {lane[0]!r} (call {call})"
    raise BadRequestError(message)


def _chunks(
    line: ScriptLine,
    model: str,
    messages: Sequence[Mapping[str, Any]],
    tools: Sequence[Mapping[str, Any]],
) -> Iterator[dict[str, Any]]:
    """Reasoning, text pieces, tool-call pieces, then the finish and usage chunk."""
    if line.reasoning:
        yield _delta(reasoning_content=line.reasoning)
    for piece in text_chunks(line.text):
        yield _delta(content=piece)
    calls: list[ToolCall] = []
    call_key = next(_call_numbers)
    for index, call in enumerate(line.tool_calls):
        raw = call.arguments if isinstance(call.arguments, str) else json.dumps(call.arguments)
        call_id = call.id or f"call_scripted_{call_key}_{index}"
        calls.append(ToolCall(call_id, call.name, None, raw))
        for position, piece in enumerate(_pieces(raw)):
            first = position == 0
            function = {"name": call.name if first else None, "arguments": piece}
            tool_use = {"index": index, "id": call_id if first else None, "type": "function"}
            yield _delta(tool_calls=[{**tool_use, "function": function}])
    prompt_tokens = count_tokens(prompt_text(messages, tools), model)
    completion_tokens = count_tokens(completion_text(line.text, line.reasoning, calls), model)
    yield {
        "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls" if calls else "stop"}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


async def scripted_stream(
    model: str,
    messages: Sequence[Mapping[str, Any]],
    tools: Sequence[Mapping[str, Any]],
    lane: Sequence[str],
) -> AsyncIterator[dict[str, Any]]:
    """Stream the lane's next line of the script `model` names (`scripted/<absolute path>`)."""
    path = Path(model.partition("/")[2])
    line = next_line(path, lane)
    if line.delay:
        await asyncio.sleep(line.delay)
    if line.error is not None:
        raise ERRORS[line.error](f"scripted {line.error.replace('_', ' ')}")
    _OpenStreams.count += 1
    try:
        first = True
        for chunk in _chunks(line, model, messages, tools):
            if not first and line.chunk_delay:
                await asyncio.sleep(line.chunk_delay)
            first = False
            yield chunk
    finally:
        _OpenStreams.count -= 1
