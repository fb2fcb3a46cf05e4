"""Whole-block selection under the input budget.

Policy (pure, no I/O besides the degrade context's artifact store):
1. Required blocks (harness rules, the current user message) are always
   kept. When they alone exceed the budget → BudgetError naming the numbers.
2. The others are visited by priority, highest first; equal priorities keep
   the candidates' order (sources list their most relevant blocks first, and
   history lists the newest first).
3. A block is kept whole when it fits both the tokens left and its share
   (`MAX_BLOCK_SHARE` of the input budget). Otherwise it is degraded to a
   faithful smaller form (degrade.py) that fits, or dropped with a reason.
4. History is dropped oldest first: once a history block is dropped for lack
   of budget, every older history block is dropped too, so the conversation
   the model sees has no holes made by the budget.
A candidate that arrives already excluded (a refused reference or file, with
its reason) stays excluded. The sum of kept blocks' tokens never exceeds the
budget.
"""

from __future__ import annotations

from dataclasses import dataclass

from cairn.context.blocks import Candidate
from cairn.context.degrade import DegradeContext, degrade
from cairn.context.priorities import MAX_BLOCK_SHARE
from cairn.errors import BudgetError


@dataclass
class Selection:
    """The candidates in their input order, each marked included (maybe degraded) or dropped."""

    candidates: list[Candidate]
    available: int
    used: int

    @property
    def included(self) -> list[Candidate]:
        return [c for c in self.candidates if c.block.included]


def share_limit(available: int) -> int:
    """The most tokens one non-required block may use."""
    return int(available * MAX_BLOCK_SHARE)


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


def select(candidates: list[Candidate], available: int, ctx: DegradeContext) -> Selection:
    """Choose whole blocks so that their tokens fit `available`."""
    result = list(candidates)
    required = [c for c in result if c.block.required]
    used = _check_required(required, available)
    cap = share_limit(available)
    history_cut = float("-inf")
    order = sorted(
        (i for i, c in enumerate(result) if not c.block.required and c.block.included),
        key=lambda i: -result[i].block.priority,
    )
    for index in order:
        candidate = result[index]
        left = available - used
        tokens = candidate.block.tokens
        if candidate.is_history and candidate.seq < history_cut:
            result[index] = _dropped(
                candidate, "over budget: a newer message was dropped, older history goes first"
            )
            continue
        limit = min(left, cap)
        chosen: Candidate | None = candidate if tokens <= limit else degrade(candidate, limit, ctx)
        if chosen is not None and chosen.block.tokens <= limit:
            result[index] = chosen
            used += chosen.block.tokens
            continue
        if tokens > left:
            reason = f"over budget: needs {tokens} tokens, {left} left"
            if candidate.is_history:
                history_cut = max(history_cut, candidate.seq)
        else:
            reason = (
                f"over its share: needs {tokens} tokens, one block may use at most {cap}"
                f" of {available}"
            )
        result[index] = _dropped(candidate, reason)
    return Selection(candidates=result, available=available, used=used)
