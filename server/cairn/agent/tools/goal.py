"""`goal(add?, done?, abandon?, focus?)`: change the session's plan, one verb per call.

`GoalArgs` checks the call once (exactly one verb, strings only, no unknown
key: the registry turns a failure into the tool error the model reads). The
tool then applies the verb to its turn's session (`cairn.agent.sessions.goal_ops`:
saved, the editor notified, a finished goal's fold queued for the end of the
step) and answers with the change and the plan. A verb that cannot apply
(`GoalError`: no focused goal, unknown id) is a tool error too.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field, PrivateAttr, model_validator

from cairn.agent.sessions.goal_ops import goal_call
from cairn.agent.tools.base import Tool, ToolArgs, ToolContext, ToolFailure, ToolOutcome
from cairn.errors import GoalError
from cairn.goals import GoalVerb, one_verb


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
    _change: tuple[GoalVerb, str] = PrivateAttr()

    @model_validator(mode="after")
    def _one_verb(self) -> GoalArgs:
        try:
            self._change = one_verb(self.model_dump())
        except GoalError as error:
            raise ValueError(str(error)) from None
        return self

    @property
    def change(self) -> tuple[GoalVerb, str]:
        """The one verb given, and its text."""
        return self._change


class Goal(Tool[GoalArgs]):
    name: ClassVar[str] = "goal"
    description: ClassVar[str] = (
        "Maintain the plan (a goal tree), one verb per call: add (comma-separated sub-goals of "
        "the focused goal), done (summary of the focused goal), abandon (reason it is a dead "
        "end), focus (goal id). Returns the updated plan."
    )
    args_model = GoalArgs

    async def run(self, args: GoalArgs, ctx: ToolContext) -> ToolOutcome:
        scope = ctx.scope
        if scope is None or scope.read_only:
            raise ToolFailure("the goal tool is not available here")
        verb, text = args.change
        rendered = goal_call(scope.session, scope.listener, verb, text)
        return ToolOutcome(output=rendered, data={"goal": {verb: text}})
