"""Source: the current plan (goal tree), shown last in every call: the end of the tail (DESIGN §2.2, §2.3)."""

from __future__ import annotations

from cairn.context.blocks import Candidate, Count, section
from cairn.context.priorities import PRIORITY_PLAN
from cairn.goals import render_plan
from cairn.models.goals import GoalTree


def plan_candidate(goals: GoalTree, count: Count) -> Candidate | None:
    """The "Current Plan" section, or None for an empty plan (no mission, no goals)."""
    if not goals.mission and not goals.goals:
        return None
    text = render_plan(goals).strip()
    if not text:
        return None
    return section("plan", PRIORITY_PLAN, None, text, count=count, ref=goals.current_id)
