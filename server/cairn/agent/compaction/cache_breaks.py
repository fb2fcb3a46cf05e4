"""Measuring pending history changes against the prompt cache, on one snapshot (no I/O).

A goal fold or a prune is measured by assembling the same snapshot twice,
without and with its markers (probe messages appended to the history):
what it frees is the difference of the two demands, and where it breaks
the cache is where the two prefixes part. What it costs is the part of the
previous call's cached prefix after that point that the next call must
write again (`BreakCandidate.rewritten`). `decide` asks the pure policy
(`cairn.compaction.cache_policy`) with the prices of the model's cache
family (`settings.cache_price`), the calls the turn is expected to make
still, whether the budget needs the room and whether the cache is cold
anyway (idle past its lifetime, a model or mode switch). `measure_async`
assembles on a worker thread (the turn's own measurements), `fold_change`
makes a finished goal's fold marker a change to measure, `pending_changes`
lists the deferred folds and the planned prune, `finishes_goal` says whether
a step's tool calls will fold the focused goal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import get_args

from cairn.agent.scope.contexts import Contexts, demand_of
from cairn.agent.scope.prompt_cache import MODE_SWITCH, mode_switched
from cairn.agent.scope.turn_scope import TurnScope
from cairn.agent.sessions.session import PendingFold
from cairn.agent.tools.goal import Goal
from cairn.compaction.cache_policy import (
    BreakCandidate,
    BreakDecision,
    decide_break,
    expected_remaining_calls,
)
from cairn.compaction.goal_fold import FoldVerb, fold_goal
from cairn.compaction.prune import plan_prune
from cairn.compaction.retention import Retention
from cairn.context.builder import BuiltContext
from cairn.context.prefix import common_prefix, entries_of
from cairn.context.snapshot import ContextSnapshot
from cairn.goals import find_goal, goal_subtree_ids
from cairn.llm.cache_hints import model_cache_price
from cairn.llm.reply import ToolCall
from cairn.models.messages import CompactionPart, Message
from cairn.tokens.counter import counter_for

PROBE_ID = "probe-marker"
TOKENS_PER_K = 1_000
FOLD_VERBS: tuple[FoldVerb, ...] = get_args(FoldVerb)


@dataclass(frozen=True)
class Change:
    """One pending history change: its marker, the goal it folds (if any), its label."""

    part: CompactionPart
    label: str
    goal_id: str | None = None


@dataclass(frozen=True)
class Measured:
    """The context without and with the changes, and what applying them costs and frees."""

    before: BuiltContext
    after: BuiltContext
    candidate: BreakCandidate


def fold_change(scope: TurnScope, fold: PendingFold) -> Change | None:
    """The fold marker of a finished goal as a change (None: nothing to fold)."""
    tree = scope.session.goals()
    goal = find_goal(tree, fold.goal_id)
    if goal is None:
        return None
    subtree = goal_subtree_ids(tree, fold.goal_id)
    part = fold_goal(scope.session.messages(), goal, subtree, fold.verb, fold.summary)
    if part is None:
        return None
    return Change(part=part, label=f"fold goal {fold.goal_id}", goal_id=fold.goal_id)


def pending_changes(
    scope: TurnScope, knobs: Retention, protected_tools: Sequence[str]
) -> list[Change]:
    """The deferred folds and the prune that would apply now (`knobs`: the retention for
    the call's window), as changes."""
    session = scope.session
    changes = [
        Change(part=d.part, label=f"fold goal {d.goal_id}", goal_id=d.goal_id)
        for d in session.deferred_folds
    ]
    plan = plan_prune(
        session.messages(),
        counter_for(scope.inputs.model),
        minimum=knobs.prune_minimum,
        protect=knobs.prune_protect,
        protected_tools=protected_tools,
        skip_turns=knobs.prune_skip_turns,
    )
    if plan is not None:
        label = f"prune {round(plan.freed_tokens / TOKENS_PER_K)}k"
        changes.append(Change(part=plan.marker(0, 0), label=label))
    return changes


def finishes_goal(calls: Sequence[ToolCall]) -> bool:
    """Whether one of a step's `calls` finishes the focused goal (`goal` done or abandon),
    so its fold follows at the step's end."""
    return any(
        call.name == Goal.name and any((call.arguments or {}).get(verb) for verb in FOLD_VERBS)
        for call in calls
    )


def with_markers(messages: Sequence[Message], changes: Sequence[Change]) -> list[Message]:
    """`messages` plus not-yet-recorded markers, to measure what they would free."""
    probes = [
        Message(id=f"{PROBE_ID}-{i}", role="system", parts=[c.part], goal_id=c.goal_id)
        for i, c in enumerate(changes)
    ]
    return [*messages, *probes]


def measure(
    contexts: Contexts,
    scope: TurnScope,
    snapshot: ContextSnapshot,
    messages: Sequence[Message],
    changes: Sequence[Change],
) -> Measured:
    """Assemble `snapshot` over `messages` without and with `changes` (see the module docstring)."""
    before = contexts.assemble(scope, snapshot.with_history(messages))
    after = contexts.assemble(scope, snapshot.with_history(with_markers(messages, changes)))
    return _measured(contexts, scope, before, after, changes)


async def measure_async(
    contexts: Contexts,
    scope: TurnScope,
    snapshot: ContextSnapshot,
    messages: Sequence[Message],
    changes: Sequence[Change],
) -> Measured:
    """`measure` with both assemblies on a worker thread."""
    before = await contexts.assemble_async(scope, snapshot.with_history(messages))
    marked = snapshot.with_history(with_markers(messages, changes))
    after = await contexts.assemble_async(scope, marked)
    return _measured(contexts, scope, before, after, changes)


def _measured(
    contexts: Contexts,
    scope: TurnScope,
    before: BuiltContext,
    after: BuiltContext,
    changes: Sequence[Change],
) -> Measured:
    freed = demand_of(before).tokens - demand_of(after).tokens
    previous = contexts.cache.previous(scope.session)
    cached = common_prefix(entries_of(previous), before.prefix).tokens if previous else 0
    shared = common_prefix(before.prefix, after.prefix).tokens
    rewritten = max(0, cached - shared - max(freed, 0))
    label = "; ".join(c.label for c in changes)
    return Measured(before, after, BreakCandidate(label=label, freed=freed, rewritten=rewritten))


def cold_now(contexts: Contexts, scope: TurnScope) -> str | None:
    """Why the provider's cache cannot be read by the next call anyway (None: it is warm)."""
    if mode_switched(scope):
        return MODE_SWITCH
    return contexts.cache.cold(scope)


def decide(
    contexts: Contexts,
    scope: TurnScope,
    candidate: BreakCandidate,
    *,
    budget_needs: bool,
) -> BreakDecision:
    """The policy's answer for `candidate` in this scope's session."""
    settings = contexts.config.current
    session = scope.session
    made = session.cache.calls_this_turn(session.current_turn_id)
    remaining = expected_remaining_calls(made, max(settings.step_limit - made, 0))
    return decide_break(
        candidate,
        remaining_calls=remaining,
        price=model_cache_price(settings, scope.inputs.model),
        budget_needs=budget_needs,
        cold=cold_now(contexts, scope),
    )
