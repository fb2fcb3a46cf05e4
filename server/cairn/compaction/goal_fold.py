"""Goal folding: a finished or abandoned goal's messages become one summary message.

When `goal done` / `goal abandon` runs, every assistant and tool message
written while that goal (or one of its sub-goals) was focused is covered by
one `CompactionPart(kind="goal")`. The context builder shows the marker's
text instead of the covered messages; the trace keeps them. User messages
are never folded: they are the user's words, and a constraint given while
some goal was focused must outlive that goal. An abandon summary keeps the
reason and tells the model not to retry.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Literal

from cairn.compaction.markers import compaction_parts, is_marker
from cairn.models.goals import Goal
from cairn.models.messages import CompactionPart, Message

FoldVerb = Literal["done", "abandon"]

ABANDON_ADVICE = "do not retry this approach"


def fold_text(goal: Goal, verb: FoldVerb, summary: str) -> str:
    """The one message that stands for the folded goal in the context."""
    if verb == "abandon":
        return f"Goal {goal.id} ({goal.description}) ABANDONED: {summary} — {ABANDON_ADVICE}"
    return f"Goal {goal.id} ({goal.description}) completed: {summary}"


def _foldable(message: Message) -> bool:
    if is_marker(message):
        return all(part.kind == "goal" for part in compaction_parts(message))
    return message.role in ("assistant", "tool")


def fold_goal(
    messages: Sequence[Message],
    goal: Goal,
    subtree_ids: Collection[str],
    verb: FoldVerb,
    summary: str,
) -> CompactionPart | None:
    """The marker folding `goal` (whose subtree is `subtree_ids`), or None when it has no messages."""
    covers = [m.id for m in messages if m.goal_id in subtree_ids and _foldable(m)]
    if not covers:
        return None
    return CompactionPart(
        kind="goal", covers=covers, goal_id=goal.id, text=fold_text(goal, verb, summary)
    )
