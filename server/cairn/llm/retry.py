"""The one retry layer: whether a failed request is tried again, and after how long.

litellm's and the OpenAI SDK's own retries are off (`max_retries=0` on every
request), so the count here is the number of HTTP requests. A failure is
retried only when another request can succeed (rate limits, 5xx, timeouts,
connection errors, a stream cut before anything was shown), at most
`model_retries` times, and only when the wait fits in what is left of the
call's deadline. Rate limits wait what the provider asked (`Retry-After`);
everything else backs off exponentially. An empty reply is asked again
once (`EMPTY_REPLY_RETRIES`). Pure functions and constants only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from cairn.llm.failures import Failure

BACKOFF_BASE_S = 1.0
BACKOFF_FACTOR = 2.0
BACKOFF_MAX_S = 30.0
# An empty reply (no text, no tool call) is asked for again this many times.
EMPTY_REPLY_RETRIES = 1
# Seconds waited before asking again after an empty reply.
EMPTY_REPLY_WAIT_S = 0.0

# Why no further request is made: not retryable, text already shown, retries used up,
# the wait would pass the deadline.
GiveUp = Literal["fatal", "delivered", "exhausted", "deadline"]


@dataclass(frozen=True, slots=True)
class RetryNotice:
    """A retry about to happen: request number `attempt` starts after `wait_s` seconds."""

    attempt: int
    wait_s: float
    reason: str


def backoff_delay(attempt: int, base_s: float = BACKOFF_BASE_S) -> float:
    """Seconds to wait before retry number `attempt` (1-based): base·factor^(n-1), capped."""
    return min(base_s * BACKOFF_FACTOR ** (attempt - 1), BACKOFF_MAX_S)


def retry_wait(failure: Failure, retry_number: int, base_s: float = BACKOFF_BASE_S) -> float:
    """The provider's `Retry-After` when it gave one, else the backoff for this retry."""
    if failure.retry_after_s is not None:
        return failure.retry_after_s
    return backoff_delay(retry_number, base_s)


def give_up(
    failure: Failure,
    *,
    retries_used: int,
    retries_allowed: int,
    delivered: bool,
    wait_s: float,
    time_left_s: float,
) -> GiveUp | None:
    """Why the call stops here, or None when one more request is worth making."""
    if not failure.retryable:
        return "fatal"
    if time_left_s <= 0:
        return "deadline"
    if delivered:
        return "delivered"
    if retries_used >= retries_allowed:
        return "exhausted"
    if wait_s >= time_left_s:
        return "deadline"
    return None
