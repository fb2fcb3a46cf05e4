"""Accumulate a streamed chat completion into a `ModelReply`.

Providers stream text and reasoning as deltas, and tool calls as pieces
keyed by index: the first piece of a call carries its id and name, later
ones append to its JSON arguments. Usage arrives (when it does) on the last
chunk. Arguments are parsed once the stream ends; a malformed object does
not raise, it is reported on the `ToolCall`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from cairn.llm.cache_hints import cache_tokens
from cairn.llm.reply import ToolCall

TextSink = Callable[[str], None]


@dataclass(slots=True)
class _PendingCall:
    call_id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class ChunkUsage:
    """Token counts a provider reported on a chunk (cached: read from / written to its cache)."""

    input_tokens: int
    output_tokens: int
    cached_input_tokens: int = 0
    cache_write_input_tokens: int = 0


def _get(obj: Any, key: str) -> Any:
    """Attribute or mapping access (litellm chunks are pydantic objects, tests may use dicts)."""
    if isinstance(obj, Mapping):
        return obj.get(key)
    return getattr(obj, key, None)


def parse_arguments(raw: str) -> tuple[dict[str, Any] | None, str | None]:
    """JSON object arguments → (dict, None); anything else → (None, why it is wrong)."""
    if not raw.strip():
        return {}, None
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        return None, f"arguments are not valid JSON ({exc.msg} at position {exc.pos})"
    if not isinstance(value, dict):
        return None, f"arguments must be a JSON object, got {type(value).__name__}"
    return value, None


class StreamAccumulator:
    """Feeds on chunks; forwards text/reasoning deltas; builds the final pieces."""

    def __init__(
        self, on_text: TextSink | None = None, on_reasoning: TextSink | None = None
    ) -> None:
        self._on_text = on_text
        self._on_reasoning = on_reasoning
        self._text: list[str] = []
        self._reasoning: list[str] = []
        self._calls: dict[int, _PendingCall] = {}
        self.finish_reason: str | None = None
        self.usage: ChunkUsage | None = None
        self.delivered = False

    @property
    def text(self) -> str:
        return "".join(self._text)

    @property
    def reasoning(self) -> str:
        return "".join(self._reasoning)

    def feed(self, chunk: Any) -> None:
        """Take one streamed chunk (OpenAI `chat.completion.chunk` shape)."""
        usage = _get(chunk, "usage")
        if usage is not None and _get(usage, "prompt_tokens") is not None:
            read, written = cache_tokens(usage)
            self.usage = ChunkUsage(
                input_tokens=int(_get(usage, "prompt_tokens") or 0),
                output_tokens=int(_get(usage, "completion_tokens") or 0),
                cached_input_tokens=read,
                cache_write_input_tokens=written,
            )
        choices = _get(chunk, "choices") or []
        if not choices:
            return
        choice = choices[0]
        finish = _get(choice, "finish_reason")
        if finish:
            self.finish_reason = str(finish)
        delta = _get(choice, "delta")
        if delta is None:
            return
        self._add_reasoning(_reasoning_of(chunk, delta))
        content = _get(delta, "content")
        if content:
            self._text.append(content)
            self.delivered = True
            if self._on_text is not None:
                self._on_text(content)
        for piece in _get(delta, "tool_calls") or []:
            self._add_tool_piece(piece)

    def _add_reasoning(self, text: str | None) -> None:
        if not text:
            return
        self._reasoning.append(text)
        self.delivered = True
        if self._on_reasoning is not None:
            self._on_reasoning(text)

    def _add_tool_piece(self, piece: Any) -> None:
        index = _get(piece, "index")
        if index is not None:
            key = int(index)
        elif _get(piece, "id") or not self._calls:
            key = max(self._calls, default=-1) + 1  # a provider without indexes: a new call
        else:
            key = max(self._calls)  # ... or the continuation of the last one
        call = self._calls.setdefault(key, _PendingCall())
        call_id = _get(piece, "id")
        if call_id and not call.call_id:
            call.call_id = str(call_id)
        function = _get(piece, "function")
        if function is None:
            return
        name = _get(function, "name")
        if name and not call.name:
            call.name = str(name)
        arguments = _get(function, "arguments")
        if arguments:
            call.arguments.append(str(arguments))

    def tool_calls(self, id_prefix: str) -> list[ToolCall]:
        """The finished tool calls, in index order; missing ids get `<prefix>-<n>`."""
        calls: list[ToolCall] = []
        for position, key in enumerate(sorted(self._calls)):
            pending = self._calls[key]
            raw = "".join(pending.arguments)
            arguments, error = parse_arguments(raw)
            if not pending.name:
                error = error or "tool call without a tool name"
            calls.append(
                ToolCall(
                    call_id=pending.call_id or f"{id_prefix}-{position}",
                    name=pending.name,
                    arguments=arguments,
                    raw_arguments=raw,
                    error=error,
                )
            )
        return calls


def _reasoning_of(chunk: Any, delta: Any) -> str | None:
    """Reasoning text of a chunk: on the delta, or in provider-specific fields."""
    direct = _get(delta, "reasoning_content")
    if direct:
        return str(direct)
    fields = _get(delta, "provider_specific_fields")
    if isinstance(fields, Mapping) and fields.get("reasoning_content"):
        return str(fields["reasoning_content"])
    top = _get(chunk, "reasoning_content")
    return str(top) if top else None
