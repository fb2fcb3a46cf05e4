"""Running one turn in its scope (the main agent's, or an explore branch's).

`TurnRunner.run(scope, user_parts)` takes the session's turn lock, makes
the session's scripted-model cursor the active one (unless a parent turn's
already is: explore branches share their parent session's cursor),
snapshots the workspace, records the user message (with the focused goal;
the session's first one sets its mission), builds the turn's `ToolContext`
(the scope, the edit capture, the editor's callbacks, the command
allowlist: the configured one — else the profile's test commands, in a
trusted workspace only — plus what the user allowed for the session)
and runs the `TurnLoop`. Explore branches come through the same
path with a `branch_scope`: read-only tools and no edit capture, their own
model lane, no compaction. The runner knows nothing of explore: a scope
carries the explorer when its turn may explore.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from cairn.agent.api import Approver, CommandRunner, EditApplier, TextReader
from cairn.agent.compaction.compactor import Compactor
from cairn.agent.ids import turn_id
from cairn.agent.scope.contexts import Contexts
from cairn.agent.scope.turn_scope import TurnScope
from cairn.agent.sessions.goal_ops import set_mission
from cairn.agent.sessions.session import Session
from cairn.agent.sessions.snapshot import TurnPatches
from cairn.agent.tools import ToolContext, ToolRegistry
from cairn.agent.tools.processes import ProcessGroups
from cairn.agent.turn.loop import TurnLoop, new_turn, run_loop
from cairn.agent.turn.recorder import EditCapture
from cairn.agent.turn.tooling import ToolRunner
from cairn.files.ignore import IgnoreRules
from cairn.files.workspace import Workspace
from cairn.llm import ModelRuntime
from cairn.llm.script import ACTIVE_CURSOR
from cairn.models.events import TurnResult
from cairn.models.messages import Part
from cairn.models.profile import ProjectProfile
from cairn.settings import Settings, SettingsRef


def allowed_commands(
    settings: Settings, profile: ProjectProfile, session_allowed: Sequence[str] = ()
) -> list[str]:
    """Commands run without asking: the configured list (else, in a trusted workspace, the
    profile's test commands, which its AGENTS.md may name), plus those the user allowed for
    the session."""
    if settings.allowed_commands is not None:
        base = list(settings.allowed_commands)
    elif settings.workspace_trusted:
        base = list(profile.test_suites.values())
    else:
        base = []
    return base + [command for command in session_allowed if command not in base]


@dataclass(frozen=True)
class EditorSide:
    """The engine's callbacks into the editor (each None when there is no such editor part)."""

    approver: Approver | None = None
    apply_edit: EditApplier | None = None
    read_text: TextReader | None = None
    run_command: CommandRunner | None = None


@contextmanager
def session_cursor(session: Session) -> Iterator[None]:
    """Make `session`'s scripted-model cursor the active one, unless one already is."""
    if ACTIVE_CURSOR.get() is not None:
        yield
        return
    token = ACTIVE_CURSOR.set(session.script_cursor)
    try:
        yield
    finally:
        ACTIVE_CURSOR.reset(token)


class TurnRunner:
    """Runs the turns of one engine's sessions."""

    def __init__(
        self,
        *,
        workspace: Workspace,
        config: SettingsRef,
        runtime: ModelRuntime,
        registry: ToolRegistry,
        contexts: Contexts,
        compactor: Compactor,
        ignore: IgnoreRules,
        profile: Callable[[], ProjectProfile],
        editor: EditorSide,
        processes: ProcessGroups,
        patches: TurnPatches,
    ) -> None:
        self.workspace = workspace
        self.config = config
        self.runtime = runtime
        self.registry = registry
        self.contexts = contexts
        self.compactor = compactor
        self.ignore = ignore
        self.profile = profile
        self.editor = editor
        self.processes = processes
        self.patches = patches

    def _tool_context(self, scope: TurnScope, capture: EditCapture) -> ToolContext:
        editor = self.editor
        session_allowed = scope.session.meta().allowed_commands
        return ToolContext(
            workspace=self.workspace,
            config=self.config,
            trace=scope.session.trace,
            ignore=self.ignore,
            approve=editor.approver,
            apply_edit=None if scope.read_only else capture,
            read_editor=editor.read_text,
            run_in_editor=None if scope.read_only else editor.run_command,
            scope=scope,
            allowed_commands=allowed_commands(self.config.current, self.profile(), session_allowed),
            interactive=editor.approver is not None,
            processes=self.processes,
        )

    async def run(self, scope: TurnScope, user_parts: Sequence[Part]) -> TurnResult:
        """Run one turn to its end (see `cairn.agent.turn.loop`)."""
        session = scope.session
        async with session.turn_lock:
            session.current_turn_id = turn_id()
            try:
                with session_cursor(session):
                    return await self._run_locked(scope, user_parts)
            finally:
                session.current_turn_id = None

    async def _run_locked(self, scope: TurnScope, user_parts: Sequence[Part]) -> TurnResult:
        session = scope.session
        snapshot = await self.patches.start(scope.read_only)
        for notice in self.patches.notices():
            scope.listener.on_log(notice)
        user = session.append("user", user_parts)
        set_mission(session, scope.listener, user)
        turn = new_turn(session, user, snapshot, scope.inputs.model, scope.inputs.mode)
        session.start_turn(turn, scope.inputs.user_message, self.config.current.model)
        if turn.switched_from is not None:
            scope.listener.on_log(f"model: {turn.model} (this session used {turn.switched_from})")
        capture = EditCapture(self.workspace, self.editor.apply_edit, self.editor.read_text)
        tools = ToolRunner(
            scope=scope,
            ctx=self._tool_context(scope, capture),
            capture=capture,
            patches=self.patches,
        )
        loop = TurnLoop(
            scope=scope,
            runtime=self.runtime,
            contexts=self.contexts,
            compactor=self.compactor if scope.compact else None,
            tools=tools,
            step_limit=self.config.current.step_limit,
            deadline_s=self.config.current.turn_deadline_s,
            patches=self.patches,
        )

        def on_cancel() -> None:
            task = session.background
            if task is not None:
                task.cancel()
            session.background = None

        return await run_loop(loop, turn, on_cancel)
