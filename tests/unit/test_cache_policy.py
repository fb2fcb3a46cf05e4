"""The cache-break policy as pure functions: when a prune or fold waits, when it fires."""

from __future__ import annotations

import pytest

from cairn.compaction.cache_policy import (
    AT_END_TOKENS,
    MAX_EXPECTED_REMAINING_CALLS,
    MIN_EXPECTED_REMAINING_CALLS,
    BreakCandidate,
    BreakDecision,
    break_gain,
    cold_reason,
    decide_break,
    expected_remaining_calls,
    refresh_preamble,
)
from cairn.settings import DEFAULT_CACHE_PRICES, CachePrice, validate_settings

ANTHROPIC = DEFAULT_CACHE_PRICES["anthropic"]
OPENAI = DEFAULT_CACHE_PRICES["openai"]
NO_CACHE = DEFAULT_CACHE_PRICES["none"]


def decide(
    candidate: BreakCandidate,
    calls: int,
    price: CachePrice = ANTHROPIC,
    *,
    budget_needs: bool = False,
    cold: str | None = None,
) -> BreakDecision:
    return decide_break(
        candidate, remaining_calls=calls, price=price, budget_needs=budget_needs, cold=cold
    )


def test_a_prune_deep_in_a_warm_cache_waits_until_it_pays() -> None:
    # 18k freed, 40k of cached history behind the break point re-written at 1.25x.
    prune = BreakCandidate("prune 18k", freed=18_000, rewritten=40_000)
    # Pays when calls x freed x 0.1 > rewritten x (1.25 - 0.1): here after 26 calls.
    assert not decide(prune, 20).apply
    assert "waits" in decide(prune, 20).why
    assert decide(prune, 26).apply
    assert break_gain(prune, 26, ANTHROPIC) > 0 > break_gain(prune, 25, ANTHROPIC)


def test_a_larger_batch_pays_sooner() -> None:
    alone = BreakCandidate("prune 9k", freed=9_000, rewritten=40_000)
    batch = BreakCandidate("prune 9k; fold goal 2", freed=30_000, rewritten=19_000)
    assert not decide(alone, 12).apply
    assert decide(batch, 12).apply


def test_openai_prices_have_no_write_premium_so_breaks_pay_sooner() -> None:
    prune = BreakCandidate("prune 18k", freed=18_000, rewritten=40_000)
    assert break_gain(prune, 20, OPENAI) > break_gain(prune, 20, ANTHROPIC)
    assert decide(prune, 21, OPENAI).apply and not decide(prune, 21).apply


def test_without_a_cache_any_freed_token_pays() -> None:
    assert decide(BreakCandidate("prune 1k", freed=1_000, rewritten=90_000), 1, NO_CACHE).apply


def test_a_cold_cache_applies_pending_changes_at_once() -> None:
    prune = BreakCandidate("prune 18k", freed=18_000, rewritten=60_000)
    decision = decide(prune, 1, cold="cold cache (idle 6 min 0 s)")
    assert decision.apply and decision.why == "cold cache (idle 6 min 0 s)"
    assert cold_reason(None, 300) is None  # no previous call
    assert cold_reason(299.0, 300) is None
    assert cold_reason(360.0, 300) == "cold cache (idle 6 min 0 s)"
    assert cold_reason(45.5, 30) == "cold cache (idle 45 s)"


def test_the_budget_always_wins() -> None:
    prune = BreakCandidate("prune 2k", freed=2_000, rewritten=100_000)
    assert not decide(prune, 4).apply
    decision = decide(prune, 0, budget_needs=True)
    assert decision.apply and "budget" in decision.why


def test_a_fold_of_the_last_messages_is_immediate() -> None:
    fold = BreakCandidate("fold goal 3", freed=5_000, rewritten=AT_END_TOKENS)
    assert decide(fold, 0).apply and decide(fold, 0).why == "at the end of the history"
    deep = BreakCandidate("fold goal 1", freed=5_000, rewritten=30_000)
    assert not decide(deep, 4).apply


def test_nothing_freed_never_breaks_the_cache() -> None:
    nothing = BreakCandidate("prune 0k", freed=0, rewritten=0)
    assert not decide(nothing, 9).apply
    assert not decide(nothing, 9, budget_needs=True).apply
    assert not decide(nothing, 9, cold="cold cache (idle 9 min 0 s)").apply


@pytest.mark.parametrize(
    ("made", "left", "expected"),
    [
        (0, 50, MIN_EXPECTED_REMAINING_CALLS),
        (10, 50, 10),
        (45, 5, 5),
        (200, 500, MAX_EXPECTED_REMAINING_CALLS),
        (3, 0, 0),
    ],
)
def test_expected_remaining_calls(made: int, left: int, expected: int) -> None:
    assert expected_remaining_calls(made, left) == expected


def test_prices_are_configurable_per_cache_family() -> None:
    settings = validate_settings({"cache_prices": {"openai": {"read": 0.5, "write": 1.0}}})
    assert settings.cache_price("openai") == CachePrice(read=0.5, write=1.0)
    assert settings.cache_price("anthropic") == ANTHROPIC
    prune = BreakCandidate("prune 18k", freed=18_000, rewritten=40_000)
    assert break_gain(prune, 10, settings.cache_price("openai")) > break_gain(prune, 10, OPENAI)


def test_the_preamble_is_recomputed_only_when_a_warm_cache_is_worth_breaking() -> None:
    warm = {"frozen": True, "forced": False, "cold": False, "files_changed": False}
    assert not refresh_preamble(**warm)  # same files, warm cache: keep the frozen one
    assert refresh_preamble(**{**warm, "frozen": False})  # none yet
    assert refresh_preamble(**{**warm, "forced": True})  # after a summary or a mode switch
    assert refresh_preamble(**{**warm, "cold": True})  # the cache is gone anyway
    assert refresh_preamble(**{**warm, "files_changed": True})  # other files in play
