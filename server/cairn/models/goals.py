"""Goal tree data: the plan the agent and the user edit with four verbs."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from cairn.models.base import WireModel

GoalStatus = Literal["pending", "in_progress", "completed", "abandoned"]
# The four verbs of the `goal` tool (and of the editor's `cairn/goal`).
GoalVerb = Literal["add", "done", "abandon", "focus"]


class Goal(WireModel):
    """One goal. `summary` holds the done-summary, or the abandon reason."""

    id: str
    description: str
    status: GoalStatus = "pending"
    summary: str | None = None
    children: list[Goal] = Field(default_factory=list)


class GoalTree(WireModel):
    """The whole plan: a mission, the focused goal and the top-level goals."""

    mission: str = ""
    current_id: str | None = None
    goals: list[Goal] = Field(default_factory=list)
