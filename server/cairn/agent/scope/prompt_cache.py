"""The prompt-cache bookkeeping of a session's context builds (its `SessionCache`).

What a build reads of the cache and what a real call keeps in it, so the
request's prefix stays byte-identical from call to call and every break is
named. Only a real call changes the state: `commit` keeps what was sent (the
preamble frozen for the rest of the turn, the selection memo, the manifest
with the provider's usage, the calibration of the turn's first call). A dry
run reads the state and changes nothing. A tools zone that differs from the
previous call's (an MCP server added or gone, tools `tool_search` revealed)
is a recorded break naming what changed (`tools_change`), as a recomputed
preamble and a mode switch are. Usage the provider reported calibrates the
model's token counts from the next turn on. An explore branch's first call
reads its parent's state (`SessionCache.inherit`): the parent's preamble and
calibration hold for it, and its prefix is compared with the parent's last
call's.
"""

from __future__ import annotations

import time

from cairn.agent.scope.inputs import TurnInputs, files_in_play
from cairn.agent.scope.turn_scope import TurnScope
from cairn.agent.sessions.session import Session
from cairn.agent.tools.tool_search import ToolCarry
from cairn.compaction.cache_policy import cold_reason, refresh_preamble
from cairn.context.assemble import fresh_preamble
from cairn.context.builder import BuiltContext
from cairn.context.cache import MODEL_SWITCH, CacheView, Preamble, Signature, preamble_change
from cairn.context.prefix import entries_of
from cairn.context.snapshot import ContextSnapshot
from cairn.context.tool_schemas import tool_blocks, tools_change
from cairn.files.workspace import Workspace
from cairn.models.manifest import Manifest
from cairn.models.session import Usage
from cairn.settings import SettingsRef
from cairn.tokens.calibration import Calibrations, ModelCalibration

MODE_SWITCH = "mode switch"


def mode_switched(scope: TurnScope) -> bool:
    """Whether the scope's mode differs from the one the session's last call ran in (its
    tools and system text changed: the provider's cache cannot be read)."""
    cache = scope.session.cache
    return cache.mode is not None and cache.mode != scope.inputs.mode


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


class PromptCache:
    """Reads and keeps the sessions' prompt-cache state for the builds of one engine."""

    def __init__(
        self,
        workspace: Workspace,
        config: SettingsRef,
        calibrations: Calibrations,
        *,
        read_only: bool = False,
    ) -> None:
        self.workspace = workspace
        self.config = config
        self.calibrations = calibrations
        self.read_only = read_only

    def calibration(self, scope: TurnScope) -> ModelCalibration:
        """The model's token calibration for the scope's next call: the one the turn's first
        call used (frozen for the turn), else the workspace's current one."""
        model, turn = scope.inputs.model, scope.session.current_turn_id
        cache = scope.session.cache
        frozen = cache.calibration
        if frozen is not None and turn is not None and frozen[:2] == (turn, model):
            return frozen[2]
        if frozen is not None and cache.inherited and frozen[1] == model:
            return frozen[2]
        return self.calibrations.get(model)

    def wants_preamble(self, scope: TurnScope) -> bool:
        """Whether the next build makes a fresh preamble, else the frozen one is used: frozen
        for the rest of a turn; at a turn's first call (or a dry run) `refresh_preamble` decides."""
        session, cache = scope.session, scope.session.cache
        frozen, turn = cache.preamble, session.current_turn_id
        forced = cache.refresh or mode_switched(scope)
        if frozen is not None and not forced and turn is not None and cache.preamble_turn == turn:
            return False
        if frozen is not None and not forced and cache.inherited:
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
        return self.cold_for(scope.session, scope.inputs.model)

    def cold_for(self, session: Session, model: str) -> str | None:
        """Why the provider's cache is cold for `session`'s next call on `model`."""
        previous = self.previous(session)
        if previous is None:
            return None
        if previous.model != model:
            return MODEL_SWITCH
        idle = time.time() - previous.at.timestamp() if previous.at is not None else None
        return cold_reason(idle, self.config.current.cache_lifetime_s)

    def carry(self, session: Session, inputs: TurnInputs) -> ToolCarry:
        """What the next turn's offer needs to carry over the tools `tool_search` found: the
        tools the last call sent, and why the cache is cold (or the mode switched)."""
        previous = self.previous(session)
        sent = tuple(ref for ref, _ in tool_signature(previous)) if previous else None
        switched = session.cache.mode is not None and session.cache.mode != inputs.mode
        return ToolCarry(sent, MODE_SWITCH if switched else self.cold_for(session, inputs.model))

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
        cache = scope.session.cache
        previous = self.previous(scope.session)
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
        if mode_switched(scope):
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
