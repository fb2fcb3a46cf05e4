"""Plain-text rendering of history for the compaction call, and the choice of its watermark.

The compaction model reads the messages after the previous watermark as a
plain transcript: a very large tool output appears in its faithful smaller
form (an outline, an excerpt with the error lines — the caller's `Shorten`,
built on the context's degrade ladder), a pruned one, or one with no such
form, as a one-line stub with its artifact id; folded goals as their fold text. The new watermark
keeps a recent tail of the history verbatim (measured as the context shows
it), keeps the transcript within what the compaction call can read,
never separates an assistant message from the tool results that answer it,
and never covers the latest step while the model has not replied to it (the
newest reply with tool calls and its results: what the agent just asked for
reaches the next call whole, however small the verbatim share). A summary
prepared in the background starts once the model has replied to the step
(`replied`), so there the whole step may be covered.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

from cairn.compaction.markers import CompactionState, compaction_parts, is_marker
from cairn.models.messages import Message, TextPart, ToolCallPart, ToolResultPart

# A tool output larger than this is shown to the compaction model in a smaller form.
TRANSCRIPT_TOOL_OUTPUT_MAX_TOKENS = 2_000

# A tool output's faithful smaller form within the given tokens, or None (a stub).
Shorten = Callable[[ToolResultPart, int], "str | None"]


def _tool_line(
    part: ToolResultPart,
    state: CompactionState,
    count: Callable[[str], int],
    shorten: Shorten | None = None,
) -> str:
    status = "ok" if part.ok else "failed"
    head = f"TOOL {part.name} [{status}]: "
    tokens = count(part.output)
    stub = f"{head}[output of {tokens} tokens, artifact {part.artifact_id}]"
    if part.call_id in state.pruned_call_ids:
        return stub
    if tokens > TRANSCRIPT_TOOL_OUTPUT_MAX_TOKENS:
        smaller = shorten(part, TRANSCRIPT_TOOL_OUTPUT_MAX_TOKENS) if shorten else None
        return head + smaller if smaller else stub
    return head + part.output


def render_message(
    message: Message,
    state: CompactionState,
    count: Callable[[str], int],
    shorten: Shorten | None = None,
) -> str:
    """One message as transcript text ('' for messages the context no longer shows)."""
    if is_marker(message):
        return "\n".join(
            f"GOAL FOLDED: {p.text}"
            for p in compaction_parts(message)
            if p.kind == "goal" and p.text
        )
    if message.id in state.folded_message_ids:
        return ""
    lines: list[str] = []
    for part in message.parts:
        if isinstance(part, TextPart) and part.text.strip():
            lines.append(f"{message.role.upper()}: {part.text}")
        elif isinstance(part, ToolCallPart):
            lines.append(f"CALL {part.name}({json.dumps(part.arguments, sort_keys=True)})")
        elif isinstance(part, ToolResultPart):
            lines.append(_tool_line(part, state, count, shorten))
    return "\n".join(lines)


def context_tokens(message: Message, state: CompactionState, count: Callable[[str], int]) -> int:
    """Roughly what the message costs in the context now (pruned outputs count as stubs)."""
    if message.id in state.folded_message_ids or is_marker(message):
        return 0
    total = 0
    for part in message.parts:
        if isinstance(part, TextPart):
            total += count(part.text)
        elif isinstance(part, ToolCallPart):
            total += count(json.dumps(part.arguments))
        elif isinstance(part, ToolResultPart) and part.call_id not in state.pruned_call_ids:
            total += count(part.output)
    return total


def render_transcript(
    messages: Sequence[Message],
    state: CompactionState,
    count: Callable[[str], int],
    shorten: Shorten | None = None,
) -> str:
    return "\n".join(t for m in messages if (t := render_message(m, state, count, shorten)))


def _splits_step(messages: Sequence[Message], index: int) -> bool:
    """True when a tool result of the same step follows `index` (ignoring markers)."""
    for message in messages[index + 1 :]:
        if is_marker(message):
            continue
        return message.role == "tool"
    return False


def unanswered_step(messages: Sequence[Message]) -> int | None:
    """Index of the newest reply with tool calls when only its results (and markers)
    follow it: a step whose results the model has not seen yet."""
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if is_marker(message) or message.role == "tool":
            continue
        calls = any(isinstance(p, ToolCallPart) for p in message.parts)
        return index if message.role == "assistant" and calls else None
    return None


def choose_watermark(
    messages: Sequence[Message],
    state: CompactionState,
    count: Callable[[str], int],
    *,
    keep_recent_tokens: int,
    max_transcript_tokens: int,
    shorten: Shorten | None = None,
    replied: bool = False,
) -> int | None:
    """Index of the last message the next summary covers, or None when nothing can be
    covered (`replied`: the model has already answered the newest step)."""
    start = state.watermark_index + 1
    last = len(messages) - 1
    tail = 0
    while last >= start:
        cost = context_tokens(messages[last], state, count)
        if tail + cost > keep_recent_tokens:
            break
        tail += cost
        last -= 1
    sizes = {
        i: count(render_message(messages[i], state, count, shorten)) for i in range(start, last + 1)
    }
    total = sum(sizes.values())
    while last >= start and total > max_transcript_tokens:
        total -= sizes[last]
        last -= 1
    while last >= start and _splits_step(messages, last):
        last -= 1
    step = None if replied else unanswered_step(messages)
    if step is not None:
        last = min(last, step - 1)
    return last if last >= start else None


def covered_tokens(
    messages: Sequence[Message], state: CompactionState, count: Callable[[str], int], last: int
) -> int:
    """What the messages a new summary would cover (up to `last`) cost in the context now."""
    start = state.watermark_index + 1
    return sum(context_tokens(m, state, count) for m in messages[start : last + 1])
