"""Changing a session's goal tree (from the model's `goal` tool or the user) and telling the listener.

Callers hand over one verb already checked (`GoalArgs` for the tool,
`cairn.goals.one_verb` for the editor's request). Every change is saved to
the trace and followed by `on_goal_tree_changed`. Every change is also in the
messages, so the tree can be replayed to any point (`cairn.goals.replay`):
the tool's by its result, the user's by a `GoalOpPart` recorded before
`goal.json` is saved. `done` / `abandon` also
yield a `PendingFold` for the goal that was focused, which the caller folds
right away or at the end of the current step. The `goal` tool answers with
a one-line summary of the change ("added 3.1, 3.2", "done 2: <summary>",
"focus 3") above the tree, so the first line of its output (what activity
lines show) says what the call did.
"""

from __future__ import annotations

from cairn.agent.listener import SafeListener
from cairn.agent.sessions.session import PendingFold, Session
from cairn.compaction.goal_fold import FoldVerb
from cairn.goals import GoalVerb, apply_verb, iter_goals, render_tree
from cairn.goals.replay import mission_of
from cairn.models.goals import GoalTree
from cairn.models.messages import Message


def change_goal(
    session: Session, listener: SafeListener, verb: GoalVerb, text: str, *, by_user: bool = False
) -> PendingFold | None:
    """Apply one verb, save, notify; the fold to make when a goal was finished.

    `by_user`: the change comes from the editor, and is recorded as a message first."""
    before = session.goals()
    after = apply_verb(before, verb, text)
    if by_user:
        session.record_goal_op(verb, text)
    session.trace.save_goals(after)
    listener.on_goal_tree_changed(session.goal_view())
    fold_verb: FoldVerb | None = (
        "done" if verb == "done" else "abandon" if verb == "abandon" else None
    )
    if fold_verb is None or before.current_id is None:
        return None
    return PendingFold(goal_id=before.current_id, verb=fold_verb, summary=text.strip())


def set_mission(session: Session, listener: SafeListener, user: Message) -> None:
    """A session's first turn sets the mission from its message, and so does the next
    prompt while the model never answered (every earlier turn failed before a reply) —
    once the message is recorded: the rule `replay_goals` follows, so the two agree."""
    tree = session.goals()
    mission = mission_of(user.text())
    if (tree.mission and not session.never_answered()) or not mission:
        return
    session.trace.save_goals(tree.model_copy(update={"mission": mission}))
    listener.on_goal_tree_changed(session.goal_view())


def describe_change(before: GoalTree, after: GoalTree, verb: GoalVerb, text: str) -> str:
    """One line saying what a verb did: the goals it added, finished or focused."""
    if verb == "add":
        known = {goal.id for goal in iter_goals(before.goals)}
        added = [goal.id for goal in iter_goals(after.goals) if goal.id not in known]
        return f"added {', '.join(added)}"
    if verb == "focus":
        return f"focus {after.current_id}"
    word = "done" if verb == "done" else "abandoned"
    lines = text.strip().splitlines()
    line = f"{word} {before.current_id}: {lines[0] if lines else ''}"
    if after.current_id is not None:
        line += f" (focus {after.current_id})"
    return line


def goal_call(session: Session, listener: SafeListener, verb: GoalVerb, text: str) -> str:
    """The `goal` tool's change: applied, its fold queued for the step's end; the reply.

    The reply is the change in one line, then the tree after it.
    """
    before = session.goals()
    fold = change_goal(session, listener, verb, text)
    if fold is not None:
        session.pending_folds.append(fold)
    after = session.goals()
    return f"{describe_change(before, after, verb, text)}\n{render_tree(after)}"
