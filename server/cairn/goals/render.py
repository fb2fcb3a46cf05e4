"""Text renderings of the goal tree: the "Current Plan" prompt block and a compact tree.

`render_plan` is injected into every model call as the last thing the model
reads (the end of the volatile tail, after the history; DESIGN §2.2, §2.3);
`render_tree` is the short form sent to the editor as `rendered`.
Finished goals show their summary; abandoned goals show their reason with a
"do not retry" warning so the model does not walk into the same dead end.

The plan is never read from the cache, so it is kept small: goals the
caller names as `collapsed` (finished in an earlier turn, their outcome
already in the history as a goal fold or in the summary) are left out of
the tree, with their sub-goals, and counted on one line instead
(`collapsed_line`). The current turn's goals, and any finished goal whose
outcome the history does not show, stay whole.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator

from cairn.goals.tree import FINISHED, find_goal, iter_goals
from cairn.models.goals import Goal, GoalStatus, GoalTree

PLAN_TITLE = "# Current Plan"
INDENT = "  "
NO_MISSION = "(not set)"
NO_GOALS = '(no goals yet: use the goal tool, e.g. goal(add="first step, second step"))'
NO_FOCUS = 'none (use goal(focus="<id>") to pick one)'
# The progress tree's heading; its marks are explained once in the harness rules.
PROGRESS_LINE = "Progress:"
FOCUS_MARKER = " ← current"
COLLAPSED_LINE = (
    "Earlier turns: {done} goal(s) done, {abandoned} abandoned, not listed"
    " (their outcomes are in the conversation above; do not retry the abandoned ones)."
)

STATUS_MARKERS: dict[GoalStatus, str] = {
    "pending": "[ ]",
    "in_progress": "[~]",
    "completed": "[x]",
    "abandoned": "[-]",
}


def status_marker(status: GoalStatus) -> str:
    """The checkbox-like marker of a status."""
    return STATUS_MARKERS[status]


def outcome_text(status: GoalStatus, summary: str | None) -> str:
    """ " — done: …" / " — abandoned (do not retry): …" for a finished status, else ""."""
    if status == "completed":
        return f" — done: {summary}" if summary else " — done"
    if status == "abandoned":
        return f" — abandoned (do not retry): {summary or 'no reason given'}"
    return ""


def outcome(goal: Goal) -> str:
    """The outcome of a goal (`outcome_text` of its status and summary)."""
    return outcome_text(goal.status, goal.summary)


def goal_line(goal: Goal, current_id: str | None, depth: int) -> str:
    """One goal as a line: indentation, marker, id, description, outcome, focus."""
    focus = FOCUS_MARKER if goal.id == current_id else ""
    return (
        f"{INDENT * depth}{status_marker(goal.status)} {goal.id} {goal.description}"
        f"{outcome(goal)}{focus}"
    )


def _lines(
    goals: list[Goal], current_id: str | None, depth: int, hidden: Collection[str] = ()
) -> list[str]:
    lines: list[str] = []
    for goal in goals:
        if goal.id in hidden:
            continue
        lines.append(goal_line(goal, current_id, depth))
        lines.extend(_lines(goal.children, current_id, depth + 1, hidden))
    return lines


def render_tree(tree: GoalTree, collapsed: Collection[str] = ()) -> str:
    """The compact text tree: one line per goal, children indented (`collapsed` left out)."""
    if not tree.goals:
        return NO_GOALS
    lines = _lines(tree.goals, tree.current_id, 0, frozenset(collapsed))
    return "\n".join(lines) if lines else ""


def _collapsed_roots(goals: list[Goal], hidden: Collection[str]) -> Iterator[Goal]:
    for goal in goals:
        if goal.id in hidden:
            yield goal
        else:
            yield from _collapsed_roots(goal.children, hidden)


def collapsed_line(tree: GoalTree, collapsed: Collection[str]) -> str:
    """One line counting the collapsed goals (each with its sub-goals), or "" for none."""
    roots = [g for g in _collapsed_roots(tree.goals, frozenset(collapsed)) if g.status in FINISHED]
    if not roots:
        return ""
    done = sum(1 for g in roots if g.status == "completed")
    return COLLAPSED_LINE.format(done=done, abandoned=len(roots) - done)


def _current(tree: GoalTree) -> str:
    goal = find_goal(tree, tree.current_id) if tree.current_id is not None else None
    return f"{goal.id} {goal.description}" if goal is not None else NO_FOCUS


def render_plan(tree: GoalTree, collapsed: Collection[str] = ()) -> str:
    """The "Current Plan" block: mission, current goal, progress tree with outcomes.

    `collapsed`: ids of finished goals to count on one line instead of listing
    (see the module docstring); unknown or unfinished ids are ignored.
    """
    hidden = frozenset(
        g.id for g in iter_goals(tree.goals) if g.id in collapsed and g.status in FINISHED
    )
    lines = [
        PLAN_TITLE,
        f"Mission: {tree.mission.strip() or NO_MISSION}",
        f"Current goal: {_current(tree)}",
        PROGRESS_LINE,
    ]
    counted = collapsed_line(tree, hidden)
    listed = render_tree(tree, hidden)
    return "\n".join([*lines, *(t for t in (counted, listed) if t)])
