"""`goal(add?, done?, abandon?, focus?)`: change the session's plan, one verb per call.

The engine's goal handler applies the verb (`cairn.goals.apply_goal`),
saves the tree, notifies the editor and returns the rendered plan, which is
the tool's output. A verb that cannot apply (`GoalError`) is a tool error.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field, model_validator

from cairn.agent.tools.base import Tool, ToolArgs, ToolContext, ToolFailure, ToolOutcome

GOAL_VERBS = ("add", "done", "abandon", "focus")


class GoalArgs(ToolArgs):
    add: str | None = Field(
        default=None,
        description="New goals, comma-separated, added under the focused goal (or top level).",
    )
    done: str | None = Field(
        default=None, description="Summary of what the focused goal achieved; marks it completed."
    )
    abandon: str | None = Field(
        default=None,
        description="Why the focused goal is a dead end; marks it abandoned (kept in the plan).",
    )
    focus: str | None = Field(
        default=None, description="Id of the goal to work on next, e.g. '2.1'."
    )

    @model_validator(mode="after")
    def _one_verb(self) -> GoalArgs:
        given = [verb for verb in GOAL_VERBS if getattr(self, verb) is not None]
        if len(given) != 1:
            listed = ", ".join(given) if given else "none"
            raise ValueError(f"give exactly one of add, done, abandon, focus (got: {listed})")
        return self


class Goal(Tool[GoalArgs]):
    name: ClassVar[str] = "goal"
    description: ClassVar[str] = (
        "Maintain the plan (a goal tree), one verb per call: add (comma-separated sub-goals of "
        "the focused goal), done (summary of the focused goal), abandon (reason it is a dead "
        "end), focus (goal id). Returns the updated plan."
    )
    args_model = GoalArgs

    async def run(self, args: GoalArgs, ctx: ToolContext) -> ToolOutcome:
        if ctx.goal_handler is None:
            raise ToolFailure("the goal tool is not available here")
        verbs = args.model_dump(exclude_none=True)
        rendered = ctx.goal_handler(verbs)
        return ToolOutcome(output=rendered, data={"goal": verbs})
