"""`explore(branches, background?)`: parallel read-only sub-agents, one per branch.

`Explorer.explore(scope, args)` is what the `explore` tool calls with its
checked `ExploreArgs` and the parent turn's scope. Each branch is a
sub-agent with its own message list, kept as a child trace of the parent
(`<trace>/branches/explore<k>-<index>/`), and its request starts with the
parent's cached prefix (DESIGN §2.3), so the provider reads that prefix from
the cache the parent's calls wrote instead of writing it again per branch:
- the same tools array: the parent's offer (`cairn.agent.scope.branch`),
  read-only enforced when a call arrives, not by offering fewer tools;
- the same system message and the parent's frozen preamble, selection memo
  and calibration (`SessionCache.inherit`);
- without a `background`, the parent's messages, then the explore call's
  result in the branch ("you are branch i") and the branch's instruction: the
  first messages of its first request are the parent's last request but its
  tail, byte for byte; with a `background`, the background and the
  instruction right after the preamble (a recorded break: "explore branch:
  background").
Branches run through the same `TurnRunner` as the main agent, concurrently,
at most `settings.explore_concurrency` at once, each in a `branch_scope`: no
compaction, no nested explore. Branch `i` reads the scripted model's lane by
any of its names (DESIGN §2.6: "branch index or name"): its index `str(i)`,
its trace name (`explore<k>-<i>`) or its text. A failing
branch does not fail the others; cancelling the parent cancels every branch.
The parent gets one JSON tool result with, per branch, its conclusion (final
text), evidence (files it read), tokens used and status, and one
`SubtaskPart` per branch on that result. Branches run on the turn's explore
model (`explore_model`, else the main model; another model cannot read the
parent's cache, and its manifest says "model switch").
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Literal

from cairn.agent.scope.branch import branch_offer
from cairn.agent.scope.inputs import TurnInputs
from cairn.agent.scope.turn_scope import TurnScope, branch_scope
from cairn.agent.sessions.session import Session
from cairn.agent.tools.explore import Explore, ExploreArgs
from cairn.agent.turn.runner import TurnRunner
from cairn.compaction.ledger import files_read
from cairn.models.base import utc_now
from cairn.models.events import TurnResult
from cairn.models.messages import (
    Message,
    Part,
    SubtaskPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from cairn.settings import SettingsRef

BRANCH_PREFIX = "explore"
BACKGROUND_HEADER = "Background from the main agent:"
INSTRUCTION = (
    "You are one branch of a parallel exploration. Investigate only this direction, using the"
    " read-only tools, and end with a short conclusion (what you found, with file references):\n"
)
# The explore call's result as a branch records it (its task is the next message).
BRANCH_STARTED = "[explore branch {place}: this conversation continues read-only; its task follows]"
# The break a branch with a background records: it does not repeat the parent's history.
BACKGROUND_BREAK = "explore branch: background instead of the conversation"

BranchStatus = Literal["completed", "failed", "cancelled"]


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


def running_explore(messages: Sequence[Message]) -> tuple[Message, ToolCallPart] | None:
    """The explore call running now: the first of the last assistant message's explore calls
    with no recorded result (a reply's calls run one after another, each result recorded when
    it ends)."""
    answered = {p.call_id for m in messages for p in m.parts if isinstance(p, ToolResultPart)}
    last = next((m for m in reversed(messages) if m.role == "assistant"), None)
    if last is None:
        return None
    calls = [p for p in last.parts if isinstance(p, ToolCallPart) and p.name == Explore.name]
    waiting = [c for c in calls if c.call_id not in answered]
    return (last, waiting[0]) if waiting else None


def next_explore_number(session: Session) -> int:
    prefixes = {name.split("-", 1)[0] for name in session.trace.branches()}
    return len([p for p in prefixes if p.startswith(BRANCH_PREFIX)]) + 1


class Explorer:
    """Runs explore calls for the sessions of one engine."""

    def __init__(self, config: SettingsRef, runner: TurnRunner) -> None:
        self.config = config
        self.runner = runner

    @staticmethod
    def _seed(parent: Session, branch: Session, background: str | None, place: str) -> int:
        """The branch's first messages and cache state (see the module docstring), then its
        plan: the parent's tree, recorded so the branch's own records rebuild it. `place` is
        "i of n"; returns how many messages the seed recorded."""
        if background is not None:
            branch.append("user", [TextPart(text=f"{BACKGROUND_HEADER}\n{background}")])
            branch.cache.inherit(parent.cache, BACKGROUND_BREAK)
        else:
            messages = parent.messages()
            for message in messages:
                branch.trace.append_message(message)
            call = running_explore(messages)
            if call is not None:
                text = BRANCH_STARTED.format(place=place)
                result = ToolResultPart(call_id=call[1].call_id, name=call[1].name, output=text)
                branch.append("tool", [result], goal_id=call[0].goal_id, use_focus=False)
            branch.cache.inherit(parent.cache)
        tree = parent.goals()
        branch.record_goal_seed(tree)
        branch.trace.save_goals(tree)
        return len(branch.messages())

    async def _run_branch(
        self, branch: Session, parent: TurnScope, report: BranchReport
    ) -> TurnResult:
        """One branch's turn, on the explore model, the parent's mode and MCP servers, with its
        instruction."""
        instruction = INSTRUCTION + report.branch
        given = parent.inputs
        inputs = TurnInputs(
            model=given.model_for("explore"),
            mode=given.mode,
            user_message=instruction,
            parent_model=given.main_model,
        )
        offer = branch_offer(parent.offer)
        lane = (str(report.index), report.trace.rpartition("/")[2], report.branch)
        scope = branch_scope(branch, inputs, lane, offer, parent.session.id)
        parts: list[Part] = [TextPart(text=instruction)]
        return await self.runner.run(scope, parts)

    async def _branch(
        self,
        parent: TurnScope,
        report: BranchReport,
        background: str | None,
        gate: asyncio.Semaphore,
        count: int,
    ) -> BranchReport:
        async with gate:
            report.started_at = utc_now().isoformat()
            branch = Session(parent.session.trace.branch(report.trace))
            report.trace = branch.id
            seeded = 0
            try:
                place = f"{report.index + 1} of {count}"
                seeded = self._seed(parent.session, branch, background, place)
                result = await self._run_branch(branch, parent, report)
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
            own = branch.messages()[seeded:]
            report.evidence = sorted({f.path for f in files_read(own)})
            report.ended_at = utc_now().isoformat()
            return report

    async def explore(self, parent: TurnScope, args: ExploreArgs) -> str:
        """Run every branch; the JSON result for the parent (one entry per branch)."""
        number = next_explore_number(parent.session)
        reports = [
            BranchReport(branch=text, index=i, trace=f"{BRANCH_PREFIX}{number}-{i}")
            for i, text in enumerate(args.branches)
        ]
        gate = asyncio.Semaphore(self.config.current.explore_concurrency)
        tasks = [
            asyncio.create_task(self._branch(parent, r, args.background, gate, len(reports)))
            for r in reports
        ]
        try:
            await asyncio.gather(*tasks)
        finally:
            for task in tasks:
                task.cancel()
            parent.session.pending_subtasks.extend(
                SubtaskPart(
                    branch=r.branch,
                    trace_id=r.trace,
                    status=r.status if r.ended_at else "cancelled",
                    conclusion=r.conclusion or r.error,
                )
                for r in reports
            )
        return json.dumps({"branches": [asdict(r) for r in reports]}, ensure_ascii=False)
