"""When to compact: thresholds and stall detection as small pure functions.

Modelled on OpenCode's `session/overflow.ts`: the agent asks these before
every model call and after every reply; nothing here has state.
"""

from __future__ import annotations

# A full compaction that frees less than this share of the context is "stalled".
STALL_MIN_FREED_FRACTION = 0.05
# Background compaction starts this share of the window before the threshold.
BACKGROUND_LEAD_FRACTION = 0.1
# After a summary attempt (recorded or stalled), the next waits for this many new messages.
SUMMARY_RETRY_MESSAGES = 6
# A summary is attempted only when what it would cover is at least this share of
# the context: below that it cannot free enough (fixed sections dominate).
MIN_COVERED_FRACTION = 0.1


def threshold_tokens(context_window: int, threshold: float) -> int:
    """Tokens of input past which a full compaction runs."""
    return int(context_window * threshold)


def needs_summary(predicted: int, context_window: int, threshold: float, overflow: bool) -> bool:
    """True when the next call would pass the threshold share of the window, or overflowed."""
    return overflow or predicted > threshold_tokens(context_window, threshold)


def should_start_early(predicted: int, context_window: int, threshold: float) -> bool:
    """True when a background compaction should start now, ahead of the threshold."""
    lead = max(threshold - BACKGROUND_LEAD_FRACTION, 0.0)
    return predicted > threshold_tokens(context_window, lead)


def freed_fraction(tokens_before: int, tokens_after: int) -> float:
    if tokens_before <= 0:
        return 0.0
    return max(tokens_before - tokens_after, 0) / tokens_before


def is_stalled(tokens_before: int, tokens_after: int) -> bool:
    """True when a compaction freed less than `STALL_MIN_FREED_FRACTION` of the context."""
    return freed_fraction(tokens_before, tokens_after) < STALL_MIN_FREED_FRACTION


def stall_message(tokens_before: int, tokens_after: int) -> str:
    return f"stalled: freed only {freed_fraction(tokens_before, tokens_after):.1%}"


def may_summarise_again(messages_now: int, messages_at_last: int | None) -> bool:
    """False until `SUMMARY_RETRY_MESSAGES` messages followed the last summary attempt."""
    return messages_at_last is None or messages_now - messages_at_last >= SUMMARY_RETRY_MESSAGES


def may_summarise_now(messages_now: int, messages_at_last: int | None, overflow: bool) -> bool:
    """The retry gate, except on overflow: then any new message since the last attempt
    allows another one (a stalled attempt falls back to pruning, so this cannot loop)."""
    if overflow:
        return messages_at_last is None or messages_now > messages_at_last
    return may_summarise_again(messages_now, messages_at_last)


def worth_summarising(covered: int, demand: int) -> bool:
    """True when the history a summary would cover is large enough to free something."""
    return demand > 0 and covered >= demand * MIN_COVERED_FRACTION


def keep_recent_tokens(available_input: int, share: float) -> int:
    """Tokens of the newest history a summary leaves verbatim (`share`: the
    `summary_keep_recent` setting)."""
    return int(available_input * share)
