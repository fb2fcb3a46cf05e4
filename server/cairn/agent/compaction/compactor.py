"""Running compaction for a session: goal folds, prune, structured summaries, events.

The policy lives in `cairn.compaction` (pure); this module decides the moment, makes
the compaction model call (agent lane "compaction", on the turn's compaction model,
its transcript in chunks within that model's window), measures the context before and
after, records the markers and tells the scope's listener (`start` / `done` /
`failed`, with tokens before and after). Every method works on a `TurnScope`: the
running turn's, or one the engine opens between turns (a goal the user finished, a
forced compaction).

Measuring never gathers again: a candidate marker is measured by assembling the call's
snapshot once more with the marker added (`cache_breaks`). Folds and prunes rewrite
history, so they break the provider's prompt cache from their first changed message
on: they are applied when the cache-break policy says they pay (a fold of the last
messages always does), when the cache is cold anyway, or when the budget needs the
room; until then a fold waits in `session.deferred_folds` and a prune is planned again
(with more to free) before the next call. Pending changes are applied together, and
each applied break is noted for the next manifest (`SessionCache.note_break`).

A summary may be prepared in the background (`start_background`) while the turn runs
its tools; its marker is recorded at the next `join`, before the next context build,
so a marker never lands inside a step. When the step finishes the focused goal its
calls wait for the fold, and are not made when the ledger alone shows that the summary,
recorded after the fold, would free too little (it would stall: calls wasted). The compaction call repeats the next
request's prefix plus one instruction (read from the cache), falling back to a
transcript only when that does not fit. A summary that frees less than
`STALL_MIN_FREED_FRACTION` is reported as stalled and replaced by the same cut with
the ledger alone, or, when that stalls too, by the pending prune. After any summary
attempt the next one waits until the history has grown by `SUMMARY_RETRY_MESSAGES`
messages — unless the call overflows (history or the summary would be dropped), where
one new attempt per new message is made whatever the gate says
(`policy.may_summarise_now`), so compaction never loops; a summary is not attempted
when what it would cover is too small to matter. `compact_for_overflow` is the entry
point the turn loop calls when the provider refused a call as too long.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from cairn.agent.compaction.cache_breaks import (
    Change,
    Measured,
    decide,
    finishes_goal,
    fold_change,
    measure_async,
    pending_changes,
)
from cairn.agent.compaction.call import ask_narrative
from cairn.agent.compaction.cut import summary_cut
from cairn.agent.compaction.events import tell
from cairn.agent.scope.contexts import Contexts, Demand, demand_of
from cairn.agent.scope.turn_scope import TurnScope
from cairn.agent.sessions.session import DeferredFold, PendingFold
from cairn.compaction import policy
from cairn.compaction.ledger import build_ledger
from cairn.compaction.markers import read_state
from cairn.compaction.narrative import Narrative
from cairn.compaction.retention import Retention, retention
from cairn.compaction.summary_build import build_summary, ledger_only_summary, moves_watermark
from cairn.context.builder import BuiltContext
from cairn.context.snapshot import ContextSnapshot
from cairn.errors import CairnError
from cairn.llm import ModelRuntime
from cairn.llm.cache_hints import model_cache_price
from cairn.llm.reply import ToolCall
from cairn.models.events import CompactResult
from cairn.models.messages import CompactionKind, CompactionPart, Message
from cairn.settings import Settings, SettingsRef

SUMMARY_BREAK = "summary"
FORCED = "compaction requested"
LEDGER_ONLY_NOTE = "; recorded with the ledger alone (no narrative)"


class Compactor:
    """Compaction for every session of one engine."""

    def __init__(self, config: SettingsRef, runtime: ModelRuntime, contexts: Contexts) -> None:
        self.config = config
        self.runtime = runtime
        self.contexts = contexts
        # Per session, the background summary waiting for the fold of the step's goal: the
        # messages it covers and the input available.
        self._after_fold: dict[str, tuple[list[Message], int]] = {}

    @property
    def settings(self) -> Settings:
        return self.config.current

    def retention(self, scope: TurnScope, window: int) -> Retention:
        """The compaction knobs for the turn's main model in a `window`-token context: the
        settings, the unset ones from its provider's cache price (`compaction.retention`)."""
        price = model_cache_price(self.settings, scope.inputs.model)
        return retention(self.settings, window, price)

    def _snapshot(self, scope: TurnScope) -> ContextSnapshot:
        """The last snapshot a real call gathered (over the current records), else a new one."""
        snapshot = scope.session.cache.snapshot
        if snapshot is None:
            snapshot = self.contexts.gather(scope)
            scope.session.cache.snapshot = snapshot
        return snapshot.with_history(scope.session.messages())

    async def _snapshot_async(self, scope: TurnScope) -> ContextSnapshot:
        """`_snapshot`, a new one gathered on a worker thread."""
        snapshot = scope.session.cache.snapshot
        if snapshot is None:
            snapshot = await self.contexts.gather_async(scope)
            scope.session.cache.snapshot = snapshot
        return snapshot.with_history(scope.session.messages())

    async def _tokens(self, scope: TurnScope, snapshot: ContextSnapshot) -> Demand:
        return demand_of(await self.contexts.assemble_async(scope, snapshot))

    # -- applying folds and prunes ---------------------------------------------------

    def _apply(self, scope: TurnScope, changes: Sequence[Change], before: int, after: int) -> None:
        """Record the markers of `changes` (measured together) with their events."""
        session = scope.session
        for change in changes:
            kind: CompactionKind = change.part.kind
            tell(scope, "start", kind, before)
            change.part.tokens_before, change.part.tokens_after = before, after
            session.append_marker(change.part, goal_id=change.goal_id)
            session.cache.note_break(change.label)
            tell(scope, "done", kind, before, after)

    async def apply_pending(
        self, scope: TurnScope, snapshot: ContextSnapshot, *, force: bool = False
    ) -> bool:
        """Apply the deferred folds and the prune at once when the policy (or `force`) says so
        (measured on a worker thread)."""
        knobs = self.retention(scope, snapshot.budget.context_window)
        changes = pending_changes(scope, knobs, self.settings.protected_tools)
        if not changes:
            return False
        messages = scope.session.messages()
        measured = await measure_async(self.contexts, scope, snapshot, messages, changes)
        return self._apply_measured(scope, changes, measured, force)

    def _apply_measured(
        self, scope: TurnScope, changes: Sequence[Change], measured: Measured, force: bool
    ) -> bool:
        demand = demand_of(measured.before)
        threshold = self.retention(scope, demand.window).threshold
        budget = force or policy.needs_summary(
            demand.tokens, demand.window, threshold, demand.overflow
        )
        decision = decide(self.contexts, scope, measured.candidate, budget_needs=budget)
        if not decision.apply:
            return False
        after = demand_of(measured.after).tokens
        self._apply(scope, changes, demand.tokens, after)
        scope.session.deferred_folds = []
        return True

    # -- goal folding ----------------------------------------------------------

    async def fold_async(self, scope: TurnScope, fold: PendingFold) -> None:
        """Fold a finished goal's messages into its summary now, or defer it (cache policy);
        its measurements (and a gather, when no call kept one) run off the event loop."""
        change = fold_change(scope, fold)
        if change is not None:
            snapshot, messages = await self._snapshot_async(scope), scope.session.messages()
            measured = await measure_async(self.contexts, scope, snapshot, messages, [change])
            self._fold_measured(scope, fold.goal_id, change, measured)

    def _fold_measured(
        self, scope: TurnScope, goal_id: str, change: Change, measured: Measured
    ) -> None:
        """Record the fold now, or defer it when breaking the cache for it does not pay."""
        decision = decide(self.contexts, scope, measured.candidate, budget_needs=False)
        if not decision.apply:
            scope.session.deferred_folds.append(DeferredFold(goal_id=goal_id, part=change.part))
            scope.listener.on_log(f"goal {goal_id} fold deferred ({decision.why})")
            return
        before = demand_of(measured.before).tokens
        self._apply(scope, [change], before, demand_of(measured.after).tokens)

    async def flush_folds(self, scope: TurnScope) -> None:
        """Fold the goals finished during the turn's last step (off the event loop)."""
        session = scope.session
        folds, session.pending_folds = session.pending_folds, []
        for fold in folds:
            await self.fold_async(scope, fold)
        waiting = self._after_fold.pop(session.id, None)
        if waiting is not None:  # the summary started at the reply, its calls after the fold
            snapshot = await self._snapshot_async(scope)
            session.background = asyncio.create_task(
                self.prepare_summary(scope, snapshot, *waiting, replied=True, unless_stalled=True),
                name=f"compaction-{session.id}",
            )

    # -- summary ---------------------------------------------------------------

    def worth_it(self, scope: TurnScope, demand: Demand, *, replied: bool = False) -> bool:
        """Whether a summary now could free enough to be worth a model call."""
        messages = scope.session.messages()
        keep = self.retention(scope, demand.window).keep_recent
        cut = summary_cut(scope, messages, demand.available, keep, replied=replied)
        return cut is not None and policy.worth_summarising(cut[1], demand.tokens)

    async def prepare_summary(
        self,
        scope: TurnScope,
        snapshot: ContextSnapshot,
        messages: Sequence[Message],
        available: int,
        *,
        replied: bool = False,
        unless_stalled: bool = False,
    ) -> CompactionPart | None:
        """The summary marker for `messages` (one compaction model call), or None if nothing
        to cover (`replied`: the model has answered the newest step, see `_cut`;
        `unless_stalled`: without the call when the ledger alone shows, on the history as
        it is now, that the summary would free too little — it then stalls as recorded)."""
        keep = self.retention(scope, snapshot.budget.context_window).keep_recent
        cut = summary_cut(scope, messages, available, keep, replied=replied)
        if cut is None:
            return None
        index, state = cut[0], read_state(messages)
        covered = messages[: index + 1]
        ledger = build_ledger(covered, scope.session.goals())
        if unless_stalled:
            plain = build_summary(state.summary, Narrative(), ledger, covered, messages[index].id)
            part = CompactionPart(kind="summary", summary=plain)
            now = snapshot.with_history(scope.session.messages())
            if policy.is_stalled(
                (await self._tokens(scope, now)).tokens, await self._probe(scope, snapshot, part)
            ):
                return part
        built = await self.contexts.assemble_async(scope, snapshot.with_history(messages))
        narrative = await ask_narrative(self.runtime, self.contexts, scope, built, messages, index)
        summary = build_summary(state.summary, narrative, ledger, covered, messages[index].id)
        return CompactionPart(kind="summary", summary=summary)

    async def record_summary(
        self, scope: TurnScope, snapshot: ContextSnapshot, part: CompactionPart | None
    ) -> bool:
        """Measure and record a prepared summary; True when a summary was recorded.

        A summary that frees too little is stalled: the same cut with the ledger
        alone (no model narrative) is tried instead, and when that stalls too the
        pending prune is applied (the ledger block keeps the facts either way).
        """
        session = scope.session
        messages = session.messages()
        before = (await self._tokens(scope, snapshot.with_history(messages))).tokens
        session.summarised_at = len(messages)
        if part is None or not moves_watermark(messages, part):
            tell(scope, "failed", "summary", before, before, "stalled: nothing to cover")
            return False
        after = await self._probe(scope, snapshot, part)
        if policy.is_stalled(before, after):
            error = policy.stall_message(before, after)
            plain = ledger_only_summary(messages, part, session.goals())
            plain_after = await self._probe(scope, snapshot, plain)
            if policy.is_stalled(before, plain_after):
                pruned = await self.apply_pending(scope, snapshot, force=True)
                fallback = "; pruned instead" if pruned else "; the ledger block stands alone"
                tell(scope, "failed", "summary", before, after, error + fallback)
                return False
            tell(scope, "failed", "summary", before, after, error + LEDGER_ONLY_NOTE)
            part, after = plain, plain_after
        part.tokens_before, part.tokens_after = before, after
        session.append_marker(part)
        session.deferred_folds = []
        session.cache.note_break(SUMMARY_BREAK)
        session.cache.refresh = True
        tell(scope, "done", "summary", before, after)
        return True

    async def _probe(
        self, scope: TurnScope, snapshot: ContextSnapshot, part: CompactionPart
    ) -> int:
        """What the next call would cost with `part` recorded."""
        probe = [*scope.session.messages(), Message(id="probe", role="system", parts=[part])]
        return (await self._tokens(scope, snapshot.with_history(probe))).tokens

    async def summarize(self, scope: TurnScope) -> bool:
        """A full compaction now (in the foreground); True when a summary was recorded."""
        snapshot = await self._snapshot_async(scope)
        messages = scope.session.messages()
        before = await self._tokens(scope, snapshot)
        tell(scope, "start", "summary", before.tokens)
        part = await self.prepare_summary(scope, snapshot, messages, before.available)
        return await self.record_summary(scope, snapshot, part)

    # -- background --------------------------------------------------------------

    def start_background(
        self, scope: TurnScope, demand: Demand, calls: Sequence[ToolCall] = ()
    ) -> None:
        """Start preparing a summary ahead of the threshold, unless one runs or it stalled;
        when the step's `calls` finish the focused goal, once its fold is made."""
        session = scope.session
        threshold = self.retention(scope, demand.window).threshold
        if session.compacting or not policy.should_start_early(
            demand.tokens, demand.window, threshold
        ):
            return
        messages = session.messages()
        if not policy.may_summarise_again(len(messages), session.summarised_at):
            return
        # Called once the model has replied to the newest step (its reply is in hand).
        if not self.worth_it(scope, demand, replied=True):
            return
        tell(scope, "start", "summary", demand.tokens)
        if session.goals().current_id is not None and finishes_goal(calls):
            self._after_fold[session.id] = (messages, demand.available)  # see `flush_folds`
            return
        session.background = asyncio.create_task(
            self.prepare_summary(
                scope, self._snapshot(scope), messages, demand.available, replied=True
            ),
            name=f"compaction-{session.id}",
        )

    async def join(self, scope: TurnScope) -> None:
        """Record the background summary, waiting for it if it still runs."""
        session = scope.session
        self._after_fold.pop(session.id, None)  # a step that stopped before its folds
        task, session.background = session.background, None
        if task is None:
            return
        try:
            part = await task
        except CairnError as exc:
            before = (await self._tokens(scope, await self._snapshot_async(scope))).tokens
            tell(scope, "failed", "summary", before, None, str(exc))
            return
        await self.record_summary(scope, await self._snapshot_async(scope), part)

    # -- before each call --------------------------------------------------------

    async def before_call(self, scope: TurnScope) -> BuiltContext:
        """Join, apply pending folds and prunes when they pay, summarise when the next call
        would pass the threshold; the call's context, its attachments recorded."""
        session = scope.session
        await self.join(scope)
        snapshot, built = await self.contexts.prepare(scope)
        if await self.apply_pending(scope, snapshot):
            built = await self.contexts.assemble_async(
                scope, snapshot.with_history(session.messages())
            )
        demand = demand_of(built)
        threshold = self.retention(scope, demand.window).threshold
        over = policy.needs_summary(demand.tokens, demand.window, threshold, demand.overflow)
        retry = policy.may_summarise_now(
            len(session.messages()), session.summarised_at, demand.overflow
        )
        if over and retry and self.worth_it(scope, demand) and await self.summarize(scope):
            snapshot, built = await self.contexts.prepare(scope)
        self.contexts.record_attachments(scope, built)
        return built

    # -- forced ------------------------------------------------------------------

    async def compact_for_overflow(self, scope: TurnScope) -> CompactResult:
        """The provider refused the next call as too long: prune and summarise now,
        whatever the thresholds say (the turn loop then rebuilds and retries once)."""
        return await self.compact_now(scope)

    async def compact_now(self, scope: TurnScope) -> CompactResult:
        """`cairn/compact`: prune, then summarise, whatever the thresholds say."""
        session = scope.session
        await self.join(scope)
        snapshot = await self.contexts.gather_async(scope)
        session.cache.snapshot = snapshot
        before = (await self._tokens(scope, snapshot)).tokens
        pruned = await self.apply_pending(scope, await self._snapshot_async(scope), force=True)
        session.summarised_at = None
        summarised = await self.summarize(scope)
        after = (await self._tokens(scope, await self._snapshot_async(scope))).tokens
        kind = "summary" if summarised else "prune" if pruned else "none"
        if kind != "none":
            session.cache.note_break(FORCED)
        return CompactResult(
            session_id=session.id, tokens_before=before, tokens_after=after, kind=kind
        )
