"""The engine facade (`EngineApi`): what the language server and the CLI call.

One `Engine` serves one workspace: the live `Workspace` the LSP layer
updates, the trace store at `<root>/<settings.trace_dir>`, the sessions
(the active one is created on first use; any other is opened from its trace,
so a new engine on the same workspace resumes a session by id), the model
runtime, the tools, the context builder with the project profile and the
repository map, and compaction. Methods only translate to the parts in
`cairn.agent` and report through the listener. File events from the editor
(`files_changed`) and its open buffers reach the cached file listing, the
repository map and the profile through `FileSync`, before every context build.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from cairn.agent.api import Approver, EditApplier, EngineListener, FixTarget
from cairn.agent.compactor import Compactor
from cairn.agent.contexts import Contexts
from cairn.agent.explore import Explorer, branch_listener
from cairn.agent.goal_ops import change_goal
from cairn.agent.inputs import TurnInputs, referenced_files
from cairn.agent.listener import SafeListener
from cairn.agent.runner import TurnOptions, TurnRunner
from cairn.agent.session import Session
from cairn.agent.tools import default_registry
from cairn.context.builder import ContextBuilder
from cairn.files.ignore import IgnoreRules
from cairn.files.sync import FileSync
from cairn.files.text import content_hash
from cairn.files.workspace import Workspace, uri_to_path
from cairn.llm import ModelRuntime
from cairn.models.events import CompactResult, GoalTreeView, SessionInfo, TurnResult
from cairn.models.manifest import ContextStats, Manifest
from cairn.models.messages import FilePart, Part, TextPart
from cairn.models.profile import ProjectProfile
from cairn.profile.store import ProfileManager
from cairn.repomap.map import RepoMap
from cairn.settings import Mode, Settings
from cairn.trace import TraceStore

logger = logging.getLogger(__name__)

REPOMAP_CACHE = "repomap"
FIX_MESSAGE = "Fix this diagnostic: {message}"


class Engine:
    """Implements `cairn.agent.api.EngineApi` for one workspace."""

    def __init__(
        self,
        folders: list[Path],
        settings: Settings,
        *,
        listener: EngineListener | None = None,
        approver: Approver | None = None,
        apply_edit: EditApplier | None = None,
    ) -> None:
        self.workspace = Workspace(list(folders))
        self.settings = settings
        self.listener = SafeListener(listener)
        self.store = TraceStore(self.workspace.root / settings.trace_dir)
        self._sessions: dict[str, Session] = {}
        self._active: str | None = None
        self.runtime = ModelRuntime(settings, self.workspace.root)
        self.registry = default_registry()
        self.builder = ContextBuilder(self.workspace, settings, profile_provider=self._profile)
        ignore = self.builder.ignore_rules()
        self.profiles = ProfileManager(self.workspace.root, self.store, ignore)
        self.repomap = self._repo_map(ignore)
        self.builder.repomap = self.repomap
        self.files = FileSync(self.workspace, self.builder.ignore_rules, self.repomap)
        self.contexts = Contexts(
            self.workspace, settings, self.builder, self.registry, files=self.files
        )
        self.compactor = Compactor(settings, self.runtime, self.contexts, self.listener)
        self.runner = TurnRunner(
            workspace=self.workspace,
            settings=settings,
            runtime=self.runtime,
            registry=self.registry,
            contexts=self.contexts,
            compactor=self.compactor,
            approver=approver,
            apply_edit=apply_edit,
            allowed_commands=self._allowed_commands,
            ignore=self.builder.ignore_rules,
        )
        self.explorer = Explorer(settings, self._run_branch)
        self.runner.explore = self.explorer.explore

    def _repo_map(self, ignore: IgnoreRules) -> RepoMap | None:
        """The repository map (optional: without it the map section is absent)."""
        try:
            return RepoMap(self.workspace.root, ignore, self.store.cache_dir(REPOMAP_CACHE))
        except (OSError, ValueError) as exc:
            logger.warning("repository map unavailable: %s", exc)
            return None

    def _allowed_commands(self) -> list[str]:
        if self.settings.allowed_commands is not None:
            return list(self.settings.allowed_commands)
        return list(self._profile().test_suites.values())

    def _profile(self) -> ProjectProfile:
        return self.profiles.get()

    # -- sessions ----------------------------------------------------------------

    @property
    def active_session_id(self) -> str:
        if self._active is None:
            session = Session(self.store.create(model=self.settings.model))
            self._sessions[session.id] = session
            self._active = session.id
        return self._active

    def session(self, session_id: str | None = None) -> Session:
        """The session `session_id` (the active one when None), opened from its trace once."""
        wanted = session_id or self.active_session_id
        session = self._sessions.get(wanted)
        if session is None:
            trace = self.store.open(wanted)
            session = self._sessions.get(trace.id) or Session(trace)
            self._sessions[trace.id] = session
        return session

    def sessions(self) -> list[SessionInfo]:
        return [
            SessionInfo(
                session_id=meta.id,
                title=meta.title,
                parent_id=meta.parent_id,
                created_at=meta.created_at.isoformat(),
                updated_at=meta.updated_at.isoformat(),
                turns=len(meta.turns),
            )
            for meta in self.store.list()
        ]

    def fork(self, session_id: str, at_message_id: str | None = None) -> str:
        source = self.session(session_id)
        return self.store.fork(source.id, at_message_id).id

    def delete_session(self, session_id: str) -> None:
        resolved = self.store.resolve_id(session_id)
        session = self._sessions.pop(resolved, None)
        if session is not None:
            if session.background is not None:
                session.background.cancel()
            session.trace.close()
        self.store.delete(resolved)
        if self._active == resolved:
            self._active = None

    # -- turns -------------------------------------------------------------------

    def _inputs(
        self,
        model: str | None = None,
        mode: Mode | None = None,
        message: str = "",
        references: Sequence[str] = (),
        fix: FixTarget | None = None,
    ) -> TurnInputs:
        return TurnInputs(
            model=model or self.settings.model,
            mode=mode or self.settings.mode,
            user_message=message,
            references=list(references),
            fix=fix,
        )

    def _user_parts(self, message: str, references: Sequence[str]) -> list[Part]:
        parts: list[Part] = [TextPart(text=message)]
        for path in referenced_files(self.workspace, list(references)):
            try:
                text = self.workspace.read_text(path)
            except OSError:
                continue
            digest = content_hash(text)
            parts.append(FilePart(path=self.workspace.relative(path), hash=digest))
        return parts

    def _set_mission(self, session: Session, message: str) -> None:
        tree = session.goals()
        if tree.mission or not message.strip():
            return
        tree.mission = message.strip().splitlines()[0]
        session.trace.save_goals(tree)
        self.listener.on_goal_tree_changed(session.goal_view())

    async def turn(
        self,
        message: str,
        *,
        session_id: str | None = None,
        mode: Mode | None = None,
        references: Sequence[str] = (),
        model: str | None = None,
        fix: FixTarget | None = None,
    ) -> TurnResult:
        """Run one turn to its end; cancelling the awaiting task cancels it (and re-raises)."""
        session = self.session(session_id)
        if fix is not None and not message.strip():
            message = FIX_MESSAGE.format(message=fix.diagnostic.message)
        inputs = self._inputs(model, mode, message, references, fix)
        self._set_mission(session, message)
        self.files.refresh_all()
        return await self.runner.run(
            session, inputs, self._user_parts(message, references), self.listener
        )

    async def _run_branch(
        self, branch: Session, inputs: TurnInputs, instruction: str, lane: str
    ) -> TurnResult:
        inputs.user_message = instruction
        options = TurnOptions(lane=lane, read_only=True, compact=False, explore=False)
        parts: list[Part] = [TextPart(text=instruction)]
        return await self.runner.run(branch, inputs, parts, branch_listener(), options)

    # -- context -----------------------------------------------------------------

    def context_stats(self, session_id: str | None = None) -> ContextStats:
        session = self.session(session_id)
        return self.contexts.build(session, self._inputs()).stats

    def context_manifest(
        self, session_id: str | None = None, message: str | None = None, uri: str | None = None
    ) -> Manifest:
        session = self.session(session_id)
        if message is None and uri is None:
            manifests = session.trace.manifests()
            if manifests:
                return manifests[-1]
        inputs = self._inputs(message=message or "")
        if uri is not None:
            inputs.edited.append(self.workspace.resolve(uri_to_path(uri)))
        return self.contexts.build(session, inputs).manifest

    # -- goals -------------------------------------------------------------------

    def goal_tree(self, session_id: str | None = None) -> GoalTreeView:
        return self.session(session_id).goal_view()

    def goal(
        self,
        session_id: str | None = None,
        *,
        add: str | None = None,
        done: str | None = None,
        abandon: str | None = None,
        focus: str | None = None,
    ) -> GoalTreeView:
        session = self.session(session_id)
        fold = change_goal(session, self.listener, add=add, done=done, abandon=abandon, focus=focus)
        if fold is not None:
            if session.turn_lock.locked():
                session.pending_folds.append(fold)
            else:
                self.compactor.fold(session, self._inputs(), fold)
        return session.goal_view()

    # -- files -------------------------------------------------------------------

    def files_changed(self, paths: Sequence[Path]) -> None:
        """Files were created, changed or deleted outside the agent (see `FileSync`)."""
        self.files.files_changed(paths)

    # -- compaction --------------------------------------------------------------

    async def compact(self, session_id: str | None = None) -> CompactResult:
        """Prune and summarise now (waits for a running turn of the session to end)."""
        session = self.session(session_id)
        async with session.turn_lock:
            return await self.compactor.compact_now(session, self._inputs())

    # -- profile and settings ----------------------------------------------------

    def project_profile(self, refresh: bool = False) -> ProjectProfile:
        """The project profile (`.cairn/profile.json`); `refresh` rescans now."""
        if refresh:
            return self.profiles.refresh(force=True)
        self.files.sync()  # a rules file created since the last build changes it
        return self.profiles.get()

    def update_settings(self, settings: Settings) -> None:
        """Use new settings from the next call on (the trace store stays where it is)."""
        self.settings = settings
        for part in (
            self.runtime,
            self.builder,
            self.contexts,
            self.compactor,
            self.runner,
            self.explorer,
        ):
            part.settings = settings

    def warm(self) -> None:
        self.files.refresh_all()

    def close(self) -> None:
        for session in self._sessions.values():
            if session.background is not None and not session.background.done():
                session.background.cancel()
            session.trace.close()
