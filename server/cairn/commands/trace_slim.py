"""Bounded copies of recorded messages, for `cairn trace show`'s summaries.

The views of `trace_view.py` hold every message of a session at once, so
they hold `slim_message` copies: long texts, tool outputs and argument
strings cut to `SLIM_CHARS`, which changes none of the one-line summaries
(`cairn.goals.brief`), and a tool result's whole length kept in its data.
Whatever prints a message whole reads it again from disk.
"""

from __future__ import annotations

from typing import Any

from cairn.goals.brief import ARGS_PREVIEW_CHARS, OUTPUT_CHARS_KEY, TEXT_PREVIEW_CHARS
from cairn.models.messages import (
    FilePart,
    Message,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)

# The most of one text, output or argument string a view keeps in memory.
SLIM_CHARS = 4 * max(TEXT_PREVIEW_CHARS, ARGS_PREVIEW_CHARS)


def _slim_text(text: str) -> str:
    """A bounded stand-in for `text` with the same one-line summary (`shorten`)."""
    if len(text) <= SLIM_CHARS:
        return text
    flat = " ".join(text[: SLIM_CHARS * 64].split())[:SLIM_CHARS]
    return (" " if text[:1].isspace() else "") + flat + (" " if text[-1:].isspace() else "")


def _slim_value(value: Any) -> Any:
    if isinstance(value, str):
        return value if len(value) <= SLIM_CHARS else value[:SLIM_CHARS]
    if isinstance(value, dict):
        return {k: _slim_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_slim_value(v) for v in value]
    return value


def slim_message(message: Message) -> Message:
    """A copy of `message` whose long texts, tool outputs and argument strings are cut to
    `SLIM_CHARS` (a tool result's whole length kept in its data), for the views' summaries."""
    parts: list[Any] = []
    for part in message.parts:
        if isinstance(part, TextPart | ReasoningPart) and len(part.text) > SLIM_CHARS:
            part = part.model_copy(update={"text": _slim_text(part.text)})
        elif isinstance(part, ToolResultPart) and len(part.output) > SLIM_CHARS:
            data = {**(part.data or {}), OUTPUT_CHARS_KEY: len(part.output)}
            part = part.model_copy(update={"output": part.output[:SLIM_CHARS], "data": data})
        elif isinstance(part, ToolCallPart):
            part = part.model_copy(update={"arguments": _slim_value(part.arguments)})
        elif isinstance(part, FilePart) and part.text is not None and len(part.text) > SLIM_CHARS:
            part = part.model_copy(update={"text": part.text[:SLIM_CHARS]})
        parts.append(part)
    return message.model_copy(update={"parts": parts})
