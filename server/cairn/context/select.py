"""Whole-block selection under the input budget.

Policy (pure, no I/O besides the degrade context's artifact store):
1. Required blocks (harness rules, the current user message) are always
   kept. When they alone exceed the budget → BudgetError naming the numbers.
2. The others are visited by priority, highest first; equal priorities keep
   the candidates' order (sources list their most relevant blocks first, and
   history lists the newest first).
3. A block is kept whole when it fits both the tokens left and its share
   (`MAX_BLOCK_SHARE` of the input budget), and, for a minified text (a
   bundle, one-line JSON: `context.kinds`), `MINIFIED_WHOLE_MAX_TOKENS`
   whatever the window (`whole_limit`). Otherwise it is degraded to a
   faithful smaller form (degrade.py) that fits, or dropped with a reason.
4. History is dropped oldest first: once a history block is dropped for lack
   of budget, every older history block is dropped too, so the conversation
   the model sees has no holes made by the budget.
5. Stable across calls: the outcome of every preamble and history block is
   remembered (`SelectionMemo`, keyed by source, ref and content hash). In
   the next call a block degraded before keeps the same degraded form while
   it fits, and history dropped for the budget stays dropped (with every
   older message) until the engine clears the memo at a cache break, so the
   prefix the provider cached does not change under it. A block kept whole
   stays whole while it fits; when it no longer does, the budget wins.
6. The latest tool result (`latest_tool_result`: the agent's own newest work)
   is never dropped while something less important is shown: when it cannot
   fit even degraded, every lower-priority block is dropped too.
A candidate that arrives already excluded (a refused reference or file, with
its reason) stays excluded. The sum of kept blocks' tokens never exceeds the
budget.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from cairn.context.blocks import Candidate
from cairn.context.degrade import DegradeContext, degrade
from cairn.context.kinds import text_kind
from cairn.context.priorities import MAX_BLOCK_SHARE, MINIFIED_WHOLE_MAX_TOKENS
from cairn.context.zones import ZONE_HISTORY, ZONE_PREAMBLE
from cairn.errors import BudgetError

# Zones whose blocks' outcomes are remembered from one call to the next.
MEMO_ZONES: frozenset[str] = frozenset({ZONE_PREAMBLE, ZONE_HISTORY})
BUDGET_DROP_PREFIX = "over budget"

MemoKey = tuple[str, str, str]


@dataclass(frozen=True)
class Outcome:
    """What selection did with a block: kept whole, degraded (the form used), or dropped."""

    kept: bool
    degraded: Candidate | None = None
    reason: str | None = None


SelectionMemo = Mapping[MemoKey, Outcome]
LATEST_RESULT_DROPPED = (
    "over budget: the latest tool result did not fit, so nothing less important is shown"
)


@dataclass
class Selection:
    """The candidates in their input order, each marked included (maybe degraded) or dropped."""

    candidates: list[Candidate]
    available: int
    used: int
    memo: dict[MemoKey, Outcome] = field(default_factory=dict)

    @property
    def included(self) -> list[Candidate]:
        return [c for c in self.candidates if c.block.included]


def memo_key(candidate: Candidate) -> MemoKey | None:
    """The key a block's outcome is remembered by (None outside the memo zones)."""
    block = candidate.block
    if block.zone not in MEMO_ZONES:
        return None
    return (block.source, block.ref or "", block.version)


def _stays_out(candidate: Candidate) -> bool:
    """Whether a block the budget kept out of an earlier call stays out until a cache break:
    history, and the session preamble (frozen between its recompute points, so a block
    coming back in mid-turn would rewrite everything after it)."""
    return candidate.is_history or candidate.block.zone == ZONE_PREAMBLE


def without_drops(memo: SelectionMemo) -> dict[MemoKey, Outcome]:
    """The memo with its budget drops forgotten (after a cache break they may come back)."""
    return {key: outcome for key, outcome in memo.items() if outcome.kept}


def share_limit(available: int) -> int:
    """The most tokens one non-required block may use."""
    return int(available * MAX_BLOCK_SHARE)


def whole_limit(candidate: Candidate, limit: int) -> int:
    """The most tokens `candidate` may have to be kept whole: `limit`, or less for a large
    minified text (its kind is judged only when it is over the minified cap)."""
    block = candidate.block
    if candidate.is_history or block.kind == "message" or block.tokens <= MINIFIED_WHOLE_MAX_TOKENS:
        return limit
    if text_kind(block.ref, candidate.body, block.kind) != "minified":
        return limit
    return min(limit, MINIFIED_WHOLE_MAX_TOKENS)


def _check_required(required: list[Candidate], available: int) -> int:
    need = sum(c.block.tokens for c in required)
    if need > available:
        detail = ", ".join(f"{c.block.source} {c.block.tokens}" for c in required)
        raise BudgetError(
            f"the blocks that are never dropped need {need} tokens ({detail}) but only"
            f" {available} tokens are available for input; shorten the message or use a"
            " model with a larger context window"
        )
    return need


def _dropped(candidate: Candidate, reason: str) -> Candidate:
    candidate.block = candidate.block.model_copy(update={"included": False, "reason": reason})
    return candidate


def _tried(ctx: DegradeContext) -> str:
    """What the last degrade tried, for a drop reason (empty when nothing was)."""
    return f"; {ctx.tried}" if ctx.tried else ""


def latest_tool_result(candidates: list[Candidate]) -> int | None:
    """The index of the newest history block holding a tool result, if any."""
    found: int | None = None
    for index, candidate in enumerate(candidates):
        if not candidate.is_history or not candidate.messages:
            continue
        if any(m.get("role") == "tool" for m in candidate.messages) and (
            found is None or candidate.seq > candidates[found].seq
        ):
            found = index
    return found


def _remembered(prior: Outcome | None, limit: int) -> Candidate | None:
    """The degraded form chosen in an earlier call, when it still fits."""
    if prior is None or prior.degraded is None or prior.degraded.block.tokens > limit:
        return None
    form = prior.degraded
    return replace(form, block=form.block.model_copy(), artifacts=dict(form.artifacts))


def _outcome(original: Candidate, chosen: Candidate) -> Outcome:
    if chosen.block.included:
        degraded = chosen if chosen.block.version != original.block.version else None
        return Outcome(kept=True, degraded=degraded)
    return Outcome(kept=False, reason=chosen.block.reason)


def _fitted(
    candidate: Candidate,
    prior: Outcome | None,
    left: int,
    cap: int,
    available: int,
    ctx: DegradeContext,
) -> tuple[Candidate, bool]:
    """The candidate within what is `left` and one block's share `cap` (whole, the degraded
    form remembered from an earlier call, or degraded now) and True; else its drop and False."""
    tokens = candidate.block.tokens
    limit = min(left, cap)
    whole = whole_limit(candidate, limit)
    chosen = _remembered(prior, limit) or (
        candidate if tokens <= whole else degrade(candidate, whole, ctx)
    )
    if chosen is not None and chosen.block.tokens <= limit:
        return chosen, True
    if tokens > left:
        reason = f"{BUDGET_DROP_PREFIX}: needs {tokens} tokens, {left} left{_tried(ctx)}"
        return _dropped(candidate, reason), False
    reason = (
        f"over its share: needs {tokens} tokens, one block may use at most {cap}"
        f" of {available}{_tried(ctx)}"
    )
    return _dropped(candidate, reason), False


def select(
    candidates: list[Candidate],
    available: int,
    ctx: DegradeContext,
    memo: SelectionMemo | None = None,
) -> Selection:
    """Choose whole blocks so that their tokens fit `available` (stable under `memo`)."""
    result = list(candidates)
    required = [c for c in result if c.block.required]
    used = _check_required(required, available)
    cap = share_limit(available)
    history_cut = float("-inf")
    remembered = memo or {}
    order = sorted(
        (i for i, c in enumerate(result) if not c.block.required and c.block.included),
        key=lambda i: -result[i].block.priority,
    )
    outcomes: dict[MemoKey, Outcome] = {}
    protected, floor = latest_tool_result(result), -1
    for index in order:
        candidate = result[index]
        key = memo_key(candidate)
        prior = remembered.get(key) if key is not None else None
        left = available - used
        tokens = candidate.block.tokens
        if candidate.block.priority < floor:
            result[index] = _dropped(candidate, LATEST_RESULT_DROPPED)
            continue
        if candidate.is_history and candidate.seq < history_cut:
            result[index] = _dropped(
                candidate, "over budget: a newer message was dropped, older history goes first"
            )
        elif prior is not None and not prior.kept and _stays_out(candidate):
            # Kept out since an earlier call: bringing it back would break the cached prefix.
            result[index] = _dropped(candidate, prior.reason or BUDGET_DROP_PREFIX)
            if candidate.is_history:
                history_cut = max(history_cut, candidate.seq)
        else:
            result[index], fits = _fitted(candidate, prior, left, cap, available, ctx)
            if fits:
                used += result[index].block.tokens
            elif tokens > left and candidate.is_history:
                history_cut = max(history_cut, candidate.seq)
        if index == protected and not result[index].block.included:
            floor = candidate.block.priority
        if key is not None:
            outcomes[key] = _outcome(candidate, result[index])
    return Selection(candidates=result, available=available, used=used, memo=outcomes)
