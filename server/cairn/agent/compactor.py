"""Running compaction for a session: goal folds, prune, structured summaries, events.

The policy lives in `cairn.compaction` (pure); this module only decides the
moment, makes the compaction model call (agent lane "compaction", on the
turn's compaction model, its transcript within that model's window), measures
the context before and after, records the markers and tells the scope's
listener (`start` / `done` / `failed`, with tokens before and after). Every
method works on a `TurnScope`: the running turn's, or one the engine opens
between turns (a goal the user finished, a forced compaction).

A summary may be prepared in the background (`start_background`) while the
turn runs its tools; its marker is recorded at the next `join`, before the
next context build, so a marker never lands inside a step. A summary that
frees less than `STALL_MIN_FREED_FRACTION` is reported as stalled. After any
summary attempt the next one waits until the history has grown by
`SUMMARY_RETRY_MESSAGES` messages, so compaction never loops; a summary is
not even attempted when what it would cover is too small to matter.
`compact_for_overflow` is the entry point the turn loop calls when the
provider refused a call as too long.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Literal

from cairn.agent.contexts import Contexts, Demand, demand_of
from cairn.agent.scope import TurnScope
from cairn.agent.session import PendingFold
from cairn.compaction import policy
from cairn.compaction.goal_fold import fold_goal
from cairn.compaction.ledger import build_ledger
from cairn.compaction.markers import read_state
from cairn.compaction.narrative import (
    COMPACTION_AGENT,
    Narrative,
    compaction_messages,
    parse_narrative,
)
from cairn.compaction.prune import plan_prune
from cairn.compaction.summary_build import build_summary
from cairn.compaction.transcript import choose_watermark, covered_tokens, render_transcript
from cairn.context.budget import role_window
from cairn.context.builder import BuiltContext
from cairn.context.redact import redact_messages
from cairn.errors import CairnError
from cairn.goals import find_goal, goal_subtree_ids
from cairn.llm import ModelRuntime
from cairn.models.events import CompactionEvent, CompactResult
from cairn.models.messages import CompactionKind, CompactionPart, Message
from cairn.models.summary import SessionSummary
from cairn.settings import Settings, SettingsRef
from cairn.tokens.counter import counter_for

Stage = Literal["start", "done", "failed"]

# Tokens of the compaction call's input left for its prompt and the previous summary.
COMPACTION_PROMPT_RESERVE = 2_000


class Compactor:
    """Compaction for every session of one engine."""

    def __init__(self, config: SettingsRef, runtime: ModelRuntime, contexts: Contexts) -> None:
        self.config = config
        self.runtime = runtime
        self.contexts = contexts

    @property
    def settings(self) -> Settings:
        return self.config.current

    # -- events ----------------------------------------------------------------

    def _event(
        self,
        scope: TurnScope,
        stage: Stage,
        kind: CompactionKind,
        before: int,
        after: int | None = None,
        error: str | None = None,
    ) -> None:
        scope.listener.on_compaction(
            CompactionEvent(
                session_id=scope.session.id,
                stage=stage,
                kind=kind,
                tokens_before=before,
                tokens_after=after,
                error=error,
            )
        )

    # -- goal folding ----------------------------------------------------------

    def fold(self, scope: TurnScope, fold: PendingFold) -> None:
        """Record the marker folding a finished goal's messages into its summary."""
        session = scope.session
        tree = session.goals()
        goal = find_goal(tree, fold.goal_id)
        if goal is None:
            return
        messages = session.messages()
        part = fold_goal(
            messages, goal, goal_subtree_ids(tree, fold.goal_id), fold.verb, fold.summary
        )
        if part is None:
            return
        before = self.contexts.demand(scope, messages).tokens
        self._event(scope, "start", "goal", before)
        candidate = _with_marker(messages, part, fold.goal_id)
        after = self.contexts.demand(scope, candidate).tokens
        part.tokens_before, part.tokens_after = before, after
        session.append_marker(part, goal_id=fold.goal_id)
        self._event(scope, "done", "goal", before, after)

    def flush_folds(self, scope: TurnScope) -> None:
        session = scope.session
        folds, session.pending_folds = session.pending_folds, []
        for fold in folds:
            self.fold(scope, fold)

    # -- prune -----------------------------------------------------------------

    def prune(self, scope: TurnScope) -> bool:
        """Apply phase 1 when it frees at least `prune_minimum`; True when it did."""
        session = scope.session
        messages = session.messages()
        plan = plan_prune(
            messages,
            counter_for(scope.inputs.model),
            minimum=self.settings.prune_minimum,
            protect=self.settings.prune_protect,
            protected_tools=self.settings.protected_tools,
        )
        if plan is None:
            return False
        before = self.contexts.demand(scope, messages).tokens
        self._event(scope, "start", "prune", before)
        part = plan.marker(before, 0)
        after = self.contexts.demand(scope, _with_marker(messages, part)).tokens
        part.tokens_after = after
        session.append_marker(part)
        self._event(scope, "done", "prune", before, after)
        return True

    # -- summary ---------------------------------------------------------------

    def _transcript_room(self, scope: TurnScope, available: int) -> int:
        """Input the compaction call may use: the main call's, or less when the compaction
        model has a smaller window of its own."""
        model = scope.inputs.model_for("compaction")
        if model == scope.inputs.model:
            return available
        window = role_window(model, scope.inputs.model, self.settings)
        own = window - self.settings.max_output_tokens - self.settings.safety_margin
        return min(available, own)

    def _cut(
        self, scope: TurnScope, messages: Sequence[Message], available: int
    ) -> tuple[int, int] | None:
        """The index the next summary would cover up to, and what that part costs now."""
        state = read_state(messages)
        count = counter_for(scope.inputs.model)
        room = self._transcript_room(scope, available)
        index = choose_watermark(
            messages,
            state,
            count,
            keep_recent_tokens=policy.keep_recent_tokens(available),
            max_transcript_tokens=max(room - COMPACTION_PROMPT_RESERVE, 0),
        )
        if index is None:
            return None
        return index, covered_tokens(messages, state, count, index)

    def worth_it(self, scope: TurnScope, demand: Demand) -> bool:
        """Whether a summary now could free enough to be worth a model call."""
        cut = self._cut(scope, scope.session.messages(), demand.available)
        return cut is not None and policy.worth_summarising(cut[1], demand.tokens)

    async def prepare_summary(
        self, scope: TurnScope, messages: Sequence[Message], available: int
    ) -> CompactionPart | None:
        """The summary marker for `messages` (one compaction model call), or None if nothing to cover."""
        cut = self._cut(scope, messages, available)
        if cut is None:
            return None
        index = cut[0]
        state = read_state(messages)
        count = counter_for(scope.inputs.model)

        new = messages[state.watermark_index + 1 : index + 1]
        transcript = render_transcript(new, state, count)
        narrative = await self._narrative(scope, state.summary, transcript)
        covered = messages[: index + 1]
        summary = build_summary(
            state.summary,
            narrative,
            build_ledger(covered, scope.session.goals()),
            covered,
            messages[index].id,
        )
        return CompactionPart(kind="summary", summary=summary)

    async def _narrative(
        self,
        scope: TurnScope,
        previous: SessionSummary | None,
        transcript: str,
    ) -> Narrative:
        try:
            # The transcript holds old tool outputs verbatim: the builder's redactor applies.
            messages, _ = redact_messages(
                compaction_messages(previous, transcript), self.contexts.builder.redactor
            )
            reply = await self.runtime.complete(
                scope.inputs.model_for("compaction"),
                messages,
                None,
                agent=COMPACTION_AGENT,
                main_model=scope.inputs.main_model,
                allow_empty=True,  # an empty narrative still gets the ledger from the records
            )
        except CairnError as exc:
            scope.listener.on_log(f"compaction model call failed, ledger only: {exc}")
            return Narrative()
        scope.session.add_usage(reply.usage)
        return parse_narrative(reply.text)

    def record_summary(self, scope: TurnScope, part: CompactionPart | None) -> bool:
        """Measure and record a prepared summary (or report the stall); True when recorded."""
        session = scope.session
        messages = session.messages()
        before = self.contexts.demand(scope, messages).tokens
        if part is None or not _still_newer(messages, part):
            session.summarised_at = len(messages)
            self._event(scope, "failed", "summary", before, before, "stalled: nothing to cover")
            return False
        after = self.contexts.demand(scope, _with_marker(messages, part)).tokens
        if policy.is_stalled(before, after):
            session.summarised_at = len(messages)
            error = policy.stall_message(before, after)
            self._event(scope, "failed", "summary", before, after, error)
            return False
        part.tokens_before, part.tokens_after = before, after
        session.append_marker(part)
        session.summarised_at = len(messages)
        self._event(scope, "done", "summary", before, after)
        return True

    async def summarize(self, scope: TurnScope) -> bool:
        """A full compaction now (in the foreground); True when a summary was recorded."""
        messages = scope.session.messages()
        before = self.contexts.demand(scope, messages)
        self._event(scope, "start", "summary", before.tokens)
        part = await self.prepare_summary(scope, messages, before.available)
        return self.record_summary(scope, part)

    # -- background --------------------------------------------------------------

    def start_background(self, scope: TurnScope, demand: Demand) -> None:
        """Start preparing a summary ahead of the threshold, unless one runs or it stalled."""
        session = scope.session
        if session.compacting or not policy.should_start_early(
            demand.tokens, demand.window, self.settings.compaction_threshold
        ):
            return
        messages = session.messages()
        if not policy.may_summarise_again(len(messages), session.summarised_at):
            return
        if not self.worth_it(scope, demand):
            return
        self._event(scope, "start", "summary", demand.tokens)
        session.background = asyncio.create_task(
            self.prepare_summary(scope, messages, demand.available),
            name=f"compaction-{session.id}",
        )

    async def join(self, scope: TurnScope) -> None:
        """Record the background summary, waiting for it if it still runs."""
        session = scope.session
        task, session.background = session.background, None
        if task is None:
            return
        try:
            part = await task
        except CairnError as exc:
            before = self.contexts.demand(scope).tokens
            self._event(scope, "failed", "summary", before, None, str(exc))
            return
        self.record_summary(scope, part)

    # -- before each call --------------------------------------------------------

    async def before_call(self, scope: TurnScope) -> BuiltContext:
        """Join, prune, summarise when the next call would pass the threshold; its context."""
        session = scope.session
        await self.join(scope)
        self.prune(scope)
        built = self.contexts.build(scope)
        demand = demand_of(built)
        over = policy.needs_summary(
            demand.tokens, demand.window, self.settings.compaction_threshold, demand.overflow
        )
        retry = policy.may_summarise_again(len(session.messages()), session.summarised_at)
        if over and retry and self.worth_it(scope, demand) and await self.summarize(scope):
            built = self.contexts.build(scope)
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
        before = self.contexts.demand(scope).tokens
        pruned = self.prune(scope)
        session.summarised_at = None
        summarised = await self.summarize(scope)
        after = self.contexts.demand(scope).tokens
        kind = "summary" if summarised else "prune" if pruned else "none"
        return CompactResult(
            session_id=session.id, tokens_before=before, tokens_after=after, kind=kind
        )


def _with_marker(
    messages: Sequence[Message], part: CompactionPart, goal_id: str | None = None
) -> list[Message]:
    """`messages` plus a not-yet-recorded marker, to measure what it would free."""
    probe = Message(id="probe-marker", role="system", parts=[part], goal_id=goal_id)
    return [*messages, probe]


def _still_newer(messages: Sequence[Message], part: CompactionPart) -> bool:
    """A prepared summary must move the watermark forward (no other summary got there first)."""
    assert part.summary is not None
    state = read_state(messages)
    watermark = part.summary.covered_until_message_id
    index = next((i for i, m in enumerate(messages) if m.id == watermark), -1)
    return index > state.watermark_index
