"""When the budget shrinks or drops a block the previous call sent, the break says so.

At a small window the selection may shrink the session preamble's repository
map or drop the profile in the middle of a turn; before, such a call's break
was recorded as "unexplained: preamble changed". A preamble block the budget
kept out also stays out (like history) until the next cache break, so it does
not come back and go again on every call.
"""

from __future__ import annotations

from cairn.context.blocks import Candidate, section
from cairn.context.cache import CacheView, break_reason
from cairn.context.degrade import DegradeContext
from cairn.context.prefix import PrefixEntry, PrefixMatch
from cairn.context.select import select, without_drops
from cairn.models.manifest import Source


def words(text: str) -> int:
    return len(text.split())


def _preamble(source: Source, priority: int, n: int) -> Candidate:
    candidate = section(source, priority, None, " ".join([source] * n), count=words, ref=source)
    candidate.block.zone = "preamble"
    return candidate


def _entries(*keys: tuple[str, str]) -> tuple[PrefixEntry, ...]:
    return tuple(PrefixEntry("preamble", key, version, 10) for key, version in keys)


def _changed_preamble() -> PrefixMatch:
    return PrefixMatch(entries=1, tokens=10, changed_zone="preamble")


def test_a_shrunk_preamble_block_is_a_budget_break() -> None:
    view = CacheView(previous=_entries(("rules:rules", "r1"), ("repomap:repomap", "m1")))
    reason = break_reason(view, _changed_preamble(), "m", {"repomap:repomap": "m2"})
    assert reason == "budget: 1 shrunk (1 block)"


def test_a_dropped_preamble_block_is_a_budget_break() -> None:
    view = CacheView(previous=_entries(("rules:rules", "r1"), ("profile:profile", "p1")))
    reason = break_reason(view, _changed_preamble(), "m", {"profile:profile": None})
    assert reason == "budget: 1 dropped (1 block)"


def test_a_change_the_budget_did_not_make_stays_unexplained() -> None:
    view = CacheView(previous=_entries(("rules:rules", "r1"), ("repomap:repomap", "m1")))
    # The map is in the same form as before, and a block never sent was dropped.
    budget = {"repomap:repomap": "m1", "profile:profile": None}
    assert break_reason(view, _changed_preamble(), "m", budget) == "unexplained: preamble changed"


def test_a_preamble_block_kept_out_by_the_budget_stays_out_until_a_break() -> None:
    ctx = DegradeContext(count=words)

    def candidates() -> list[Candidate]:
        system = section("system", 100, None, " ".join(["s"] * 350), count=words, required=True)
        return [system, _preamble("rules", 80, 10), _preamble("profile", 70, 40)]

    tight = select(candidates(), 380, ctx)
    assert [c.block.included for c in tight.candidates] == [True, True, False]
    # Room again in the next call of the turn: the profile would rewrite the prefix.
    roomy = select(candidates(), 1_000, ctx, tight.memo)
    assert [c.block.included for c in roomy.candidates] == [True, True, False]
    # After a cache break the engine forgets the drops, and it comes back.
    fresh = select(candidates(), 1_000, ctx, without_drops(tight.memo))
    assert all(c.block.included for c in fresh.candidates)
