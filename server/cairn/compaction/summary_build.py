"""Assembling a `SessionSummary`: merged narrative + ledger from the records + watermark.

Later compactions are incremental: the previous summary's narrative is
merged with the new one, and the ledger covers every message up to the new
watermark. The user's own messages in the covered part are kept verbatim
among the confirmed facts, so a constraint given early survives any number
of compactions whatever the model writes. When a summary stalls, the same cut
is summarised again with the ledger alone (`ledger_only_summary`).
"""

from __future__ import annotations

from collections.abc import Sequence

from cairn.compaction.ledger import Ledger, build_ledger
from cairn.compaction.markers import index_of, is_marker, read_state
from cairn.compaction.narrative import Narrative, merge_narrative
from cairn.models.goals import GoalTree
from cairn.models.messages import CompactionPart, Message
from cairn.models.summary import SessionSummary

USER_FACT_PREFIX = "The user said: "


def user_facts(messages: Sequence[Message]) -> list[str]:
    """The text of every user message, as confirmed facts."""
    return [
        USER_FACT_PREFIX + text
        for m in messages
        if m.role == "user" and not is_marker(m) and (text := m.text().strip())
    ]


def build_summary(
    previous: SessionSummary | None,
    narrative: Narrative,
    ledger: Ledger,
    covered: Sequence[Message],
    watermark_id: str,
) -> SessionSummary:
    """The summary standing for every message up to and including `watermark_id`."""
    merged = merge_narrative(previous, narrative)
    facts = list(merged.confirmed_facts)
    facts += [f for f in user_facts(covered) if f not in facts]
    return SessionSummary(
        objective=merged.objective,
        confirmed_facts=facts,
        decisions=merged.decisions,
        files_read=ledger.files_read,
        files_changed=ledger.files_changed,
        tests=ledger.tests,
        goal_summaries=ledger.goal_summaries,
        open_questions=merged.open_questions,
        covered_until_message_id=watermark_id,
    )


def ledger_only_summary(
    messages: Sequence[Message], part: CompactionPart, tree: GoalTree
) -> CompactionPart:
    """The summary of the same cut as `part` without the new narrative from the model
    (the stall guard's fallback: the previous narrative, the user's words, the ledger)."""
    assert part.summary is not None
    watermark = part.summary.covered_until_message_id or ""
    covered = messages[: max(index_of(messages, watermark), 0) + 1]
    previous = read_state(messages).summary
    summary = build_summary(previous, Narrative(), build_ledger(covered, tree), covered, watermark)
    return CompactionPart(kind="summary", summary=summary)


def moves_watermark(messages: Sequence[Message], part: CompactionPart) -> bool:
    """A prepared summary must move the watermark forward (no other summary got there first)."""
    assert part.summary is not None
    watermark = part.summary.covered_until_message_id
    index = index_of(messages, watermark) if watermark is not None else -1
    return index > read_state(messages).watermark_index
