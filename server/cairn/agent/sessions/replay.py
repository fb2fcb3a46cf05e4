"""One walk of a session's recorded messages: the steps every replay of them translates.

The trace keeps every message, and three views show them again: the ACP
agent's `session/load` (`cairn.acp.replay`), the editor's transcript
(`transcript.py`, `cairn/transcript`) and `cairn trace show`
(`cairn.commands.trace_view`). Each translates the same steps into its own
shapes, so they agree on what the record holds:

- `message_steps(message)`: one step per part, named for what it is to a
  reader: text said (`Said`: the user's or the agent's, by the message's
  role), reasoning (`Thought`), a file (`Attached`: an `@file` reference on
  the user's message, an attachment elsewhere), a tool call (`Called`), a
  tool result (`Answered`), a compaction marker (`Compacted`), and the rest
  (`Other`: goal changes, explore launches).
- `replay_steps(messages)`: the conversation: the steps of every message
  but an explore branch's (its own trace holds it), each result with the
  call it answers (None when that call was never seen), and each call no
  result answered (a cancelled turn) closed as `Unanswered` before the next
  user message and at the end, in the order the calls were made.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Generic, TypeVar

from cairn.models.messages import (
    CompactionPart,
    FilePart,
    Message,
    Part,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)

P = TypeVar("P", bound=Part)


@dataclass(frozen=True)
class _Step(Generic[P]):
    """One part of a recorded message."""

    message: Message
    part: P


class Said(_Step[TextPart]):
    """Text: the user's on a user message, the agent's on an assistant message."""


class Thought(_Step[ReasoningPart]):
    """The agent's reasoning."""


class Attached(_Step[FilePart]):
    """A file: the user's `@file` reference, or an attachment the harness recorded."""


class Called(_Step[ToolCallPart]):
    """A tool call."""


@dataclass(frozen=True)
class Answered(_Step[ToolResultPart]):
    """A tool result; `call` is the call it answers (in `replay_steps`, when it was seen)."""

    call: ToolCallPart | None = None


class Unanswered(_Step[ToolCallPart]):
    """A call no result answered (its turn was cancelled); `message` is the call's."""


class Compacted(_Step[CompactionPart]):
    """A compaction marker."""


class Other(_Step[Part]):
    """Any other part: a goal change, an explore launch."""


Step = Said | Thought | Attached | Called | Answered | Unanswered | Compacted | Other


def _step(message: Message, part: Part) -> Step:
    if isinstance(part, TextPart):
        return Said(message, part)
    if isinstance(part, ReasoningPart):
        return Thought(message, part)
    if isinstance(part, FilePart):
        return Attached(message, part)
    if isinstance(part, ToolCallPart):
        return Called(message, part)
    if isinstance(part, ToolResultPart):
        return Answered(message, part)
    if isinstance(part, CompactionPart):
        return Compacted(message, part)
    return Other(message, part)


def message_steps(message: Message) -> Iterator[Step]:
    """The steps of one message, a part each, in order (results unpaired)."""
    for part in message.parts:
        yield _step(message, part)


def _unanswered(pending: dict[str, Called]) -> Iterator[Unanswered]:
    for called in pending.values():
        yield Unanswered(called.message, called.part)
    pending.clear()


def replay_steps(messages: Iterable[Message]) -> Iterator[Step]:
    """The conversation of `messages` as steps (see the module docstring)."""
    pending: dict[str, Called] = {}
    for message in messages:
        if message.agent is not None:
            continue
        if message.role == "user":
            yield from _unanswered(pending)
        for step in message_steps(message):
            if isinstance(step, Called):
                pending[step.part.call_id] = step
            elif isinstance(step, Answered):
                called = pending.pop(step.part.call_id, None)
                step = Answered(message, step.part, called.part if called else None)
            yield step
    yield from _unanswered(pending)
