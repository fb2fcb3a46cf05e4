"""The turn loop: build context → call the model → run tools → record → repeat.

A turn ends when the model answers without tool calls (`stop`), after
`settings.step_limit` model calls (`stepLimit`), on a model error, a second
reply with malformed tool-call JSON or a spent `turn_deadline_s` (`error`,
with a message), or when the awaiting task is cancelled (`cancelled`: the
text streamed so far is recorded, the turn is saved, and the cancellation
propagates). The turn record keeps its start snapshot, model, mode, usage,
finish reason and its patch: every change to the workspace between the start
snapshot and its end (`cairn.agent.sessions.snapshot`). Everything the turn shares
with its tools and the compactor is in its `TurnScope`.

Each retry of a model request is shown as a `retry` event, each finished
call's tokens and cost as a `usage` event. The model time of the turn (its
calls, retries and waits; not its tools) is bounded by `turn_deadline_s`. A
context-length refusal from the provider is recovered once
(`cairn.agent.turn.overflow`: the limit remembered, the session compacted) and
the call retried, its manifest saying why. Each call's manifest is recorded
after the call (whether it succeeded or not) with the usage the provider
reported — cached and cache-write input tokens beside the build's
prediction — and the context stats are sent then.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from cairn.agent.compaction.compactor import Compactor
from cairn.agent.ids import new_id
from cairn.agent.progress import retry_progress
from cairn.agent.scope.contexts import Contexts, demand_of
from cairn.agent.scope.turn_scope import TurnScope
from cairn.agent.sessions.session import Session
from cairn.agent.sessions.snapshot import StartSnapshot, TurnPatches
from cairn.agent.turn.overflow import recover
from cairn.agent.turn.tooling import ToolRunner
from cairn.context.builder import BuiltContext
from cairn.errors import BudgetError, CairnError, ContextLengthError, ModelError
from cairn.llm import ModelReply, ModelRuntime, RetryNotice, ToolCall
from cairn.llm.cache_hints import CacheHints
from cairn.models.base import utc_now
from cairn.models.events import TokenUsage, TurnEvent, TurnEventKind, TurnResult
from cairn.models.messages import Message, Part, ReasoningPart, TextPart, ToolCallPart
from cairn.models.session import FinishReason, Mode, Turn, Usage, add_by_source

# The second reply with malformed tool-call JSON in one turn ends the turn.
MAX_MALFORMED_REPLIES = 2
PATCH_ARTIFACT_KIND = "patch"


@dataclass
class TurnOutcome:
    finish: FinishReason
    error: str | None = None


@dataclass
class TurnLoop:
    """One turn of one session; `steps` is called once."""

    scope: TurnScope
    runtime: ModelRuntime
    contexts: Contexts
    # None when the scope runs without compaction (explore branches).
    compactor: Compactor | None
    tools: ToolRunner
    step_limit: int
    # The most seconds the turn's model calls may take together (`turn_deadline_s`).
    deadline_s: float
    patches: TurnPatches
    usage: Usage = field(default_factory=Usage)
    # Input tokens of the turn's calls per context source (their `ContextStats.by_source`).
    input_by_source: dict[str, int] = field(default_factory=dict)
    model_time_s: float = 0.0
    texts: list[str] = field(default_factory=list)
    _partial: list[str] = field(default_factory=list)
    _partial_reasoning: list[str] = field(default_factory=list)
    # Whether a retry's wait is being shown (`retry_progress`): the next event ends it.
    _retrying: bool = False

    @property
    def session(self) -> Session:
        return self.scope.session

    # -- events --------------------------------------------------------------

    def emit(self, kind: TurnEventKind, text: str | None = None, **fields: Any) -> None:
        if self._retrying and kind != "retry":
            self._retrying = False
            self.scope.listener.on_progress(retry_progress("end", self.session.id))
        self.scope.listener.on_turn_event(
            TurnEvent(
                session_id=self.session.id,
                turn_id=self.session.current_turn_id or "",
                kind=kind,
                text=text,
                **fields,
            )
        )

    def _on_retry(self, notice: RetryNotice) -> None:
        when = f"in {notice.wait_s:.1f} s" if notice.wait_s > 0 else "now"
        text = f"{notice.reason}; retrying {when} (request {notice.attempt})"
        self.emit("retry", text, attempt=notice.attempt, wait_s=notice.wait_s)
        stage = "report" if self._retrying else "begin"
        self._retrying = True
        progress = retry_progress(stage, self.session.id, text, notice.wait_s)
        self.scope.listener.on_progress(progress)

    def _on_usage(self, reply: ModelReply) -> None:
        usage = TokenUsage(
            input_tokens=reply.usage.input_tokens,
            output_tokens=reply.usage.output_tokens,
            cost=reply.usage.cost,
        )
        model = self.scope.inputs.model
        self.emit("usage", model=model, usage=usage, attempt=reply.requests)

    def _on_text(self, delta: str) -> None:
        self._partial.append(delta)
        self.emit("text", delta)

    def _on_reasoning(self, delta: str) -> None:
        self._partial_reasoning.append(delta)
        self.emit("reasoning", delta)

    # -- recording -----------------------------------------------------------

    def record_partial(self) -> None:
        """Record what the current call streamed before it was interrupted."""
        parts: list[Part] = []
        if reasoning := "".join(self._partial_reasoning):
            parts.append(ReasoningPart(text=reasoning))
        if text := "".join(self._partial):
            parts.append(TextPart(text=text))
            self.texts.append(text)
        if parts:
            self.session.append("assistant", parts)
        self._partial.clear()
        self._partial_reasoning.clear()

    def unique_calls(self, reply: ModelReply) -> ModelReply:
        """The reply with call ids made unique in the session (providers may repeat them)."""
        used = self.session.call_ids()
        calls: list[ToolCall] = []
        for call in reply.tool_calls:
            if call.call_id in used or not call.call_id:
                call = replace(call, call_id=new_id("call"))
            used.add(call.call_id)
            calls.append(call)
        return replace(reply, tool_calls=calls)

    def record_reply(self, reply: ModelReply) -> Message:
        parts: list[Part] = []
        if reply.reasoning:
            parts.append(ReasoningPart(text=reply.reasoning))
        if reply.text:
            parts.append(TextPart(text=reply.text))
            self.texts.append(reply.text)
        for call in reply.tool_calls:
            parts.append(
                ToolCallPart(call_id=call.call_id, name=call.name, arguments=call.arguments or {})
            )
        self._partial.clear()
        self._partial_reasoning.clear()
        return self.session.append("assistant", parts)

    # -- the loop --------------------------------------------------------------

    def time_left_s(self) -> float:
        return self.deadline_s - self.model_time_s

    async def _context(self, retry: tuple[str, str] | None) -> BuiltContext:
        """The next call's context; `retry` = (refused call id, why it is retried)."""
        scope = self.scope
        if self.compactor is not None and retry is None:
            built = await self.compactor.before_call(scope)
        else:
            _, built = await self.contexts.prepare(scope)
            self.contexts.record_attachments(scope, built)
        built.manifest.call_id = new_id("call")
        if retry is not None:
            built.manifest.retry_of, built.manifest.retry_reason = retry
        built.manifest.turn_id = scope.session.current_turn_id
        return built

    async def _request(self, built: BuiltContext) -> ModelReply:
        """One model call; its manifest is recorded after it, with the provider's usage."""
        scope = self.scope
        clock = self.runtime.timing.clock
        started = clock()
        built.manifest.at = utc_now()
        usage: Usage | None = None
        reported = False
        try:
            reply = await self.runtime.complete(
                scope.inputs.model,
                built.messages,
                scope.offer.schemas(),
                on_text=self._on_text,
                agent=scope.lane or None,
                on_reasoning=self._on_reasoning,
                on_retry=self._on_retry,
                main_model=scope.inputs.main_model,
                time_left_s=self.time_left_s(),
                cache=CacheHints(key=scope.session.id, breakpoints=built.breakpoints),
            )
            usage, reported = reply.usage, reply.usage_reported
            return reply
        finally:
            self.model_time_s += clock() - started
            # Recorded whether or not the call succeeded, with what the provider reported.
            self.contexts.commit(scope, built, usage, reported=reported)
            add_by_source(self.input_by_source, built.stats.by_source)
            scope.session.trace.append_manifest(built.manifest)
            scope.session.last_stats = built.stats
            scope.listener.on_context_stats(built.stats)

    async def _call(self) -> ModelReply:
        built = await self._context(None)
        try:
            reply = await self._request(built)
        except ContextLengthError as exc:
            self.record_partial()
            learned = await recover(self.scope, self.compactor, built, exc)
            self.scope.listener.on_learned_limit(learned)
            reason = learned.reason
            call_id = built.manifest.call_id or ""
            try:
                built = await self._context((call_id, reason))
            except BudgetError as small:
                raise ModelError(f"{reason.split(';')[0]}; then {small}") from small
            try:
                reply = await self._request(built)
            except ContextLengthError as again:
                raise ModelError(f"still too long after compacting: {again}") from again
        self.usage = self.usage.add(reply.usage)
        self._on_usage(reply)
        if reply.tool_calls and self.compactor is not None:
            self.compactor.start_background(self.scope, demand_of(built), reply.tool_calls)
        return reply

    def _deadline_passed(self) -> TurnOutcome | None:
        if self.time_left_s() > 0:
            return None
        return TurnOutcome(
            "error",
            f"the turn's model calls took {self.model_time_s:.1f} s, the most allowed"
            f" (turn_deadline_s = {self.deadline_s:g}); turn stopped",
        )

    async def steps(self) -> TurnOutcome:
        malformed = 0
        for _ in range(self.step_limit):
            spent = self._deadline_passed()
            if spent is not None:
                return spent
            try:
                reply = await self._call()
            except CairnError as exc:
                self.record_partial()
                return TurnOutcome("error", str(exc))
            reply = self.unique_calls(reply)
            assistant = self.record_reply(reply)
            if not reply.tool_calls:
                return TurnOutcome("stop")
            bad = [c.name for c in reply.tool_calls if c.arguments is None or c.error]
            for call in reply.tool_calls:
                await self.tools.run(call, assistant)
            if self.compactor is not None:
                await self.compactor.flush_folds(self.scope)
            if bad:
                malformed += 1
                if malformed >= MAX_MALFORMED_REPLIES:
                    return TurnOutcome(
                        "error",
                        f"the model sent malformed tool-call arguments {malformed} times "
                        f"(last: {', '.join(bad)}); turn stopped",
                    )
        return TurnOutcome("stepLimit", f"stopped after {self.step_limit} model calls (step_limit)")


def new_turn(
    session: Session,
    user_message: Message,
    snapshot: StartSnapshot,
    model: str | None,
    mode: Mode,
) -> Turn:
    turn_id = session.current_turn_id
    assert turn_id is not None
    return Turn(
        id=turn_id,
        user_message_id=user_message.id,
        start_head=snapshot.head,
        start_dirty_hash=snapshot.dirty_hash,
        start_tree=snapshot.tree,
        model=model,
        mode=mode,
    )


def finish_turn(loop: TurnLoop, turn: Turn, outcome: TurnOutcome, patch: str) -> TurnResult:
    """Save the turn's end (patch, usage, reason), tell the listener, and build the result."""
    if patch:
        turn.patch_artifact_id = loop.session.trace.write_artifact(patch, PATCH_ARTIFACT_KIND)
    own = loop.scope.edit_log.own_patch()
    if own:
        turn.own_patch_artifact_id = loop.session.trace.write_artifact(own, PATCH_ARTIFACT_KIND)
    turn.own_changes_recorded = True
    turn.ended_at = utc_now()
    turn.finish_reason = outcome.finish
    turn.error = outcome.error
    turn.usage = loop.usage
    turn.input_by_source = dict(loop.input_by_source)
    loop.session.save_turn(turn)
    if outcome.error is not None and outcome.finish != "cancelled":
        loop.emit("error", outcome.error)
    loop.emit("end", outcome.finish)
    return TurnResult(
        session_id=loop.session.id,
        turn_id=turn.id,
        finish_reason=outcome.finish,
        text=loop.texts[-1] if loop.texts else "",
        usage=TokenUsage(
            input_tokens=loop.usage.input_tokens,
            output_tokens=loop.usage.output_tokens,
            cost=loop.usage.cost,
        ),
        error=outcome.error,
        changed_files=loop.scope.edit_log.paths,
    )


async def turn_patch(loop: TurnLoop, turn: Turn) -> str:
    """The turn's whole patch; what the edit log knows if a second cancel interrupts it."""
    try:
        return await loop.patches.patch(turn.start_tree, loop.scope.edit_log)
    except asyncio.CancelledError:
        return loop.scope.edit_log.patch()


async def run_loop(loop: TurnLoop, turn: Turn, on_cancel: Callable[[], None]) -> TurnResult:
    """Run the loop to its end; on cancellation record the partial output, then re-raise."""
    try:
        outcome = await loop.steps()
    except asyncio.CancelledError:
        loop.record_partial()
        on_cancel()
        patch = await turn_patch(loop, turn)
        finish_turn(loop, turn, TurnOutcome("cancelled", "cancelled by the user"), patch)
        raise
    if loop.compactor is not None:
        # Goals the user finished while the last step ran are folded now.
        await loop.compactor.flush_folds(loop.scope)
    return finish_turn(loop, turn, outcome, await turn_patch(loop, turn))
