"""Setting up and running one turn of a session (the main agent's, or an explore branch's).

`TurnRunner.run` takes the session's turn lock, snapshots the workspace,
records the user message (with the focused goal), builds the turn's
`ToolContext` (goal and explore handlers, the edit capture, the command
allowlist) and runs the `TurnLoop`. Explore branches use the same path with
read-only tools, their own model lane, no compaction and no nested explore.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from cairn.agent.api import Approver, EditApplier
from cairn.agent.compactor import Compactor
from cairn.agent.contexts import Contexts
from cairn.agent.goal_ops import change_goal, describe_change, goal_arguments, tool_reply
from cairn.agent.ids import turn_id
from cairn.agent.inputs import TurnInputs
from cairn.agent.listener import SafeListener
from cairn.agent.recorder import EditCapture
from cairn.agent.session import Session
from cairn.agent.snapshot import EditLog, take_snapshot
from cairn.agent.tooling import ToolRunner
from cairn.agent.tools import READ_ONLY_TOOLS, ToolContext, ToolRegistry
from cairn.agent.turn import TurnLoop, new_turn, run_loop
from cairn.files.ignore import IgnoreRules
from cairn.files.workspace import Workspace
from cairn.llm import ModelRuntime
from cairn.models.events import TurnResult
from cairn.models.messages import Part
from cairn.settings import Settings

# Explores a session: (session, turn inputs, tool arguments) → the tool's result text.
ExploreFn = Callable[[Session, TurnInputs, dict[str, Any]], Awaitable[str]]


@dataclass(frozen=True)
class TurnOptions:
    """How a turn runs: the main agent's defaults, or an explore branch's."""

    lane: str | None = None
    read_only: bool = False
    compact: bool = True
    explore: bool = True


MAIN_TURN = TurnOptions()


@dataclass
class TurnRunner:
    """Everything a turn needs from the engine."""

    workspace: Workspace
    settings: Settings
    runtime: ModelRuntime
    registry: ToolRegistry
    contexts: Contexts
    compactor: Compactor
    approver: Approver | None
    apply_edit: EditApplier | None
    allowed_commands: Callable[[], list[str]]
    ignore: Callable[[], IgnoreRules]
    explore: ExploreFn | None = None

    def _goal_handler(
        self, session: Session, listener: SafeListener
    ) -> Callable[[dict[str, Any]], str]:
        def handle(args: dict[str, Any]) -> str:
            verbs = goal_arguments(args)
            before = session.goals()
            fold = change_goal(session, listener, **verbs)
            if fold is not None:
                session.pending_folds.append(fold)
            return tool_reply(session, describe_change(before, session.goals(), verbs))

        return handle

    def _tool_context(
        self,
        session: Session,
        inputs: TurnInputs,
        options: TurnOptions,
        capture: EditCapture,
        listener: SafeListener,
    ) -> ToolContext:
        explore = self.explore

        async def explore_handler(args: dict[str, Any]) -> str:
            assert explore is not None
            return await explore(session, inputs, args)

        return ToolContext(
            workspace=self.workspace,
            settings=self.settings,
            trace=session.trace,
            ignore=self.ignore(),
            approve=self.approver,
            apply_edit=None if options.read_only else capture,
            goal_handler=None if options.read_only else self._goal_handler(session, listener),
            explore_handler=explore_handler if options.explore and explore else None,
            allowed_commands=self.allowed_commands(),
            interactive=self.approver is not None,
        )

    def _allowed(self, inputs: TurnInputs, options: TurnOptions) -> list[str]:
        names = self.contexts.tool_names(inputs)
        if options.read_only:
            names = [n for n in names if n in READ_ONLY_TOOLS]
        if not options.explore:
            names = [n for n in names if n != "explore"]
        return names

    async def run(
        self,
        session: Session,
        inputs: TurnInputs,
        user_parts: Sequence[Part],
        listener: SafeListener,
        options: TurnOptions = MAIN_TURN,
    ) -> TurnResult:
        """Run one turn to its end (see `cairn.agent.turn`)."""
        async with session.turn_lock:
            session.current_turn_id = turn_id()
            try:
                return await self._run_locked(session, inputs, user_parts, listener, options)
            finally:
                session.current_turn_id = None

    async def _run_locked(
        self,
        session: Session,
        inputs: TurnInputs,
        user_parts: Sequence[Part],
        listener: SafeListener,
        options: TurnOptions,
    ) -> TurnResult:
        snapshot = await asyncio.to_thread(take_snapshot, self.workspace.root)
        user = session.append("user", user_parts)
        turn = new_turn(session, user, snapshot)
        session.start_turn(turn, inputs.user_message)
        capture = EditCapture(self.workspace, self.apply_edit)
        edit_log = EditLog()
        allowed = self._allowed(inputs, options)
        inputs.tools = allowed
        tools = ToolRunner(
            session=session,
            registry=self.registry,
            ctx=self._tool_context(session, inputs, options, capture, listener),
            capture=capture,
            edit_log=edit_log,
            allowed=allowed,
            mode=inputs.mode,
            emit=listener.on_turn_event,
            edited=inputs.edited,
        )
        loop = TurnLoop(
            session=session,
            inputs=inputs,
            runtime=self.runtime,
            contexts=self.contexts,
            compactor=self.compactor if options.compact else None,
            tools=tools,
            edit_log=edit_log,
            listener=listener,
            step_limit=self.settings.step_limit,
            agent=options.lane,
        )

        def on_cancel() -> None:
            task = session.background
            if task is not None:
                task.cancel()
            session.background = None

        return await run_loop(loop, turn, on_cancel)
