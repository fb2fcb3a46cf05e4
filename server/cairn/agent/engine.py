"""The engine facade (`EngineApi`): what the language server and the CLI call.

One `Engine` serves one workspace. It is built in dependency order, nothing
patched in afterwards: the context side (`cairn.agent.parts`: the live
`Workspace` the LSP layer updates, the trace store at
`<root>/<settings.trace_dir>`, the profile, the repository map, the context
builder, the tools), then the model runtime, compaction, the turn runner
and the explorer that runs branch turns through it. All of them read one
`SettingsRef`, so `update_settings` is one assignment. Sessions: the active
one is created on first use (or by `new_session`), in memory until its first
record; any other is opened from its trace, so a new engine on the same
workspace resumes a session by id, on the session's model
(`session_model`); `cairn.agent.sessions.book` keeps them. A turn that cannot call its model (none configured, the
key variable unset, a scripted model without its script) fails before
anything is recorded. Each turn runs in its
own `TurnScope`; work on a session between turns (a dry run, a goal the
user finished, a forced compaction) gets one too. Methods only translate to
the parts in `cairn.agent` and report through the listener. File events
from the editor (`files_changed`) and its open buffers reach the cached file
listing, the repository map and the profile through `FileSync`, before
every context build. MCP servers (`cairn.mcp.McpHub`: those of the settings,
and those a front end adds for a session) start when a turn first needs
their tools, or the editor first asks for the context (`context_manifest`,
`context_stats`: so the meter counts their schemas); each turn's `ToolOffer`
is made from their catalog, and other work between turns sees the servers as
they are, starting none (`cairn.agent.engine_mcp`); their questions to the
user go to the front end's `elicitor` (`cairn.mcp.elicitation`). `aclose`
stops them; `close` asks them to stop.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from pathlib import Path

from cairn.agent.api import (
    Approver,
    CommandRunner,
    EditApplier,
    EngineListener,
    FixTarget,
    TextReader,
)
from cairn.agent.compaction.compactor import Compactor
from cairn.agent.engine_goals import EngineGoals
from cairn.agent.engine_mcp import EngineMcp
from cairn.agent.listener import SafeListener
from cairn.agent.meter import Meter
from cairn.agent.parts import context_parts
from cairn.agent.progress import MapProgress, current_session, started_catalog
from cairn.agent.scope.inputs import TurnInputs, turn_inputs, user_parts
from cairn.agent.scope.offer import make_offer
from cairn.agent.scope.turn_scope import TurnScope, main_scope
from cairn.agent.sessions.book import SessionBook
from cairn.agent.sessions.restore import restore_turn
from cairn.agent.sessions.session import Session, session_model
from cairn.agent.sessions.snapshot import TurnPatches, workspace_snapshots
from cairn.agent.sessions.transcript import build_transcript
from cairn.agent.tools.processes import ProcessGroups
from cairn.agent.turn.explore import Explorer
from cairn.agent.turn.runner import EditorSide, TurnRunner, session_cursor
from cairn.errors import InvalidRequestError
from cairn.files.workspace import uri_to_path
from cairn.llm import ModelRuntime, Timing
from cairn.llm.catalog import model_catalog
from cairn.llm.preflight import check_model
from cairn.mcp import McpCatalog, McpHub
from cairn.mcp.elicitation import Elicitor
from cairn.models.catalog import ModelCatalog
from cairn.models.events import (
    CompactResult,
    RestoreResult,
    SessionInfo,
    TurnResult,
)
from cairn.models.manifest import ContextStats, Manifest
from cairn.models.messages import Message
from cairn.models.profile import ProjectProfile
from cairn.models.session import SessionMeta
from cairn.models.transcript import Transcript
from cairn.settings import Mode, Settings, SettingsRef

FIX_MESSAGE = "Fix this diagnostic: {message}"


class Engine(EngineGoals, EngineMcp):
    """Implements `cairn.agent.api.EngineApi` for one workspace (its goal and MCP sides:
    `cairn.agent.engine_goals`, `cairn.agent.engine_mcp`)."""

    def __init__(
        self,
        folders: list[Path],
        settings: Settings,
        *,
        listener: EngineListener | None = None,
        approver: Approver | None = None,
        apply_edit: EditApplier | None = None,
        read_text: TextReader | None = None,
        run_command: CommandRunner | None = None,
        elicitor: Elicitor | None = None,
        timing: Timing | None = None,
    ) -> None:
        self.config = SettingsRef(settings)
        self.listener = SafeListener(listener)
        parts = context_parts(list(folders), self.config, progress=MapProgress(self.listener))
        self.workspace = parts.workspace
        self.store = parts.store
        self.profiles = parts.profiles
        self.repomap = parts.repomap
        self.builder = parts.builder
        self.files = parts.files
        self.registry = parts.registry
        self.contexts = parts.contexts
        self.mcp = McpHub(self.config, self.workspace.root, self.listener.on_mcp_status, elicitor)
        self.runtime = ModelRuntime(self.config, self.workspace.root, timing=timing)
        self.compactor = Compactor(self.config, self.runtime, self.contexts)
        # The process groups of the shell commands running now (killed at once on a signal).
        self.processes = ProcessGroups()
        self.runner = TurnRunner(
            workspace=self.workspace,
            config=self.config,
            runtime=self.runtime,
            registry=self.registry,
            contexts=self.contexts,
            compactor=self.compactor,
            ignore=parts.ignore,
            profile=self.profiles.get,
            editor=EditorSide(approver, apply_edit, read_text, run_command),
            processes=self.processes,
            patches=TurnPatches(
                self.workspace,
                parts.ignore,
                workspace_snapshots(self.store.root, self.workspace),
            ),
        )
        self.explorer = Explorer(self.config, self.runner)
        self.book = SessionBook(self.store, lambda: self.settings.model, self.listener.on_log)
        self.meter = Meter(self.listener)

    @property
    def settings(self) -> Settings:
        """The current settings (`update_settings` replaces them for every part at once)."""
        return self.config.current

    # -- sessions (`cairn.agent.sessions.book`) ---------------------------------------

    @property
    def active_session_id(self) -> str:
        return self.book.active_id

    def new_session(self) -> str:
        return self.book.new()

    def session(self, session_id: str | None = None) -> Session:
        return self.book.get(session_id)

    def sessions(self) -> list[SessionInfo]:
        return self.book.infos()

    def session_meta(self, session_id: str) -> SessionMeta:
        return self.session(session_id).meta()

    def messages(self, session_id: str) -> list[Message]:
        return self.session(session_id).messages()

    def fork(self, session_id: str, at_message_id: str | None = None) -> str:
        return self.book.fork(session_id, at_message_id)

    def record_cancelled(self, session_id: str) -> None:
        self.book.record_cancelled(session_id)

    def delete_session(self, session_id: str) -> None:
        deleted = self.book.delete(session_id)
        if deleted is not None:
            self.mcp.drop_session(deleted)

    # -- turns -------------------------------------------------------------------

    def _existing(self, session_id: str | None) -> Session | None:
        """The session a request is for, or None when it would be a new one."""
        if session_id is None and not self.book.has_active:
            return None
        return self.session(session_id)

    def model_of(self, session: Session | None, explicit: str | None = None) -> str | None:
        """The model `session`'s next turn runs on (see `session_model`); None when unset."""
        configured = self.settings.model
        if session is None:
            return explicit or configured
        return session_model(explicit, configured, session.meta())

    def _inputs(
        self,
        model: str | None,
        mode: Mode | None = None,
        message: str = "",
        references: Sequence[str] = (),
        fix: FixTarget | None = None,
    ) -> TurnInputs:
        return turn_inputs(
            self.settings, self.workspace, self.runtime.env, model, mode, message, references, fix
        )

    def _between_turns(
        self, session: Session, message: str = "", references: Sequence[str] = ()
    ) -> TurnInputs:
        """The inputs of work on `session` between turns (a dry run, a fold, a compaction)."""
        return self._inputs(self.model_of(session), message=message, references=references)

    def scope(
        self,
        session: Session,
        inputs: TurnInputs,
        edited: Iterable[Path] = (),
        catalog: McpCatalog | None = None,
    ) -> TurnScope:
        """The scope of a main-agent turn of `session` (or of work on it between turns: then
        the MCP servers as they are now, none started)."""
        offer = make_offer(
            self.registry,
            inputs.mode,
            catalog if catalog is not None else self.mcp.snapshot(session.id),
            model=inputs.model,
            settings=self.settings,
            window=self.contexts.window_terms(session, inputs),
        )
        carry = self.contexts.cache.carry(session, inputs)
        return main_scope(session, inputs, self.listener, offer, self.explorer, edited, carry)

    def check_turn(self, session_id: str | None = None, model: str | None = None) -> None:
        chosen = self.model_of(self._existing(session_id), model)
        self.runtime.check(chosen, chosen)
        if chosen is not None:
            check_model(self.runtime, chosen)

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
        """Run one turn to its end; cancelling the awaiting task cancels it (and re-raises).

        No model, or a missing key variable, fails before anything is recorded."""
        self.check_turn(session_id, model)
        existing = self._existing(session_id)
        chosen = self.model_of(existing, model)
        session = existing or self.session(None)
        if fix is not None and not message.strip():
            message = FIX_MESSAGE.format(message=fix.diagnostic.message)
        inputs = self._inputs(chosen, mode, message, references, fix)
        current_session.set(session.id)  # the map's progress is this session's
        await self.contexts.sync_files_async(refresh=True)
        catalog = await started_catalog(self.mcp, session.id, self.listener)
        scope = self.scope(session, inputs, catalog=catalog)
        return await self.runner.run(scope, user_parts(self.workspace, message, inputs.references))

    # -- checkpoints and transcripts ---------------------------------------------

    def transcript(self, session_id: str | None = None) -> Transcript:
        return build_transcript(self.session(session_id))

    async def restore(
        self, session_id: str, turn_id: str, *, files: bool = True, conversation: bool = False
    ) -> RestoreResult:
        """Back to before a turn: its files and/or its conversation (`cairn.agent.sessions.restore`)."""
        result = await restore_turn(
            self.store,
            self.session(session_id),
            turn_id,
            files=files,
            conversation=conversation,
            workspace=self.workspace,
            apply_edit=self.runner.editor.apply_edit,
            snapshots=self.runner.patches.snapshots,
        )
        self.files.files_changed([self.workspace.resolve(rel) for rel in result.restored_files])
        return result

    def models(self) -> ModelCatalog:
        return model_catalog(self.settings.model, os.environ)

    # -- context -----------------------------------------------------------------

    async def context_stats(self, session_id: str | None = None) -> ContextStats:
        """The stats of the session's next call (built off the event loop), or its last
        figure marked stale while that build waits for other work (`cairn.agent.meter`)."""
        session = self.session(session_id)
        busy = self.contexts.gathering or self.mcp_starting(session)
        return await self.meter.stats(session, partial(self._next_stats, session), busy=busy)

    async def _next_stats(self, session: Session, on_wait: Callable[[], None]) -> ContextStats:
        if self.mcp_starting(session):
            on_wait()
        catalog = await self.context_catalog(session)
        scope = self.scope(session, self._between_turns(session), catalog=catalog)
        return (await self.contexts.build_async(scope, on_wait)).stats

    async def context_manifest(
        self,
        session_id: str | None = None,
        message: str | None = None,
        uri: str | None = None,
        references: Sequence[str] = (),
    ) -> Manifest:
        """The last call's manifest, or with `message`/`uri` the next call's (a dry run)."""
        session = self.session(session_id)
        if message is None and uri is None and not references:
            manifests = session.trace.manifests()
            if manifests:
                return manifests[-1]
        edited = [self.workspace.resolve(uri_to_path(uri))] if uri is not None else []
        inputs = self._between_turns(session, message or "", references)
        scope = self.scope(session, inputs, edited, await self.context_catalog(session))
        return (await self.contexts.build_async(scope)).manifest

    # -- files -------------------------------------------------------------------

    def files_changed(self, paths: Sequence[Path]) -> None:
        """Files were created, changed or deleted outside the agent (see `FileSync`)."""
        self.files.files_changed(paths)

    # -- compaction --------------------------------------------------------------

    async def compact(self, session_id: str | None = None) -> CompactResult:
        """Prune and summarise now (waits for a running turn of the session to end)."""
        session = self.session(session_id)
        inputs = self._between_turns(session)
        async with session.turn_lock:
            with session_cursor(session):
                return await self.compactor.compact_now(self.scope(session, inputs))

    # -- profile and settings ----------------------------------------------------

    def project_profile(self, refresh: bool = False) -> ProjectProfile:
        """The project profile (`.cairn/profile.json`); `refresh` rescans now."""
        if refresh:
            return self.profiles.refresh(force=True)
        self.contexts.sync_files()  # a rules file created since the last build changes it
        return self.profiles.get()

    async def project_profile_async(self, refresh: bool = False) -> ProjectProfile:
        """`project_profile` on a worker thread, after the running gather if one runs."""
        profiles = self.profiles
        return await self.contexts.exclusive_async(
            partial(profiles.refresh, force=True) if refresh else profiles.get
        )

    def update_settings(self, settings: Settings) -> None:
        """Use new settings from the next call on (the trace store stays where it is)."""
        self.config.current = settings

    def set_folders(self, folders: Sequence[Path]) -> None:
        """Serve `folders` (the root first, unchanged). Secondary folders are listed per call
        (`FileSync` caches only the root's listing), so nothing needs rebuilding."""
        resolved = [Path(folder).resolve() for folder in folders]
        if not resolved or resolved[0] != self.workspace.root:
            raise InvalidRequestError(
                f"the first workspace folder must stay {self.workspace.root} (got "
                f"{resolved[0] if resolved else 'none'}); start another engine for another root"
            )
        self.workspace.folders = [f for i, f in enumerate(resolved) if f not in resolved[:i]]

    def warm(self) -> None:
        self.contexts.sync_files(refresh=True)

    async def aclose(self) -> None:
        """`close`, after stopping the MCP servers and waiting for them to be gone."""
        await self.mcp.aclose()
        self.close()

    def close(self) -> None:
        self.mcp.close()
        self.book.close()
