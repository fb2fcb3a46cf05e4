"""The goal tree: the plan the agent and the user edit with four verbs, and its renderings.

Pure: no I/O. `apply_verb` / `apply_goal` return new trees; the renderings produce the
"Current Plan" prompt block, the compact tree for the editor, and the
combined goal tree + messages view of `cairn trace show`.
"""

from cairn.goals.render import render_plan, render_tree
from cairn.goals.tree import (
    GOAL_VERBS,
    GoalVerb,
    apply_goal,
    apply_verb,
    find_goal,
    goal_subtree_ids,
    iter_goals,
    one_verb,
)
from cairn.goals.view import render_trace_view, trace_view_data

__all__ = [
    "GOAL_VERBS",
    "GoalVerb",
    "apply_goal",
    "apply_verb",
    "find_goal",
    "goal_subtree_ids",
    "iter_goals",
    "one_verb",
    "render_plan",
    "render_trace_view",
    "render_tree",
    "trace_view_data",
]
