"""One session at run time: its trace, its goal tree and what runs in it right now.

A `Session` wraps the `Trace` (the record) with the run-time state the
record does not hold: the lock that keeps turns one at a time, the goal
folds waiting for the end of the current step and those the cache-break
policy deferred, the background compaction task, the stall mark, the
prompt-cache state (`SessionCache`) and the scripted model's cursor (saved
in the trace, so a resumed session continues its script). Every message written through
`append` carries the focused goal and the current turn.

A session keeps its model (`session_model`): a turn runs on the model given
for it, else on the session's, unless the model setting changed since the
session last ran (a new choice the user made); a turn on another model than
the session's is recorded as a switch. The context limits providers
reported are kept for the session's later calls, until the user clears them
(`forget_limits`). Each change of the
metadata is recorded in the trace's journal before `meta.json` is saved, so
a damaged `meta.json` is rebuilt with it (`cairn.trace.rebuild`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

from cairn.agent.ids import message_id
from cairn.agent.sessions.cache_state import SessionCache
from cairn.compaction.goal_fold import FoldVerb
from cairn.goals import render_tree
from cairn.llm.script import ScriptCursor
from cairn.models.events import GoalTreeView
from cairn.models.goals import GoalTree, GoalVerb
from cairn.models.manifest import ContextStats
from cairn.models.messages import (
    CompactionPart,
    GoalOpPart,
    Message,
    Part,
    Role,
    SubtaskPart,
    ToolCallPart,
)
from cairn.models.session import (
    AllowRecord,
    ForgetLimitsRecord,
    LimitRecord,
    ModelSetting,
    SessionMeta,
    Turn,
    TurnRecord,
    Usage,
    UsageRecord,
    add_by_source,
    narrows_limit,
    title_of,
)
from cairn.trace import Trace


@dataclass(frozen=True)
class PendingFold:
    """A goal finished during a step; folded once the step's tool results are recorded."""

    goal_id: str
    verb: FoldVerb
    summary: str


def session_model(explicit: str | None, configured: str | None, meta: SessionMeta) -> str | None:
    """The model of the session's next turn (see the module docstring)."""
    if explicit:
        return explicit
    last = meta.model if meta.turns else None
    if last is None or (configured is not None and configured != meta.configured_model):
        return configured
    return last


@dataclass(frozen=True)
class DeferredFold:
    """A goal fold measured and left for later: it would re-write more cache than it saves."""

    goal_id: str
    part: CompactionPart


class Session:
    """A session of the engine: the trace plus run-time state."""

    def __init__(self, trace: Trace) -> None:
        self.trace = trace
        self.id = trace.id
        self.turn_lock = asyncio.Lock()
        self.current_turn_id: str | None = None
        self.pending_folds: list[PendingFold] = []
        # Folds the cache-break policy deferred (applied with the next break that pays).
        self.deferred_folds: list[DeferredFold] = []
        # SubtaskParts of the explore call running now, recorded with its result.
        self.pending_subtasks: list[SubtaskPart] = []
        self.background: asyncio.Task[CompactionPart | None] | None = None
        # Message count at the last summary attempt (recorded or stalled).
        self.summarised_at: int | None = None
        self.cache = SessionCache()
        # The last context figure built for the session (a real call's or the meter's).
        self.last_stats: ContextStats | None = None
        # The scripted model's used lines (`scripted/<path>` models only; see cairn.llm.script).
        self.script_cursor = ScriptCursor(trace)

    # -- goals ---------------------------------------------------------------

    def goals(self) -> GoalTree:
        return self.trace.goals()

    def focused_goal(self) -> str | None:
        return self.trace.goals().current_id

    def goal_view(self) -> GoalTreeView:
        tree = self.trace.goals()
        return GoalTreeView(session_id=self.id, tree=tree, rendered=render_tree(tree))

    # -- messages ------------------------------------------------------------

    def messages(self) -> list[Message]:
        return self.trace.messages()

    def call_ids(self) -> set[str]:
        """Every tool call id already used in the session."""
        return {
            part.call_id
            for message in self.trace.messages()
            for part in message.parts
            if isinstance(part, ToolCallPart)
        }

    def append(
        self,
        role: Role,
        parts: Sequence[Part],
        *,
        goal_id: str | None = None,
        use_focus: bool = True,
        agent: str | None = None,
    ) -> Message:
        """Record a message of the current turn; `goal_id` defaults to the focused goal."""
        goal = goal_id if goal_id is not None or not use_focus else self.focused_goal()
        message = Message(
            id=message_id(),
            role=role,
            parts=list(parts),
            goal_id=goal,
            turn_id=self.current_turn_id,
            agent=agent,
        )
        self.trace.append_message(message)
        return message

    def append_marker(self, part: CompactionPart, goal_id: str | None = None) -> Message:
        """Record a compaction marker (a system message the context builder applies)."""
        return self.append("system", [part], goal_id=goal_id, use_focus=False)

    def record_goal_op(self, verb: GoalVerb, text: str) -> Message:
        """Record the user's change to the goal tree (before `goal.json` is saved)."""
        return self.append("system", [GoalOpPart(verb=verb, text=text)], use_focus=False)

    def record_goal_seed(self, tree: GoalTree) -> Message:
        """Record the plan an explore branch starts from."""
        part = GoalOpPart(verb="seed", tree=tree, by="harness")
        return self.append("system", [part], use_focus=False)

    # -- meta ----------------------------------------------------------------

    def meta(self) -> SessionMeta:
        return self.trace.meta()

    def never_answered(self) -> bool:
        """Every turn so far failed without a reply from the model (or there is none):
        the session's title and mission still wait for a prompt that works."""
        return all(
            t.finish_reason == "error" and t.usage.output_tokens == 0
            for t in self.trace.meta().turns
        )

    def start_turn(self, turn: Turn, title: str, configured_model: str | None = None) -> None:
        """Record a turn's start (journal first, then meta); the first prompt (or the
        first after failed ones) titles the session; its model becomes the session's (a
        switch is noted on it, and its start record keeps the model setting)."""
        retitle = self.never_answered()
        meta = self.trace.meta()
        if (not meta.title or retitle) and title:
            meta.title = title_of(title)
        setting = None
        if turn.model is not None:
            if meta.turns and meta.model not in (None, turn.model):
                turn.switched_from = meta.model
            meta.model = turn.model
            meta.configured_model = configured_model
            setting = ModelSetting(model=configured_model)
        self.trace.append_record(TurnRecord(turn=turn, setting=setting))
        meta.turns.append(turn)
        meta.updated_at = turn.started_at
        self.trace.save_meta(meta)

    def save_turn(self, turn: Turn) -> None:
        """Record a turn's end: replace its record in meta and add its usage to the totals."""
        self.trace.append_record(TurnRecord(turn=turn))
        meta = self.trace.meta()
        meta.turns = [turn if t.id == turn.id else t for t in meta.turns]
        meta.usage = meta.usage.add(turn.usage)
        add_by_source(meta.input_by_source, turn.input_by_source)
        meta.updated_at = turn.ended_at or meta.updated_at
        self.trace.save_meta(meta)

    def allow_command(self, command: str) -> None:
        """Allow `command` without asking for the rest of the session (journal, then meta)."""
        meta = self.trace.meta()
        if command not in meta.allowed_commands:
            self.trace.append_record(AllowRecord(command=command))
            meta.allowed_commands.append(command)
            self.trace.save_meta(meta)

    def add_usage(self, usage: Usage) -> None:
        """Usage spent outside the turn's own calls (a compaction call)."""
        self.trace.append_record(UsageRecord(usage=usage))
        meta = self.trace.meta()
        meta.usage = meta.usage.add(usage)
        self.trace.save_meta(meta)

    def context_limit(self, model: str) -> int | None:
        """The context window a provider reported for `model` in this session, if any."""
        return self.trace.meta().context_limits.get(model)

    def remember_limit(self, model: str, tokens: int) -> None:
        """Keep a provider-reported context window (the smaller one when there are several;
        journal, then meta)."""
        meta = self.trace.meta()
        if not narrows_limit(meta.context_limits, model, tokens):
            return
        self.trace.append_record(LimitRecord(model=model, tokens=tokens))
        meta.context_limits[model] = tokens
        self.trace.save_meta(meta)

    def forget_limits(self, models: Sequence[str] = ()) -> dict[str, int]:
        """Clear the context windows providers reported for `models` (all of them when empty;
        journal, then meta); the limits cleared."""
        meta = self.trace.meta()
        wanted = set(models) if models else set(meta.context_limits)
        cleared = {m: t for m, t in meta.context_limits.items() if m in wanted}
        if not cleared:
            return {}
        self.trace.append_record(ForgetLimitsRecord(models=sorted(cleared)))
        for model in cleared:
            del meta.context_limits[model]
        self.trace.save_meta(meta)
        return cleared

    @property
    def compacting(self) -> bool:
        return self.background is not None and not self.background.done()
