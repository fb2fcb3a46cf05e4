"""One-line summaries of messages, for the trace views (CLI text and editor data).

These are human views: long text is shortened with "…". The trace itself
always keeps the full messages.
"""

from __future__ import annotations

import json

from cairn.models.messages import (
    CompactionPart,
    FilePart,
    GoalOpPart,
    Message,
    Part,
    ReasoningPart,
    SubtaskPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)

TEXT_PREVIEW_CHARS = 100
# In a bounded copy of a tool result (`cairn trace show`): its whole output's length.
OUTPUT_CHARS_KEY = "outputChars"
ARGS_PREVIEW_CHARS = 60
ELLIPSIS = "…"


def shorten(text: str, limit: int) -> str:
    """The text on one line, cut to `limit` characters with "…" when longer."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + ELLIPSIS


def describe_part(part: Part) -> str | None:
    """A short description of a non-text part (None for text parts)."""
    if isinstance(part, ToolCallPart):
        args = shorten(json.dumps(part.arguments, ensure_ascii=False), ARGS_PREVIEW_CHARS)
        return f"→ {part.name}({args})"
    if isinstance(part, ToolResultPart):
        status = "ok" if part.ok else "failed"
        artifact = f", artifact {part.artifact_id}" if part.artifact_id else ""
        chars = (part.data or {}).get(OUTPUT_CHARS_KEY, len(part.output))
        return f"← {part.name} {status}: {chars} chars{artifact}"
    if isinstance(part, CompactionPart):
        return f"[compaction: {part.kind}, {part.tokens_before}→{part.tokens_after} tokens]"
    if isinstance(part, SubtaskPart):
        return f"[explore branch {part.branch}: {part.status}]"
    if isinstance(part, FilePart):
        return f"[file {part.path}]"
    if isinstance(part, ReasoningPart):
        return "[reasoning]"
    if isinstance(part, GoalOpPart):
        if part.verb == "seed":
            return "[plan seeded from the parent session]"
        return f"[goal {part.verb} by the {part.by}: {shorten(part.text, ARGS_PREVIEW_CHARS)}]"
    if isinstance(part, TextPart):
        return None
    return f"[{part.type}]"


def brief_text(message: Message) -> str:
    """The message's text, flattened and shortened."""
    return shorten(message.text(), TEXT_PREVIEW_CHARS)


def brief_parts(message: Message) -> list[str]:
    """Descriptions of the message's non-text parts, in order."""
    return [d for d in (describe_part(p) for p in message.parts) if d is not None]


def brief_line(message: Message) -> str:
    """`role: text  → tool(args)  ← tool ok: n chars` on one line."""
    pieces = [f"{message.role}:"]
    text = brief_text(message)
    if text:
        pieces.append(text)
    pieces.extend(brief_parts(message))
    return " ".join(pieces)
