"""Goal folding: a finished or abandoned goal's messages become one summary message.

When `goal done` / `goal abandon` runs, every assistant and tool message
written while that goal (or one of its sub-goals) was focused is covered by
one `CompactionPart(kind="goal")`. The context builder shows the marker's
text instead of the covered messages; the trace keeps them. User messages
are never folded: they are the user's words, and a constraint given while
some goal was focused must outlive that goal. An abandon summary keeps the
reason and tells the model not to retry.

The reply that finished the goal stays out of its fold when it did more than
finish it (`[goal(done), read_file(x)]`): its other results were written for
the next call, which must see them; a parent goal's fold covers it later.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Literal

from cairn.compaction.markers import compaction_parts, is_marker
from cairn.models.goals import Goal
from cairn.models.messages import CompactionPart, Message, ToolCallPart, ToolResultPart

FoldVerb = Literal["done", "abandon"]

ABANDON_ADVICE = "do not retry this approach"
GOAL_TOOL = "goal"
FINISHING_VERBS = ("done", "abandon")


def fold_text(goal: Goal, verb: FoldVerb, summary: str) -> str:
    """The one message that stands for the folded goal in the context."""
    if verb == "abandon":
        return f"Goal {goal.id} ({goal.description}) ABANDONED: {summary} — {ABANDON_ADVICE}"
    return f"Goal {goal.id} ({goal.description}) completed: {summary}"


def _foldable(message: Message) -> bool:
    if is_marker(message):
        return all(part.kind == "goal" for part in compaction_parts(message))
    return message.role in ("assistant", "tool")


def _finishes(call: ToolCallPart) -> bool:
    return call.name == GOAL_TOOL and any(call.arguments.get(v) for v in FINISHING_VERBS)


def finishing_step(messages: Sequence[Message], covered: Collection[str]) -> set[str]:
    """Ids of the last covered reply that finished a goal while also calling other tools,
    and of the tool messages answering it (empty when the reply only finished the goal)."""
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.id not in covered or message.role != "assistant":
            continue
        calls = [p for p in message.parts if isinstance(p, ToolCallPart)]
        if not any(_finishes(c) for c in calls):
            continue
        if all(_finishes(c) for c in calls):
            return set()
        ids = {c.call_id for c in calls}
        answers = {
            m.id
            for m in messages[index + 1 :]
            if m.role == "tool"
            and any(isinstance(p, ToolResultPart) and p.call_id in ids for p in m.parts)
        }
        return {message.id, *answers}
    return set()


def fold_goal(
    messages: Sequence[Message],
    goal: Goal,
    subtree_ids: Collection[str],
    verb: FoldVerb,
    summary: str,
) -> CompactionPart | None:
    """The marker folding `goal` (whose subtree is `subtree_ids`), or None when it has no messages."""
    covers = [m.id for m in messages if m.goal_id in subtree_ids and _foldable(m)]
    kept = finishing_step(messages, set(covers))
    covers = [c for c in covers if c not in kept]
    if not covers:
        return None
    return CompactionPart(
        kind="goal", covers=covers, goal_id=goal.id, text=fold_text(goal, verb, summary)
    )
