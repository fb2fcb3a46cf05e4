"""Reading the compaction markers already recorded in a message list.

A marker is a message carrying a `CompactionPart`. These helpers answer the
questions every policy asks: which tool results are already pruned, which
messages a goal fold covers, and where the latest summary's watermark is.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from cairn.models.messages import CompactionPart, Message, ToolResultPart
from cairn.models.summary import SessionSummary


def compaction_parts(message: Message) -> list[CompactionPart]:
    """The compaction markers a message carries (usually none or one)."""
    return [p for p in message.parts if isinstance(p, CompactionPart)]


def is_marker(message: Message) -> bool:
    """True for a message that records a compaction rather than conversation."""
    return bool(compaction_parts(message))


def tool_results(message: Message) -> list[ToolResultPart]:
    return [p for p in message.parts if isinstance(p, ToolResultPart)]


@dataclass(frozen=True)
class CompactionState:
    """What the markers in a history say, gathered in one pass."""

    pruned_call_ids: frozenset[str] = frozenset()
    folded_message_ids: frozenset[str] = frozenset()
    summary: SessionSummary | None = None
    summary_count: int = 0
    # Index in the message list of the summary's watermark (-1: no summary).
    watermark_index: int = -1
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def watermark(self) -> str | None:
        return self.summary.covered_until_message_id if self.summary else None

    def is_covered(self, index: int, message: Message) -> bool:
        """True when the context no longer shows this message verbatim."""
        return index <= self.watermark_index or message.id in self.folded_message_ids


def read_state(messages: Sequence[Message]) -> CompactionState:
    """Collect every marker of `messages` (later summaries supersede earlier ones)."""
    pruned: set[str] = set()
    folded: set[str] = set()
    summary: SessionSummary | None = None
    counts: dict[str, int] = {}
    for message in messages:
        for part in compaction_parts(message):
            counts[part.kind] = counts.get(part.kind, 0) + 1
            if part.kind == "prune":
                pruned.update(part.pruned_call_ids)
            elif part.kind == "goal":
                folded.update(part.covers)
            elif part.summary is not None:
                summary = part.summary
    watermark_index = -1
    if summary is not None and summary.covered_until_message_id is not None:
        watermark_index = index_of(messages, summary.covered_until_message_id)
    return CompactionState(
        pruned_call_ids=frozenset(pruned),
        folded_message_ids=frozenset(folded),
        summary=summary,
        summary_count=counts.get("summary", 0),
        watermark_index=watermark_index,
        counts=counts,
    )


def index_of(messages: Sequence[Message], message_id: str) -> int:
    """Position of the message with `message_id`, or -1."""
    for index, message in enumerate(messages):
        if message.id == message_id:
            return index
    return -1


def call_ids(messages: Iterable[Message]) -> set[str]:
    """Every tool call id answered in `messages`."""
    return {part.call_id for m in messages for part in tool_results(m)}
