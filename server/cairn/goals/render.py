"""Text renderings of the goal tree: the "Current Plan" prompt block and a compact tree.

`render_plan` is injected into every model call as the last thing the model
reads (the end of the volatile tail, after the history; DESIGN §2.3); `render_tree` is the short form sent to the editor as `rendered`.
Finished goals show their summary; abandoned goals show their reason with a
"do not retry" warning so the model does not walk into the same dead end.
"""

from __future__ import annotations

from cairn.goals.tree import find_goal
from cairn.models.goals import Goal, GoalStatus, GoalTree

PLAN_TITLE = "# Current Plan"
INDENT = "  "
NO_MISSION = "(not set)"
NO_GOALS = '(no goals yet: use the goal tool, e.g. goal(add="first step, second step"))'
NO_FOCUS = 'none (use goal(focus="<id>") to pick one)'
FOCUS_MARKER = " ← current"

STATUS_MARKERS: dict[GoalStatus, str] = {
    "pending": "[ ]",
    "in_progress": "[~]",
    "completed": "[x]",
    "abandoned": "[-]",
}


def status_marker(status: GoalStatus) -> str:
    """The checkbox-like marker of a status."""
    return STATUS_MARKERS[status]


def outcome(goal: Goal) -> str:
    """ " — done: …" / " — abandoned (do not retry): …" for finished goals, else ""."""
    if goal.status == "completed":
        return f" — done: {goal.summary}" if goal.summary else " — done"
    if goal.status == "abandoned":
        return f" — abandoned (do not retry): {goal.summary or 'no reason given'}"
    return ""


def goal_line(goal: Goal, current_id: str | None, depth: int) -> str:
    """One goal as a line: indentation, marker, id, description, outcome, focus."""
    focus = FOCUS_MARKER if goal.id == current_id else ""
    return (
        f"{INDENT * depth}{status_marker(goal.status)} {goal.id} {goal.description}"
        f"{outcome(goal)}{focus}"
    )


def _lines(goals: list[Goal], current_id: str | None, depth: int) -> list[str]:
    lines: list[str] = []
    for goal in goals:
        lines.append(goal_line(goal, current_id, depth))
        lines.extend(_lines(goal.children, current_id, depth + 1))
    return lines


def render_tree(tree: GoalTree) -> str:
    """The compact text tree: one line per goal, children indented."""
    if not tree.goals:
        return NO_GOALS
    return "\n".join(_lines(tree.goals, tree.current_id, 0))


def _current(tree: GoalTree) -> str:
    goal = find_goal(tree, tree.current_id) if tree.current_id is not None else None
    return f"{goal.id} {goal.description}" if goal is not None else NO_FOCUS


def render_plan(tree: GoalTree) -> str:
    """The "Current Plan" block: mission, current goal, progress tree with outcomes."""
    return "\n".join(
        [
            PLAN_TITLE,
            f"Mission: {tree.mission.strip() or NO_MISSION}",
            f"Current goal: {_current(tree)}",
            "Progress ([ ] pending, [~] started, [x] done, [-] abandoned; ← the current goal):",
            render_tree(tree),
        ]
    )
