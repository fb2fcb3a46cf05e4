"""Changing a session's goal tree (from the model's `goal` tool or the user) and telling the listener.

Every change is saved to the trace and followed by `on_goal_tree_changed`.
`done` / `abandon` also yield a `PendingFold` for the goal that was focused,
which the caller folds right away or at the end of the current step. The
`goal` tool answers with a one-line summary of the change ("added 3.1, 3.2",
"done 2: <summary>", "focus 3") above the tree, so the first line of its
output (what activity lines show) says what the call did.
"""

from __future__ import annotations

from typing import Any

from cairn.agent.listener import SafeListener
from cairn.agent.session import PendingFold, Session
from cairn.compaction.goal_fold import FoldVerb
from cairn.errors import GoalError
from cairn.goals import apply_goal, iter_goals, render_tree
from cairn.models.goals import GoalTree

GOAL_VERBS = ("add", "done", "abandon", "focus")


def change_goal(
    session: Session,
    listener: SafeListener,
    *,
    add: str | None = None,
    done: str | None = None,
    abandon: str | None = None,
    focus: str | None = None,
) -> PendingFold | None:
    """Apply one verb, save, notify; the fold to make when a goal was finished."""
    before = session.goals()
    after = apply_goal(before, add=add, done=done, abandon=abandon, focus=focus)
    session.trace.save_goals(after)
    listener.on_goal_tree_changed(session.goal_view())
    verb: FoldVerb | None = (
        "done" if done is not None else "abandon" if abandon is not None else None
    )
    if verb is None or before.current_id is None:
        return None
    text = done if done is not None else abandon
    return PendingFold(goal_id=before.current_id, verb=verb, summary=(text or "").strip())


def goal_arguments(args: dict[str, Any]) -> dict[str, str]:
    """The verb arguments of a `goal` tool call (strings only); GoalError otherwise."""
    out: dict[str, str] = {}
    for key in GOAL_VERBS:
        value = args.get(key)
        if value is None:
            continue
        if not isinstance(value, str):
            raise GoalError(f"goal: {key} must be a string, got {type(value).__name__}")
        out[key] = value
    unknown = sorted(set(args) - set(GOAL_VERBS))
    if unknown:
        raise GoalError(f"goal: unknown argument(s) {', '.join(unknown)}")
    return out


def describe_change(before: GoalTree, after: GoalTree, verbs: dict[str, str]) -> str:
    """One line saying what a verb did: the goals it added, finished or focused."""
    if "add" in verbs:
        known = {goal.id for goal in iter_goals(before.goals)}
        added = [goal.id for goal in iter_goals(after.goals) if goal.id not in known]
        return f"added {', '.join(added)}"
    if "focus" in verbs:
        return f"focus {after.current_id}"
    verb, text = ("done", verbs["done"]) if "done" in verbs else ("abandoned", verbs["abandon"])
    lines = text.strip().splitlines()
    line = f"{verb} {before.current_id}: {lines[0] if lines else ''}"
    if after.current_id is not None:
        line += f" (focus {after.current_id})"
    return line


def tool_reply(session: Session, change: str) -> str:
    """What the `goal` tool answers: the change in one line, then the tree after it."""
    return f"{change}\n{render_tree(session.goals())}"
