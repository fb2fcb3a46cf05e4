"""`explore(branches, background?)`: investigate alternatives in parallel sub-agents.

`ExploreArgs` checks the call once (1 to `MAX_EXPLORE_BRANCHES` non-empty
branches, stripped; an empty `background` counts as none). The tool hands
the typed arguments and its turn's scope to the turn's explorer
(`cairn.agent.turn.explore`), which runs one read-only sub-agent per branch
(concurrently, up to `explore_concurrency`), each seeded by `background` or
the parent's messages, and returns their conclusions as one JSON text, the
tool's output. Branches cannot explore further (their scope has no explorer).
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field, field_validator

from cairn.agent.tools.base import Tool, ToolArgs, ToolContext, ToolFailure, ToolOutcome

MAX_EXPLORE_BRANCHES = 8


class ExploreArgs(ToolArgs):
    branches: list[str] = Field(
        min_length=1,
        max_length=MAX_EXPLORE_BRANCHES,
        description="One task per branch, e.g. ['check the parser for X', 'look for Y in tests'].",
    )
    background: str | None = Field(
        default=None,
        description="What every branch needs to know. Default: branches see this conversation.",
    )

    @field_validator("branches")
    @classmethod
    def _non_empty(cls, branches: list[str]) -> list[str]:
        if any(not branch.strip() for branch in branches):
            raise ValueError("every branch needs a task")
        return [branch.strip() for branch in branches]

    @field_validator("background")
    @classmethod
    def _given(cls, background: str | None) -> str | None:
        return background or None


class Explore(Tool[ExploreArgs]):
    name: ClassVar[str] = "explore"
    description: ClassVar[str] = (
        "Explore alternatives in parallel: each branch is a read-only sub-agent with its own "
        "task; their conclusions come back together. Use it to compare options or search "
        "several places at once."
    )
    args_model = ExploreArgs

    async def run(self, args: ExploreArgs, ctx: ToolContext) -> ToolOutcome:
        explore = None if ctx.scope is None else ctx.scope.explore
        if explore is None:
            raise ToolFailure("explore is not available here (branches cannot explore)")
        conclusions = await explore(args)
        return ToolOutcome(output=conclusions, data={"branches": len(args.branches)})
