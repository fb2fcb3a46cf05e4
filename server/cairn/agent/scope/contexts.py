"""Building a session's context for a model call (the turn loop's view of the builder).

Wraps `ContextBuilder` with what a `TurnScope` knows: the session's history
and goals, the tools the turn offers (their schemas, and one manifest line
for every tool it knows: offered, deferred or refused), the files in play (the
open buffers, the turn's references and edits) and the fix target, and the
session's prompt-cache state (`SessionCache`). A build is a gather (the
only I/O, run on a worker thread over a copy of the editor state when the
caller is async) and an assembly (pure). The turn, the compactor, the
editor's dry run and `cairn context` all go through here, so a dry run is
the context of a real call.

Only a real call changes the cache state: `prepare` gathers and assembles
it and records the attachments it rendered; `commit` keeps what was sent
(the preamble frozen for the rest of the turn, the selection memo, the
manifest with the provider's usage). A dry run reads the state and changes
nothing. A tools zone that differs from the previous call's (an MCP server
added or gone, tools `tool_search` revealed) is a recorded break naming what
changed (`tools_change`), as a recomputed preamble is. A read-only `Contexts` stores no artifact (a degraded block's
full text is then not kept). A window a provider reported for the
session's model (by refusing a longer request) caps the budget of every
later build; an explore branch on its own model builds for that model's
window. Also measures the *demand* of a context, the
tokens of every candidate block whether or not it fit, which is what
compaction decisions compare with the window (a context that had to drop
history is an overflow).
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass

from cairn.agent.scope.inputs import TurnInputs, files_in_play, fix_block, seen_in_play
from cairn.agent.scope.turn_scope import TurnScope
from cairn.agent.sessions.session import Session
from cairn.compaction.cache_policy import cold_reason, refresh_preamble
from cairn.context.assemble import fresh_preamble
from cairn.context.budget import role_window
from cairn.context.builder import BuiltContext, ContextBuilder, ContextRequest
from cairn.context.cache import MODEL_SWITCH, CacheView, Preamble, Signature, preamble_change
from cairn.context.prefix import entries_of
from cairn.context.snapshot import ContextSnapshot
from cairn.context.tool_schemas import tool_blocks, tools_change
from cairn.errors import CairnError
from cairn.files.sync import FileSync
from cairn.files.workspace import Workspace
from cairn.models.manifest import Manifest
from cairn.models.messages import Message
from cairn.models.session import Usage
from cairn.tokens.calibration import Calibrations, ModelCalibration

MODE_SWITCH = "mode switch"


@dataclass(frozen=True)
class Demand:
    """Tokens the next call wants, whether they did not all fit, and the call's budget."""

    tokens: int
    overflow: bool
    window: int
    available: int


def demand_of(built: BuiltContext) -> Demand:
    blocks = [b for b in built.manifest.blocks if b.zone != "tools"]
    wanted = sum(b.tokens for b in blocks) + built.stats.tool_schema_tokens
    dropped = any(not b.included and b.source in ("history", "summary") for b in blocks)
    return Demand(
        tokens=wanted,
        overflow=dropped,
        window=built.stats.context_window,
        available=built.stats.available_input,
    )


def _known_limit(session: Session, model: str) -> int | None:
    """The window the provider reported for `model` in this session (none for a new session)."""
    try:
        return session.context_limit(model)
    except CairnError:  # a dry run's session that was never created
        return None


def preamble_signature(manifest: Manifest) -> Signature:
    """The preamble a manifest's call sent, as `Preamble.signature` gives it."""
    return tuple(
        (b.source, b.ref or "", b.version)
        for b in manifest.blocks
        if b.zone == "preamble" and b.included
    )


def tool_signature(manifest: Manifest) -> list[tuple[str, str]]:
    """The tools a manifest's call sent (ref and schema version, in order)."""
    return [(b.ref or "", b.version) for b in manifest.blocks if b.zone == "tools" and b.included]


class Contexts:
    """Builds contexts for the sessions of one engine."""

    def __init__(
        self,
        workspace: Workspace,
        builder: ContextBuilder,
        files: FileSync | None = None,
        *,
        read_only: bool = False,
        calibrations: Calibrations | None = None,
    ) -> None:
        self.workspace = workspace
        self.builder = builder
        self.files = files
        self.read_only = read_only
        self.calibrations = calibrations or Calibrations(None)
        # One gather at a time, and no file sync during one: the repository map and the
        # profile are not thread-safe.
        self._gather_lock = threading.Lock()

    # -- gathering ---------------------------------------------------------------

    def request(
        self, scope: TurnScope, messages: Sequence[Message] | None, *, preamble: bool
    ) -> ContextRequest:
        """What the scope's next call depends on (over `messages` when given, else the trace's)."""
        session, inputs = scope.session, scope.inputs
        history = list(messages) if messages is not None else session.messages()
        extra = [fix_block(self.workspace, inputs.fix, inputs.model)] if inputs.fix else []
        own_edits = set(scope.edit_log.paths)
        edited = [p for p in scope.edited if self.workspace.relative(p) in own_edits]
        active = self.builder.settings.active_buffers
        shown = files_in_play(self.workspace, inputs, scope.edited, active=active)
        return ContextRequest(
            session_id=session.id,
            model=inputs.model,
            mode=inputs.mode,
            goals=session.goals(),
            history=history,
            user_message=inputs.user_message,
            references=list(inputs.references),
            files_in_play=shown,
            seen_files=seen_in_play(shown, scope.seen),
            edited=edited,
            extra_blocks=extra,
            tool_lines=scope.offer.lines(),
            preamble=preamble,
            window_limit=_known_limit(session, inputs.model),
            role_window=self._role_window(inputs),
            calibration=self.calibration(scope),
        )

    def calibration(self, scope: TurnScope) -> ModelCalibration:
        """The model's token calibration for the scope's next call: the one the turn's first
        call used (frozen for the turn), else the workspace's current one."""
        model, turn = scope.inputs.model, scope.session.current_turn_id
        frozen = scope.session.cache.calibration
        if frozen is not None and turn is not None and frozen[:2] == (turn, model):
            return frozen[2]
        return self.calibrations.get(model)

    def wants_preamble(self, scope: TurnScope) -> bool:
        """Whether the next build makes a fresh preamble, else the frozen one is used: frozen
        for the rest of a turn; at a turn's first call (or a dry run) `refresh_preamble` decides."""
        session, cache = scope.session, scope.session.cache
        frozen, turn = cache.preamble, session.current_turn_id
        forced = cache.refresh or (cache.mode is not None and cache.mode != scope.inputs.mode)
        if frozen is not None and not forced and turn is not None and cache.preamble_turn == turn:
            return False
        in_play = files_in_play(self.workspace, scope.inputs, scope.edited)
        own = set(scope.edit_log.paths)
        files = tuple(sorted({self.workspace.relative(p) for p in in_play} - own))
        return refresh_preamble(
            frozen=frozen is not None,
            forced=forced,
            cold=self.cold(scope) is not None,
            files_changed=frozen is None or frozen.files != files,
        )

    def cold(self, scope: TurnScope) -> str | None:
        """Why the provider's cache is cold for the scope's next call (None: warm, or no call)."""
        previous = self.previous(scope.session)
        if previous is None:
            return None
        if previous.model != scope.inputs.model:
            return MODEL_SWITCH
        idle = time.time() - previous.at.timestamp() if previous.at is not None else None
        return cold_reason(idle, self.builder.settings.cache_lifetime_s)

    def _gather(self, request: ContextRequest, workspace: Workspace | None) -> ContextSnapshot:
        with self._gather_lock:
            return self.builder.gather(request, workspace)

    def _sync(self) -> None:
        """Apply file events and editor buffers (never while another gather reads the map)."""
        if self.files is not None:
            with self._gather_lock:
                self.files.sync()

    def gather(
        self,
        scope: TurnScope,
        messages: Sequence[Message] | None = None,
        *,
        preamble: bool | None = None,
    ) -> ContextSnapshot:
        """The snapshot of the scope's next call, read on this thread (file events applied first)."""
        self._sync()
        fresh = self.wants_preamble(scope) if preamble is None else preamble
        return self._gather(self.request(scope, messages, preamble=fresh), None)

    async def gather_async(
        self,
        scope: TurnScope,
        messages: Sequence[Message] | None = None,
        *,
        preamble: bool | None = None,
    ) -> ContextSnapshot:
        """`gather` on a worker thread, over a copy of the editor state taken on this one."""
        self._sync()
        fresh = self.wants_preamble(scope) if preamble is None else preamble
        request = self.request(scope, messages, preamble=fresh)
        return await asyncio.to_thread(self._gather, request, self.workspace.copy())

    # -- assembling ----------------------------------------------------------------

    @staticmethod
    def previous(session: Session) -> Manifest | None:
        """The manifest of the session's last real call (read from the trace once)."""
        cache = session.cache
        if not cache.loaded:
            manifests = session.trace.manifests()
            cache.last = manifests[-1] if manifests else None
            breaks = [m.cache_break for m in manifests if m.cache_break]
            cache.last_break = breaks[-1] if breaks else None
            cache.loaded = True
        return cache.last

    def view(self, scope: TurnScope, snapshot: ContextSnapshot) -> CacheView:
        """What the build of `snapshot` knows of the session's cache (see `CacheView`)."""
        session, cache = scope.session, scope.session.cache
        previous = self.previous(session)
        reasons = list(cache.reasons)
        preamble: Preamble | None = cache.preamble
        if snapshot.has_preamble or preamble is None:
            preamble = fresh_preamble(snapshot)
            before = cache.preamble.signature() if cache.preamble is not None else None
            if before is None and previous is not None:
                before = preamble_signature(previous)
            change = preamble_change(before, preamble)
            if change is not None and not cache.refresh:  # after a summary: "summary" says it
                reasons.append(change)
        if cache.mode is not None and cache.mode != scope.inputs.mode:
            reasons.insert(0, MODE_SWITCH)
        elif previous is not None:
            now = tool_blocks(snapshot.tools, snapshot.tool_tokens)
            change = tools_change(tool_signature(previous), now)
            if change is not None:
                reasons.insert(0, change)
        cold = self.cold(scope)
        return CacheView(
            preamble=preamble,
            previous=entries_of(previous) if previous is not None else None,
            previous_model=previous.model if previous is not None else None,
            memo=cache.memo,
            reasons=tuple(reasons),
            cold=cold if cold != MODEL_SWITCH else None,
            last_usage=previous.usage if previous is not None else None,
            last_break=cache.last_break,
        )

    def assemble(self, scope: TurnScope, snapshot: ContextSnapshot) -> BuiltContext:
        """The call's context from `snapshot` and the session's cache state (no I/O)."""
        session = scope.session
        store = None if self.read_only else session.trace.write_artifact
        built = self.builder.assemble(snapshot, self.view(scope, snapshot), store)
        built.stats.compaction.in_progress = session.compacting
        return built

    def _role_window(self, inputs: TurnInputs) -> int | None:
        """A branch on another model than the main one builds for that model's own window."""
        if inputs.main_model == inputs.model:
            return None
        return role_window(inputs.model, inputs.main_model, self.builder.settings)

    def build(self, scope: TurnScope, *, messages: Sequence[Message] | None = None) -> BuiltContext:
        """The context of the scope's next call, gathered on this thread (a dry run)."""
        return self.assemble(scope, self.gather(scope, messages))

    async def build_async(self, scope: TurnScope) -> BuiltContext:
        """The context of the scope's next call, gathered off the event loop (a dry run)."""
        return self.assemble(scope, await self.gather_async(scope))

    def demand(self, scope: TurnScope, messages: Sequence[Message] | None = None) -> Demand:
        return demand_of(self.build(scope, messages=messages))

    # -- a real call -----------------------------------------------------------------

    async def prepare(self, scope: TurnScope) -> tuple[ContextSnapshot, BuiltContext]:
        """Gather and assemble a real call's context, and record what it attached."""
        snapshot = await self.gather_async(scope)
        scope.session.cache.snapshot = snapshot
        return snapshot, self.assemble(scope, snapshot)

    def record_attachments(self, scope: TurnScope, built: BuiltContext) -> None:
        """Record the attachments a real call renders, so later calls read them from history."""
        if built.attachments and not self.read_only:
            scope.session.append("system", list(built.attachments), use_focus=False)
            built.attachments = []

    @staticmethod
    def _freeze_calibration(scope: TurnScope) -> None:
        """Keep the calibration of the turn's first call for the rest of the turn."""
        cache, turn = scope.session.cache, scope.session.current_turn_id
        snapshot = cache.snapshot
        if snapshot is None or snapshot.model != scope.inputs.model:
            return
        if cache.calibration is None or cache.calibration[:2] != (turn, snapshot.model):
            cache.calibration = (turn, snapshot.model, snapshot.calibration)

    def commit(
        self,
        scope: TurnScope,
        built: BuiltContext,
        usage: Usage | None,
        *,
        reported: bool = False,
    ) -> None:
        """After a real call: keep what it sent, with the provider's usage, for the next build;
        usage the provider `reported` calibrates the model's token counts (next turn on)."""
        session = scope.session
        manifest = built.manifest
        manifest.usage = usage
        self._freeze_calibration(scope)
        if usage is not None:
            built.stats.cache.cached_input = usage.cached_input_tokens
            built.stats.cache.cache_write_input = usage.cache_write_input_tokens
            if reported and not self.read_only:
                counted = built.stats.used_input + built.stats.tool_schema_tokens
                self.calibrations.record(scope.inputs.model, counted, usage.input_tokens)
        self.previous(session)
        if manifest.cache_break:
            session.cache.last_break = manifest.cache_break
        session.cache.committed(
            manifest, built.preamble, built.memo, scope.inputs.mode, session.current_turn_id
        )
