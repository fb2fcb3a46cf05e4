"""When a cache break pays: folds and prunes rewrite history, so they cost a cache re-write (pure).

A change to history (a goal fold, a prune) makes every call after it send
fewer tokens, but the provider's cached prefix ends where the change
starts: the next call writes everything after that point again. Over the
`R` calls expected before the next break, with prices relative to an
uncached input token (`read` for a cached one, `write` for writing one):

- without the change, each call reads the `S` tokens after the break point
  from the cache: `R * S * read`;
- with it, the next call writes the `S - F` tokens left (`F` freed) and the
  others read them: `(S - F) * write + (R - 1) * (S - F) * read`.

The change pays when the difference, `R * F * read - (S - F) * (write -
read)`, is positive (`break_gain`). Pending changes are batched: the
engine measures all of them applied at once (one break point, the earliest;
their freed tokens added) and applies all or none. `decide_break` applies
them at once regardless of the gain when the budget needs the room (the
budget always wins), when the cache is cold anyway (idle past the
provider's lifetime, a model or mode switch, a new process) — then the
break costs nothing — or when the change is at the very end of the history
(a goal fold of the last messages: nothing after it is re-written but the
fold's own text). `refresh_preamble` applies the same reasoning to the
preamble at a turn's first call.
"""

from __future__ import annotations

from dataclasses import dataclass

from cairn.settings import CachePrice

# A turn that has made n calls is expected to make about n more (at least this many).
MIN_EXPECTED_REMAINING_CALLS = 4
# At most this many calls are expected (a turn rarely runs to its step limit).
MAX_EXPECTED_REMAINING_CALLS = 30
# A change re-writing at most this many tokens after its break point is "at the end".
AT_END_TOKENS = 512


@dataclass(frozen=True)
class BreakCandidate:
    """Pending history changes measured together: what they free and what they make re-written."""

    label: str
    # Tokens every later call no longer sends.
    freed: int
    # Tokens after the break point the next call must write again (after the change).
    rewritten: int


@dataclass(frozen=True)
class BreakDecision:
    apply: bool
    why: str


def expected_remaining_calls(calls_this_turn: int, calls_left: int) -> int:
    """Calls the prefix is expected to serve: as many as the turn made so far, within bounds."""
    guess = max(calls_this_turn, MIN_EXPECTED_REMAINING_CALLS)
    return max(0, min(guess, MAX_EXPECTED_REMAINING_CALLS, calls_left))


def break_gain(candidate: BreakCandidate, remaining_calls: int, price: CachePrice) -> float:
    """Input cost saved minus the re-write cost, in uncached-token units (positive: it pays)."""
    saved = remaining_calls * candidate.freed * price.read
    spent = candidate.rewritten * max(price.write - price.read, 0.0)
    return saved - spent


def is_at_end(candidate: BreakCandidate) -> bool:
    """True when (almost) nothing after the break point is re-written."""
    return candidate.rewritten <= AT_END_TOKENS


def decide_break(
    candidate: BreakCandidate,
    *,
    remaining_calls: int,
    price: CachePrice,
    budget_needs: bool,
    cold: str | None,
) -> BreakDecision:
    """Apply the pending changes now, or let them wait (see the module docstring)."""
    if candidate.freed <= 0:
        return BreakDecision(False, "frees nothing")
    if budget_needs:
        return BreakDecision(True, "the budget needs the room")
    if cold is not None:
        return BreakDecision(True, cold)
    if is_at_end(candidate):
        return BreakDecision(True, "at the end of the history")
    gain = break_gain(candidate, remaining_calls, price)
    verdict = "pays" if gain > 0 else "waits"
    why = (
        f"{verdict}: frees {candidate.freed} tokens over ~{remaining_calls} calls,"
        f" re-writes {candidate.rewritten}"
    )
    return BreakDecision(gain > 0, why)


def refresh_preamble(*, frozen: bool, forced: bool, cold: bool, files_changed: bool) -> bool:
    """Whether a turn's first call recomputes the preamble or keeps the one frozen before.

    A new preamble re-writes the whole cached history after it, and frees no
    token: it is made when there is none yet, when the cache breaks anyway
    (after a summary, a mode switch: `forced`; a cold cache), and when the
    files in play changed (their rules and the map's ranking are the point of
    it). For the same files, a map whose outlines or ranking merely moved is
    not worth a warm cache: the frozen one stays until the next break.
    """
    return not frozen or forced or cold or files_changed


def cold_reason(idle_s: float | None, lifetime_s: float) -> str | None:
    """Why the provider's cache is cold before this call (None: it is warm or there is none yet)."""
    if idle_s is None or idle_s <= lifetime_s:
        return None
    return f"cold cache (idle {format_duration(idle_s)})"


def format_duration(seconds: float) -> str:
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes} min {rest} s" if minutes else f"{rest} s"
