"""The `scripted/<path>` model: a litellm custom provider that replays a JSONL script.

Registered in `litellm.custom_provider_map` by `cairn.llm.lazy` (import this
module only through `load_litellm`). litellm hands it the path (after the
`scripted/` prefix, already made absolute by the runtime) and the call's
`metadata`, whose `cairn_agent` names the lane. Each call streams the lane's
next line like a real provider: reasoning, then the text in a few chunks,
then each tool call's arguments in two pieces, then usage counted with the
budget's tokenizer. Script errors (bad file, no reply left) are raised as
litellm `BadRequestError` so the runtime does not retry them; `"error"`
lines raise the matching provider error so retries can be tested.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, Iterator, Mapping
from pathlib import Path
from typing import Any

from litellm import exceptions as provider_errors
from litellm.llms.custom_llm import CustomLLM
from litellm.types.utils import GenericStreamingChunk

from cairn.llm.reply import ToolCall
from cairn.llm.script import (
    AGENT_METADATA_KEY,
    COMPACTION_LANE,
    MAIN_LANE,
    ScriptBook,
    ScriptedErrorName,
    ScriptError,
    ScriptLine,
)
from cairn.llm.usage import completion_text, prompt_text
from cairn.tokens.counter import count_tokens
from cairn.tokens.model_info import SCRIPTED_PROVIDER

# Words per streamed text chunk.
WORDS_PER_CHUNK = 3
# Pieces each tool call's argument text is streamed in.
ARGUMENT_PIECES = 2

_WORD = re.compile(r"\s*\S+\s*|\s+")

# One script book serves the process; `reset_scripts` rewinds every script.
_BOOK = ScriptBook()
_provider: ScriptedLLM | None = None


def reset_scripts() -> None:
    """Rewind every script to its first line (tests call this between runs)."""
    _BOOK.reset()


def provider() -> ScriptedLLM:
    """The process's scripted provider (the instance registered with litellm)."""
    global _provider
    if _provider is None:
        _provider = ScriptedLLM()
    return _provider


def text_chunks(text: str, words: int = WORDS_PER_CHUNK) -> list[str]:
    """`text` cut into pieces of a few words each; joined they give `text` back."""
    tokens = _WORD.findall(text)
    return ["".join(tokens[i : i + words]) for i in range(0, len(tokens), words)]


def _pieces(text: str, count: int = ARGUMENT_PIECES) -> list[str]:
    size = max(1, -(-len(text) // count))
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def _raise_scripted_error(name: ScriptedErrorName, model: str) -> None:
    message = f"scripted {name.replace('_', ' ')}"
    common: dict[str, Any] = {"message": message, "model": model, "llm_provider": SCRIPTED_PROVIDER}
    errors: dict[ScriptedErrorName, Exception] = {
        "rate_limit": provider_errors.RateLimitError(**common),
        "server_error": provider_errors.InternalServerError(**common),
        "unavailable": provider_errors.ServiceUnavailableError(**common),
        "timeout": provider_errors.Timeout(**common),
        "connection": provider_errors.APIConnectionError(**common),
        "auth": provider_errors.AuthenticationError(**common),
        "bad_request": provider_errors.BadRequestError(**common),
    }
    raise errors[name]


def _chunk(text: str = "", **extra: Any) -> GenericStreamingChunk:
    chunk: dict[str, Any] = {
        "text": text,
        "is_finished": False,
        "finish_reason": "",
        "usage": None,
        "index": 0,
        "tool_use": None,
    }
    chunk.update(extra)
    return GenericStreamingChunk(**chunk)


def _lane_of(litellm_params: Mapping[str, Any] | None) -> str:
    metadata = (litellm_params or {}).get("metadata") or {}
    lane = metadata.get(AGENT_METADATA_KEY) if isinstance(metadata, Mapping) else None
    return str(lane) if lane not in (None, "") else MAIN_LANE


class ScriptedLLM(CustomLLM):
    """Replays `scripted/<path>` scripts; counts open streams so tests can see closes."""

    def __init__(self) -> None:
        super().__init__()
        self.open_streams = 0

    def _line_for(self, model: str, lane: str) -> tuple[ScriptLine, int]:
        """The lane's next line and the lane's call number (1-based)."""
        path = Path(model).expanduser().resolve()
        try:
            line = _BOOK.next_line(path, lane)
        except ScriptError as exc:
            raise provider_errors.BadRequestError(
                message=str(exc), model=model, llm_provider=SCRIPTED_PROVIDER
            ) from None
        call = _BOOK.calls_made(path, lane)
        if line is not None:
            return line, call
        if lane == COMPACTION_LANE:
            return ScriptLine(agent=COMPACTION_LANE), call
        message = f"scripted model {path}: no reply left for agent {lane!r} (call {call})"
        raise provider_errors.BadRequestError(
            message=message, model=model, llm_provider=SCRIPTED_PROVIDER
        )

    async def astreaming(  # type: ignore[override]
        self, model: str, messages: list[Any], *args: Any, **kwargs: Any
    ) -> AsyncIterator[GenericStreamingChunk]:
        """Stream the lane's next line (litellm calls this for `stream=True`)."""
        lane = _lane_of(kwargs.get("litellm_params"))
        line, call_number = self._line_for(model, lane)
        if line.delay:
            await asyncio.sleep(line.delay)
        if line.error is not None:
            _raise_scripted_error(line.error, model)
        optional = kwargs.get("optional_params") or {}
        self.open_streams += 1
        try:
            first = True
            tools = optional.get("tools") or []
            for chunk in self._chunks(line, f"{lane}_{call_number}", model, messages, tools):
                if not first and line.chunk_delay:
                    await asyncio.sleep(line.chunk_delay)
                first = False
                yield chunk
        finally:
            self.open_streams -= 1

    def _chunks(
        self, line: ScriptLine, call_key: str, model: str, messages: list[Any], tools: list[Any]
    ) -> Iterator[GenericStreamingChunk]:
        """Reasoning, text pieces, tool-call pieces, then the usage chunk."""
        if line.reasoning:
            yield _chunk(provider_specific_fields={"reasoning_content": line.reasoning})
        for piece in text_chunks(line.text):
            yield _chunk(piece)
        calls: list[ToolCall] = []
        for index, call in enumerate(line.tool_calls):
            raw = call.arguments if isinstance(call.arguments, str) else json.dumps(call.arguments)
            call_id = call.id or f"call_{call_key}_{index}"
            calls.append(ToolCall(call_id, call.name, None, raw))
            for position, piece in enumerate(_pieces(raw)):
                function = {"name": call.name if position == 0 else None, "arguments": piece}
                tool_use = {
                    "id": call_id if position == 0 else None,
                    "type": "function",
                    "function": function,
                    "index": index,
                }
                yield _chunk(tool_use=tool_use)
        usage = {
            "prompt_tokens": count_tokens(prompt_text(messages, tools), model),
            "completion_tokens": count_tokens(
                completion_text(line.text, line.reasoning, calls), model
            ),
        }
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        finish = "tool_calls" if line.tool_calls else "stop"
        yield _chunk(is_finished=True, finish_reason=finish, usage=usage)
