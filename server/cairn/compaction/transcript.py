"""Plain-text rendering of history for the compaction call, and the choice of its watermark.

The compaction model reads the messages after the previous watermark as a
plain transcript, every tool output in full — a pruned one, and the messages
of a goal already folded into one line, too: the model saw them whole when
they came, so the summary must have seen them whole to keep what they said
(a fold's line follows its messages). Outputs are not repeated: one
identical to an output earlier in the same transcript names that call, one
identical to an output an earlier summary covered (whose summarizer saw it
whole) says so and names its artifact, and a `read_file` of a file read
before (from the same line) that changed little is shown as its changes
since that read (`MAX_DIFF_SHARE`); a `goal` result is its first line,
as the context shows it (the plan is the goal tree's). A transcript too
large for one call is cut into chunks (`cairn.compaction.chunks`).

The new watermark keeps a recent tail of the history verbatim (measured as
the context shows it), never separates an assistant message from the tool
results that answer it, and never covers the latest step while the model has
not replied to it (the newest reply with tool calls and its results: what the
agent just asked for reaches the next call whole, however small the verbatim
share). A summary prepared in the background starts once the model has
replied to the step (`replied`), so there the whole step may be covered. How
much it covers is not bounded by the compaction call's window: chunks are.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable, Iterable, Sequence

from cairn.compaction.ledger import KEY_PATH, READ_TOOL
from cairn.compaction.markers import (
    CompactionState,
    compaction_parts,
    is_marker,
    read_state,
    tool_results,
)
from cairn.files.text import content_hash
from cairn.models.messages import Message, TextPart, ToolCallPart, ToolResultPart

GOAL_TOOL = "goal"
# Outputs smaller than this are shown again rather than named (a name costs about as much).
MIN_REPEAT_TOKENS = 100
SAME_AS_ABOVE = "[the same output as tool result {call} above]"
SAME_AS_BEFORE = (
    "[the same output as one the previous summary covered (its summarizer read it whole){where}]"
)
CHANGED_SINCE = "[{earlier}, changed since (a diff of its lines, numbers left out):\n{diff}\n]"
EARLIER_HERE = "the read of tool result {call} above"
EARLIER_COVERED = "the read of {path} the previous summary covered{where}"
# A re-read is shown as its changes when they are at most this share of it.
MAX_DIFF_SHARE = 0.3
# `read_file`'s line numbers (left out before two reads are compared).
LINE_NUMBER = re.compile(r"^ *\d+\t", re.MULTILINE)
KEY_START_LINE = "start_line"

ReadKey = tuple[str, object]


def read_key(part: ToolResultPart) -> ReadKey | None:
    """What two reads of the same text share: the path and the first line read."""
    data = part.data or {}
    if part.name != READ_TOOL or not part.ok or KEY_PATH not in data:
        return None
    return (str(data[KEY_PATH]), data.get(KEY_START_LINE))


def changes(before: str, after: str) -> str:
    """The unified diff of two read outputs' lines, their numbers left out."""
    old = LINE_NUMBER.sub("", before).splitlines()
    new = LINE_NUMBER.sub("", after).splitlines()
    return "\n".join(list(difflib.unified_diff(old, new, n=1, lineterm=""))[2:])


class Transcript:
    """Renders messages for the summarizer, remembering the outputs already shown."""

    def __init__(self, state: CompactionState, count: Callable[[str], int]) -> None:
        self.state = state
        self.count = count
        # Tool results rendered so far (each is numbered, so later ones can name it).
        self.results = 0
        # content hash of an output → the number of the result that showed it earlier.
        self.shown: dict[str, int] = {}
        # content hash of an output an earlier summary covered → its artifact (or None).
        self.covered: dict[str, str | None] = {}
        # The last read of each text (path, first line): its output and how to name it.
        self.reads: dict[ReadKey, tuple[str, str]] = {}

    def remember_covered(self, messages: Iterable[Message]) -> None:
        """Outputs of messages an earlier summary covered: named, not repeated."""
        for message in messages:
            for part in tool_results(message):
                self.covered.setdefault(content_hash(part.output), part.artifact_id)
                key = read_key(part)
                if key is not None:
                    where = f", artifact {part.artifact_id}" if part.artifact_id else ""
                    self.reads[key] = (
                        part.output,
                        EARLIER_COVERED.format(path=key[0], where=where),
                    )

    def _output(self, part: ToolResultPart) -> str:
        if part.name == GOAL_TOOL and part.ok:
            return part.output.partition("\n")[0]
        key = content_hash(part.output)
        if self.count(part.output) >= MIN_REPEAT_TOKENS:
            if key in self.shown:
                return SAME_AS_ABOVE.format(call=self.shown[key])
            if key in self.covered:
                artifact = self.covered[key]
                return SAME_AS_BEFORE.format(where=f"; artifact {artifact}" if artifact else "")
        self.shown.setdefault(key, self.results)
        return self._reread(part)

    def _reread(self, part: ToolResultPart) -> str:
        """A read shown as its changes since the last read of the same text, when small."""
        key = read_key(part)
        if key is None:
            return part.output
        earlier = self.reads.get(key)
        self.reads[key] = (part.output, EARLIER_HERE.format(call=self.results))
        if earlier is None:
            return part.output
        diff = changes(earlier[0], part.output)
        if not diff or self.count(diff) > MAX_DIFF_SHARE * self.count(part.output):
            return part.output
        return CHANGED_SINCE.format(earlier=earlier[1], diff=diff)

    def tool_line(self, part: ToolResultPart) -> str:
        status = "ok" if part.ok else "failed"
        artifact = f" (artifact {part.artifact_id})" if part.artifact_id else ""
        self.results += 1
        return f"TOOL {self.results} {part.name} [{status}]{artifact}: {self._output(part)}"

    def message(self, message: Message) -> str:
        """One message as transcript text ('' for a prune or summary marker)."""
        if is_marker(message):
            return "\n".join(
                f"GOAL FOLDED: {p.text}"
                for p in compaction_parts(message)
                if p.kind == "goal" and p.text
            )
        lines: list[str] = []
        for part in message.parts:
            if isinstance(part, TextPart) and part.text.strip():
                lines.append(f"{message.role.upper()}: {part.text}")
            elif isinstance(part, ToolCallPart):
                lines.append(f"CALL {part.name}({json.dumps(part.arguments, sort_keys=True)})")
            elif isinstance(part, ToolResultPart):
                lines.append(self.tool_line(part))
        return "\n".join(lines)


def message_texts(
    messages: Sequence[Message], start: int, last: int, count: Callable[[str], int]
) -> list[str]:
    """The transcript texts of `messages[start : last + 1]`, one per message, outputs an
    earlier summary covered (`messages[:start]`) named rather than repeated."""
    transcript = Transcript(read_state(messages), count)
    transcript.remember_covered(messages[:start])
    return [transcript.message(m) for m in messages[start : last + 1]]


def missing_outputs(
    messages: Sequence[Message], start: int, last: int, shown: str, count: Callable[[str], int]
) -> list[str]:
    """Transcript lines of the outputs of `messages[start : last + 1]` that the text `shown`
    (a request's prefix) does not hold whole — pruned, or shortened to fit — in full;
    `goal` results left out (the prefix shows them as the context does)."""
    transcript = Transcript(read_state(messages), count)
    transcript.remember_covered(messages[:start])
    lines: list[str] = []
    for message in messages[start : last + 1]:
        for part in tool_results(message):
            if part.name != GOAL_TOOL and part.output not in shown:
                lines.append(transcript.tool_line(part))
    return lines


def render_transcript(
    messages: Sequence[Message], state: CompactionState, count: Callable[[str], int]
) -> str:
    """Every message of `messages` as one transcript text."""
    transcript = Transcript(state, count)
    return "\n".join(t for m in messages if (t := transcript.message(m)))


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


def splits_step(messages: Sequence[Message], index: int) -> bool:
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
    while last >= start and splits_step(messages, last):
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
