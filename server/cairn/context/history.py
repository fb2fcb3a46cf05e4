"""Recorded messages → history blocks, with the compaction markers applied.

Each message is shown as `cairn.context.shown_messages` renders it; this
module decides which are shown, where, and with what priority.

The three markers (`CompactionPart` kinds, written by `cairn.agent.compaction.compactor`):
- `prune`: a pruned tool result is shown as a one-line stub naming the exact
  call that reads it again:
  `[output pruned: <n> tokens; read_file("artifact:<id>") shows it again]`;
- `goal`: the messages a fold covers are replaced by one assistant message
  with the marker's text, placed where the first covered message was (a fold
  that is itself covered by a parent goal's fold is not shown);
- `summary`: every message up to the latest summary's watermark is replaced by
  the rendered `SessionSummary`, shown first; it is required (never dropped),
  rendered within its reserved share of the budget (`SUMMARY_SHARE`).

Blocks: a user message is one block; an assistant message with tool calls
and the results of those calls are ONE block (the API requires the pairing;
a call without a recorded result, e.g. after a cancelled turn, gets a
synthetic "no result" reply). Results whose call is not shown are dropped.
Reasoning parts are not sent back. The turn's latest step (the newest reply
with tool calls and its results) has `PRIORITY_LATEST_STEP`, above buffers,
older history and extras: what the agent just asked for is never crowded out.

The current user message: the engine records it in history before the
first call of a turn, and the request carries the id the session gave it
(`GatherRequest.user_message_id`); that message becomes the required `user`
block in place, so it is never duplicated. When it is not recorded (a dry
run: no id, or no message with it), it is appended at the end; a turn
without words has no `user` block. The last user message a summary
covers is shown right after the summary (required when it is the current
one) until the next summary, so the user's latest words are never lost and
a new turn does not rewrite the summary segment.

Attachments (harness messages carrying file texts, `cairn.context.attachments`)
become one block per attached file, at their place in the conversation, with
their source's priority in the turn that attached them and the priority of
old tool output later; `HistoryView.attached` says which are visible.

The compaction statistics count every marker (prune, goal fold, summary) and
report the latest summary's size and watermark.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cairn.compaction.markers import CompactionState, compaction_parts
from cairn.context.attachments import (
    Attached,
    attachment_candidate,
    attachment_parts,
    current_priority,
    is_attachment,
    key_of,
)
from cairn.context.blocks import MESSAGE_OVERHEAD_TOKENS, Candidate, Count, chat_candidate
from cairn.context.priorities import (
    PRIORITY_HISTORY_OLD,
    PRIORITY_HISTORY_RECENT,
    PRIORITY_LATEST_STEP,
    PRIORITY_OLD_TOOL_OUTPUT,
    PRIORITY_SUMMARY,
    RECENT_TURNS,
)
from cairn.context.shown_messages import MessageRenderer, user_content
from cairn.context.sources.summary import fit_summary, render_summary
from cairn.context.sources.user import user_candidate
from cairn.models.manifest import CompactionStats
from cairn.models.messages import Message, ToolCallPart

SUMMARY_SEQ = -1.0
# Offset placing a covered current user message right after what covers it.
AFTER_SUMMARY_OFFSET = 0.5


@dataclass
class HistoryView:
    """History candidates in conversation order, and what compaction has done.

    `attached` maps each visible attachment's key to its latest version;
    `next_seq` is the position after everything shown (where new
    attachments go).
    """

    candidates: list[Candidate]
    compaction: CompactionStats
    attached: dict[str, Attached]
    next_seq: float


def _priority(seq: float, recent_from: float, has_tools: bool) -> int:
    if seq >= recent_from:
        return PRIORITY_HISTORY_RECENT
    return PRIORITY_OLD_TOOL_OUTPUT if has_tools else PRIORITY_HISTORY_OLD


def _recent_from(messages: Sequence[Message], renderer: MessageRenderer) -> float:
    starts = [
        i
        for i, m in enumerate(messages)
        if m.role == "user" and renderer.visible(i, m) and not compaction_parts(m)
    ]
    return float(starts[-RECENT_TURNS]) if len(starts) >= RECENT_TURNS else float("-inf")


def turn_user_message_id(messages: Sequence[Message], turn_id: str | None) -> str | None:
    """The id of the message that opened turn `turn_id`: its first user message (as
    `cairn.trace.rebuild` reads a turn's start), or None (no turn, or not recorded)."""
    if turn_id is None:
        return None
    return next((m.id for m in messages if m.turn_id == turn_id and m.role == "user"), None)


def _current_user_index(
    messages: Sequence[Message], user_message: str, message_id: str | None
) -> int | None:
    if not user_message.strip() or message_id is None:
        return None
    return next((i for i, m in enumerate(messages) if m.id == message_id), None)


def _summary_candidate(state: CompactionState, count: Count, limit: int | None) -> Candidate | None:
    """The summary, required, rendered within `limit` tokens (its reserved share)."""
    if state.summary is None:
        return None
    text = (
        render_summary(state.summary)
        if limit is None
        else fit_summary(state.summary, max(limit - MESSAGE_OVERHEAD_TOKENS, 0), count)
    )
    return chat_candidate(
        "summary",
        PRIORITY_SUMMARY,
        [{"role": "user", "content": text}],
        count=count,
        seq=SUMMARY_SEQ,
        ref=state.watermark,
        kind="text",
        required=True,
    )


def _fold_candidate(ref: str, text: str, seq: float, recent_from: float, count: Count) -> Candidate:
    """A folded goal; never below the summary's priority (it is a summary of its own)."""
    return chat_candidate(
        "history",
        max(_priority(seq, recent_from, False), PRIORITY_SUMMARY),
        [{"role": "assistant", "content": text}],
        count=count,
        seq=seq,
        ref=ref,
        kind="text",
    )


def render_history(
    messages: Sequence[Message],
    user_message: str,
    count: Count,
    summary_limit: int | None = None,
    *,
    user_message_id: str | None = None,
) -> HistoryView:
    """Candidates for the summary (required, within `summary_limit` tokens), the shown
    messages and the current user message (the recorded one with `user_message_id`)."""
    renderer = MessageRenderer(messages, count)
    state = renderer.state
    recent_from = _recent_from(messages, renderer)
    current = _current_user_index(messages, user_message, user_message_id)
    folds = renderer.fold_positions()
    latest = _latest_step(renderer, current)
    summary = _summary_candidate(state, count, summary_limit)
    out: list[Candidate] = [summary] if summary is not None else []
    attached: dict[str, Attached] = {}
    for index, message in enumerate(messages):
        seq = float(index)
        out += [
            _fold_candidate(ref, text, seq, recent_from, count)
            for ref, text in folds.get(index, [])
        ]
        if not renderer.visible(index, message) or compaction_parts(message):
            continue
        if is_attachment(message):
            this_turn = current is not None and index > current
            out += _attachments(message, seq, recent_from, this_turn, count, attached)
            continue
        entry = _entry(renderer, message, seq, recent_from, index == current)
        if entry is not None and index == latest:
            entry.block = entry.block.model_copy(update={"priority": PRIORITY_LATEST_STEP})
        if entry is not None:
            out.append(entry)
    next_seq = float(len(messages))
    anchor = _summary_anchor(renderer, current, count)
    if anchor is not None:
        out.append(anchor)
    if user_message.strip() and current is None:
        # Not recorded (a dry run): last.
        out.append(user_candidate(user_message, count, next_seq, None))
        next_seq += AFTER_SUMMARY_OFFSET
    out.sort(key=lambda c: c.seq)
    compaction = CompactionStats(
        count=sum(state.counts.values()),
        summary_tokens=summary.block.tokens if summary is not None else 0,
        watermark=state.watermark,
    )
    return HistoryView(candidates=out, compaction=compaction, attached=attached, next_seq=next_seq)


def _latest_step(renderer: MessageRenderer, current: int | None) -> int | None:
    """Index of the turn's latest shown reply with tool calls (its results are the turn's
    newest), or None; only after the current user message when it is recorded."""
    messages = renderer.messages
    for index in range(len(messages) - 1, -1, -1):
        if current is not None and index <= current:
            return None
        message = messages[index]
        if message.role == "user" and not compaction_parts(message) and not is_attachment(message):
            return None
        if (
            message.role == "assistant"
            and renderer.visible(index, message)
            and any(isinstance(p, ToolCallPart) for p in message.parts)
        ):
            return index
    return None


def _summary_anchor(
    renderer: MessageRenderer, current: int | None, count: Count
) -> Candidate | None:
    """The last user message a summary covers, shown right after it (the current one required).

    It stays there, unchanged, until the next summary: the user's latest words at the
    time of the summary are never lost, and the next turn does not rewrite the segment.
    """
    state, messages = renderer.state, renderer.messages
    if state.summary is None or state.watermark_index < 0:
        return None
    covered = range(min(state.watermark_index, len(messages) - 1), -1, -1)
    index = next(
        (i for i in covered if messages[i].role == "user" and not compaction_parts(messages[i])),
        None,
    )
    if index is None or not user_content(messages[index]):
        return None
    message = messages[index]
    seq = state.watermark_index + AFTER_SUMMARY_OFFSET
    content = user_content(message)
    if index == current:
        return user_candidate(content, count, seq, message.id)
    return chat_candidate(
        "history",
        PRIORITY_SUMMARY,
        [{"role": "user", "content": content}],
        count=count,
        seq=seq,
        ref=message.id,
    )


# Positions of the files of one attachment message, between it and the next message.
ATTACHMENT_SEQ_STEP = 1e-3


def _attachments(
    message: Message,
    seq: float,
    recent_from: float,
    this_turn: bool,
    count: Count,
    attached: dict[str, Attached],
) -> list[Candidate]:
    out: list[Candidate] = []
    for position, part in enumerate(attachment_parts(message)):
        priority = current_priority(part) if this_turn else _priority(seq, recent_from, True)
        at = seq + position * ATTACHMENT_SEQ_STEP
        out.append(attachment_candidate(part, at, priority, count))
        attached[key_of(part)] = Attached(part.hash, part.text or "", this_turn)
    return out


def _entry(
    renderer: MessageRenderer, message: Message, seq: float, recent_from: float, is_current: bool
) -> Candidate | None:
    count = renderer.count
    if message.role == "tool":
        return None
    if message.role == "assistant":
        chat, artifacts = renderer.assistant_entry(message)
        has_tools = len(chat) > 1
        if not has_tools and not chat[0]["content"]:
            return None
        return chat_candidate(
            "history",
            _priority(seq, recent_from, has_tools),
            chat,
            count=count,
            seq=seq,
            ref=message.id,
            artifacts=artifacts,
        )
    content = user_content(message)
    if not content:
        return None
    if is_current:
        return user_candidate(content, count, seq, message.id)
    if message.role == "system":
        content = f"[note from the harness] {content}"
    return chat_candidate(
        "history",
        _priority(seq, recent_from, False),
        [{"role": "user", "content": content}],
        count=count,
        seq=seq,
        ref=message.id,
    )
