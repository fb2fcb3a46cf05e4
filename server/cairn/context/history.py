"""Recorded messages → history blocks, with the compaction markers applied.

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
first call of a turn. It is the LAST user message whose text equals
`GatherRequest.user_message`; that block becomes the required `user` block
in place, so it is never duplicated. When no recorded message matches
(a dry run), it is appended at the end. The last user message a summary
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

from cairn.compaction.markers import CompactionState, compaction_parts, read_state
from cairn.context.attachments import (
    Attached,
    attachment_candidate,
    attachment_parts,
    current_priority,
    is_attachment,
    key_of,
)
from cairn.context.blocks import (
    MESSAGE_OVERHEAD_TOKENS,
    Candidate,
    ChatMessage,
    Count,
    chat_candidate,
    tool_call_message,
)
from cairn.context.excerpt import ARTIFACT_REF_PREFIX
from cairn.context.priorities import (
    PRIORITY_HISTORY_OLD,
    PRIORITY_HISTORY_RECENT,
    PRIORITY_LATEST_STEP,
    PRIORITY_OLD_TOOL_OUTPUT,
    PRIORITY_SUMMARY,
    RECENT_TURNS,
)
from cairn.context.repeats import GOAL_TOOL, RepeatIndex, goal_history_text, repeat_stub
from cairn.context.sources.summary import fit_summary, render_summary
from cairn.context.sources.user import user_candidate
from cairn.models.manifest import CompactionStats
from cairn.models.messages import (
    FilePart,
    Message,
    SubtaskPart,
    ToolCallPart,
    ToolResultPart,
)

NO_RESULT_TEXT = "[no result: the call was interrupted before it finished]"
SUMMARY_SEQ = -1.0
# Offset placing a covered current user message right after what covers it.
AFTER_SUMMARY_OFFSET = 0.5


def prune_stub(tokens: int, artifact_id: str | None) -> str:
    """What the model sees of a pruned tool result: its size and the call that reads it."""
    if artifact_id is None:
        return f"[output pruned: {tokens} tokens; it was not stored: run the call again to see it]"
    return f'[output pruned: {tokens} tokens; read_file("{ARTIFACT_REF_PREFIX}{artifact_id}") shows it again]'


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


def _user_content(message: Message) -> str:
    pieces = [message.text()]
    for part in message.parts:
        if isinstance(part, FilePart):
            pieces.append(f"[attached @{part.path} (hash {part.hash})]")
        elif isinstance(part, SubtaskPart):
            pieces.append(f"[explore branch {part.branch}: {part.status}]")
    return "\n".join(p for p in pieces if p)


class _Renderer:
    def __init__(self, messages: Sequence[Message], count: Count) -> None:
        self.messages = messages
        self.count = count
        self.state: CompactionState = read_state(messages)
        # Every recorded result, covered or not: a shown call always gets its result.
        self.results: dict[str, ToolResultPart] = {}
        for message in messages:
            for part in message.parts:
                if isinstance(part, ToolResultPart):
                    self.results.setdefault(part.call_id, part)
        self.repeats = RepeatIndex()

    def visible(self, index: int, message: Message) -> bool:
        return not self.state.is_covered(index, message)

    def tool_content(self, call: ToolCallPart, part: ToolResultPart) -> str:
        """A result as shown: pruned → stub; repeats (`cairn.context.repeats`) → short."""
        if part.call_id in self.state.pruned_call_ids:
            return prune_stub(self.count(part.output), part.artifact_id)
        if not part.ok:
            return part.output
        if part.name == GOAL_TOOL:
            return goal_history_text(part.output)
        earlier = self.repeats.shown(part.name, call.arguments, part.output, part.call_id)
        return part.output if earlier is None else repeat_stub(part.name, earlier, part.artifact_id)

    def assistant_entry(self, message: Message) -> tuple[list[ChatMessage], dict[int, str]]:
        calls = [p for p in message.parts if isinstance(p, ToolCallPart)]
        text = message.text()
        head: ChatMessage = {"role": "assistant", "content": text or None}
        if calls:
            head["tool_calls"] = [tool_call_message(c.call_id, c.name, c.arguments) for c in calls]
        out: list[ChatMessage] = [head]
        artifacts: dict[int, str] = {}
        for call in calls:
            result = self.results.get(call.call_id)
            content = NO_RESULT_TEXT if result is None else self.tool_content(call, result)
            if result is not None and result.artifact_id:
                artifacts[len(out)] = result.artifact_id
            out.append({"role": "tool", "tool_call_id": call.call_id, "content": content})
        return out, artifacts

    def fold_positions(self) -> dict[int, list[tuple[str, str]]]:
        """Index of the first shown covered message → [(goal ref, fold text)]."""
        positions: dict[int, list[tuple[str, str]]] = {}
        index_by_id = {m.id: i for i, m in enumerate(self.messages)}
        for index, message in enumerate(self.messages):
            if self.state.is_covered(index, message):
                continue
            for part in compaction_parts(message):
                if part.kind != "goal" or not part.text:
                    continue
                shown = [
                    index_by_id[c]
                    for c in part.covers
                    if c in index_by_id and index_by_id[c] > self.state.watermark_index
                ]
                if shown:
                    ref = f"goal {part.goal_id}" if part.goal_id else message.id
                    positions.setdefault(min(shown), []).append((ref, part.text))
        return positions


def _priority(seq: float, recent_from: float, has_tools: bool) -> int:
    if seq >= recent_from:
        return PRIORITY_HISTORY_RECENT
    return PRIORITY_OLD_TOOL_OUTPUT if has_tools else PRIORITY_HISTORY_OLD


def _recent_from(messages: Sequence[Message], renderer: _Renderer) -> float:
    starts = [
        i
        for i, m in enumerate(messages)
        if m.role == "user" and renderer.visible(i, m) and not compaction_parts(m)
    ]
    return float(starts[-RECENT_TURNS]) if len(starts) >= RECENT_TURNS else float("-inf")


def _current_user_index(messages: Sequence[Message], user_message: str) -> int | None:
    wanted = user_message.strip()
    if not wanted:
        return None
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.role == "user" and message.text().strip() == wanted:
            return index
    return None


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
) -> HistoryView:
    """Candidates for the summary (required, within `summary_limit` tokens), the shown
    messages and the current user message."""
    renderer = _Renderer(messages, count)
    state = renderer.state
    recent_from = _recent_from(messages, renderer)
    current = _current_user_index(messages, user_message)
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


def _latest_step(renderer: _Renderer, current: int | None) -> int | None:
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


def _summary_anchor(renderer: _Renderer, current: int | None, count: Count) -> Candidate | None:
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
    if index is None or not _user_content(messages[index]):
        return None
    message = messages[index]
    seq = state.watermark_index + AFTER_SUMMARY_OFFSET
    content = _user_content(message)
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
    renderer: _Renderer, message: Message, seq: float, recent_from: float, is_current: bool
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
    content = _user_content(message)
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
