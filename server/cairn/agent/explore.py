"""`explore(branches, background?)`: parallel read-only sub-agents, one per branch.

Each branch is a sub-agent with its own message list, kept as a child trace
of the parent (`<trace>/branches/explore<k>-<index>/`): it starts from the
`background` text when given, else from a copy of the parent's messages,
then gets the branch's instruction. Branches run concurrently, at most
`settings.explore_concurrency` at once, with read-only tools, no compaction
and no nested explore. Branch `i` reads the scripted model's lane `str(i)`
(DESIGN §2.6 allows "branch index or name"; the index is always a valid,
unique lane). A failing branch does not fail the others; cancelling the
parent cancels every branch. The parent gets one JSON tool result with,
per branch, its conclusion (final text), evidence (files it read), tokens
used and status, and one `SubtaskPart` per branch on that result.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from cairn.agent.inputs import TurnInputs
from cairn.agent.listener import SafeListener
from cairn.agent.session import Session
from cairn.compaction.ledger import files_read
from cairn.errors import InvalidRequestError
from cairn.models.base import utc_now
from cairn.models.events import TurnResult
from cairn.models.messages import SubtaskPart, TextPart
from cairn.settings import Settings

BRANCH_PREFIX = "explore"
MAX_BRANCHES = 8
BACKGROUND_HEADER = "Background from the main agent:"
INSTRUCTION = (
    "You are one branch of a parallel exploration. Investigate only this direction, using the"
    " read-only tools, and end with a short conclusion (what you found, with file references):\n"
)

BranchStatus = Literal["completed", "failed", "cancelled"]
# Runs one branch turn: (branch session, inputs, instruction, lane) → its result.
BranchTurn = Callable[[Session, TurnInputs, str, str], Awaitable[TurnResult]]


@dataclass
class BranchReport:
    branch: str
    index: int
    # The branch's trace name under the parent, then its full id once created.
    trace: str
    status: BranchStatus = "completed"
    conclusion: str = ""
    evidence: list[str] = field(default_factory=list)
    tokens: int = 0
    error: str | None = None
    started_at: str = ""
    ended_at: str = ""


def parse_branches(args: dict[str, Any]) -> tuple[list[str], str | None]:
    """The branch instructions and the background; InvalidRequestError when malformed."""
    branches = args.get("branches")
    if not isinstance(branches, list) or not branches:
        raise InvalidRequestError("explore needs `branches`: a non-empty list of directions")
    if len(branches) > MAX_BRANCHES:
        raise InvalidRequestError(f"explore takes at most {MAX_BRANCHES} branches")
    if not all(isinstance(b, str) and b.strip() for b in branches):
        raise InvalidRequestError("explore: every branch must be a non-empty string")
    background = args.get("background")
    if background is not None and not isinstance(background, str):
        raise InvalidRequestError("explore: `background` must be a string")
    return [b.strip() for b in branches], (background or None)


def next_explore_number(session: Session) -> int:
    prefixes = {name.split("-", 1)[0] for name in session.trace.branches()}
    return len([p for p in prefixes if p.startswith(BRANCH_PREFIX)]) + 1


class Explorer:
    """Runs explore calls for the sessions of one engine."""

    def __init__(self, settings: Settings, run_branch: BranchTurn) -> None:
        self.settings = settings
        self.run_branch = run_branch

    def _seed(self, parent: Session, branch: Session, background: str | None) -> None:
        branch.trace.save_goals(parent.goals())
        if background is not None:
            branch.append("user", [TextPart(text=f"{BACKGROUND_HEADER}\n{background}")])
            return
        for message in parent.messages():
            branch.trace.append_message(message)

    async def _branch(
        self,
        parent: Session,
        inputs: TurnInputs,
        report: BranchReport,
        background: str | None,
        gate: asyncio.Semaphore,
    ) -> BranchReport:
        async with gate:
            report.started_at = utc_now().isoformat()
            branch = Session(parent.trace.branch(report.trace))
            report.trace = branch.id
            branch_inputs = TurnInputs(model=inputs.model, mode=inputs.mode)
            try:
                self._seed(parent, branch, background)
                result = await self.run_branch(
                    branch, branch_inputs, INSTRUCTION + report.branch, str(report.index)
                )
            except asyncio.CancelledError:
                report.status, report.error = "cancelled", "cancelled with the parent turn"
                report.ended_at = utc_now().isoformat()
                raise
            except Exception as exc:  # one failing branch must not fail the others
                report.status, report.error = "failed", f"{type(exc).__name__}: {exc}"
            else:
                report.conclusion = result.text
                report.tokens = result.usage.input_tokens + result.usage.output_tokens
                if result.finish_reason != "stop":
                    report.status = "failed" if result.finish_reason != "cancelled" else "cancelled"
                    report.error = result.error or result.finish_reason
            report.evidence = sorted({f.path for f in files_read(branch.messages())})
            report.ended_at = utc_now().isoformat()
            return report

    async def explore(self, parent: Session, inputs: TurnInputs, args: dict[str, Any]) -> str:
        """Run every branch; the JSON result for the parent (one entry per branch)."""
        branches, background = parse_branches(args)
        number = next_explore_number(parent)
        reports = [
            BranchReport(branch=text, index=i, trace=f"{BRANCH_PREFIX}{number}-{i}")
            for i, text in enumerate(branches)
        ]
        gate = asyncio.Semaphore(self.settings.explore_concurrency)
        tasks = [
            asyncio.create_task(self._branch(parent, inputs, r, background, gate)) for r in reports
        ]
        try:
            await asyncio.gather(*tasks)
        finally:
            for task in tasks:
                task.cancel()
            parent.pending_subtasks.extend(
                SubtaskPart(
                    branch=r.branch,
                    trace_id=r.trace,
                    status=r.status if r.ended_at else "cancelled",
                    conclusion=r.conclusion or r.error,
                )
                for r in reports
            )
        return json.dumps({"branches": [asdict(r) for r in reports]}, ensure_ascii=False)


def branch_listener() -> SafeListener:
    """Branch turns report nothing to the editor (their record is the branch trace)."""
    return SafeListener(None)
