"""The goal tree as an ACP plan, and Cairn's modes as ACP session modes.

ACP's `plan` is a flat list of entries with three statuses, so the tree is
flattened depth first and each entry keeps the goal's hierarchical id in its
content ("2.1 Fix the parser"). Status: pending and in_progress as they are,
completed as completed; an abandoned goal is shown as completed with its
reason ("— abandoned: …"), since the entry list has no such status. Priority
follows depth: top-level goals high, their sub-goals medium, deeper low.

Clients that advertise the unstable `plan` capability get `plan_update`
instead: one markdown plan (`PLAN_ID`) with the mission, the nested tree,
checkboxes, the focused goal in bold and abandoned goals struck through
with their reason.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Literal

from cairn.models.goals import Goal, GoalTree
from cairn.settings import Mode

PlanStatus = Literal["pending", "in_progress", "completed"]
Priority = Literal["high", "medium", "low"]

PLAN_ID = "cairn-goals"
PRIORITY_BY_DEPTH: tuple[Priority, ...] = ("high", "medium", "low")
MARKDOWN_INDENT = "  "

MODES: dict[Mode, tuple[str, str]] = {
    "build": ("Build", "Change files and run commands to carry out the task."),
    "plan": ("Plan", "Read and plan with goals; no edits and no commands."),
    "review": ("Review", "Read the changes and report problems; no edits and no commands."),
}


def plan_status(goal: Goal) -> PlanStatus:
    """ACP's status of a goal (abandoned goals are finished: completed)."""
    if goal.status == "abandoned":
        return "completed"
    return goal.status


def entry_content(goal: Goal) -> str:
    text = f"{goal.id} {goal.description}"
    if goal.status == "abandoned":
        text += f" — abandoned: {goal.summary or 'no reason given'}"
    return text


def _walk(goals: list[Goal], depth: int = 0) -> Iterator[tuple[Goal, int]]:
    for goal in goals:
        yield goal, depth
        yield from _walk(goal.children, depth + 1)


def plan_entries(tree: GoalTree) -> list[dict[str, Any]]:
    """The plan entries of the whole tree, depth first."""
    return [
        {
            "content": entry_content(goal),
            "priority": PRIORITY_BY_DEPTH[min(depth, len(PRIORITY_BY_DEPTH) - 1)],
            "status": plan_status(goal),
        }
        for goal, depth in _walk(tree.goals)
    ]


def _markdown_line(goal: Goal, depth: int, current: str | None) -> str:
    box = "[x]" if goal.status in ("completed", "abandoned") else "[ ]"
    label = f"{goal.id} {goal.description}"
    if goal.status == "abandoned":
        label = f"~~{label}~~ — abandoned: {goal.summary or 'no reason given'}"
    elif goal.id == current:
        label = f"**{label}** (in progress)"
    elif goal.status == "completed" and goal.summary:
        label = f"{label} — {goal.summary}"
    return f"{MARKDOWN_INDENT * depth}- {box} {label}"


def plan_markdown(tree: GoalTree) -> str:
    """The tree as a Markdown checklist under the mission."""
    lines = [f"**Mission:** {tree.mission.strip()}", ""] if tree.mission.strip() else []
    lines += [_markdown_line(goal, depth, tree.current_id) for goal, depth in _walk(tree.goals)]
    return "\n".join(lines) if tree.goals else "\n".join([*lines, "_No goals yet._"])


def plan_update(tree: GoalTree, markdown: bool) -> dict[str, Any]:
    """The `session/update` payload for the tree: `plan`, or `plan_update` for clients with it."""
    if markdown:
        return {
            "sessionUpdate": "plan_update",
            "plan": {"type": "markdown", "planId": PLAN_ID, "content": plan_markdown(tree)},
        }
    return {"sessionUpdate": "plan", "entries": plan_entries(tree)}


def modes_state(current: Mode) -> dict[str, Any]:
    """`modes` of a session/new (load, resume, fork) answer."""
    return {
        "currentModeId": current,
        "availableModes": [
            {"id": mode, "name": name, "description": description}
            for mode, (name, description) in MODES.items()
        ],
    }
