"""Which provider errors are worth retrying, how long to wait, and how to word them.

litellm raises its own exception classes (mirroring OpenAI's). Rate limits,
server errors (5xx), timeouts and connection failures are transient and are
retried with exponential backoff; authentication, bad requests and unknown
models are not. Errors raised inside a stream arrive wrapped in
`MidStreamFallbackError`; the original error decides. Classes are matched by
name along the MRO, so this module never imports litellm.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

BACKOFF_BASE_S = 1.0
BACKOFF_FACTOR = 2.0
BACKOFF_MAX_S = 30.0
SERVER_ERROR_STATUS = 500

_LITELLM_PREFIX = re.compile(r"^(?:litellm\.\w+:\s*)+")
_ORIGINAL_SUFFIX = re.compile(r"\s*Original exception:.*$", re.DOTALL)

# litellm exception class name → how a user reads it.
_RETRYABLE_NAMES: dict[str, str] = {
    "RateLimitError": "rate limit",
    "Timeout": "timeout",
    "APIConnectionError": "connection error",
    "ServiceUnavailableError": "service unavailable",
    "InternalServerError": "server error",
    "BadGatewayError": "server error",
    "TimeoutError": "timeout",
    # Any other provider API error (litellm.APIError, openai.APIError) counts as transient.
    "APIError": "provider error",
}
_FATAL_NAMES: dict[str, str] = {
    "AuthenticationError": "authentication failed",
    "PermissionDeniedError": "permission denied",
    "NotFoundError": "model not found",
    "BadRequestError": "bad request",
    "ContextWindowExceededError": "context window exceeded",
    "ContentPolicyViolationError": "content policy violation",
    "UnprocessableEntityError": "unprocessable request",
    "UnsupportedParamsError": "unsupported parameter",
    "BudgetExceededError": "budget exceeded",
}


@dataclass(frozen=True, slots=True)
class ErrorKind:
    """How one provider error is handled: retried or not, and a short label."""

    retryable: bool
    label: str
    detail: str


def backoff_delay(attempt: int, base_s: float = BACKOFF_BASE_S) -> float:
    """Seconds to wait before retry number `attempt` (1-based): base·factor^(n-1), capped."""
    return min(base_s * BACKOFF_FACTOR ** (attempt - 1), BACKOFF_MAX_S)


def unwrap(exc: BaseException) -> BaseException:
    """The error a provider raised, out of litellm's wrappers (`original_exception`)."""
    seen: set[int] = set()
    while id(exc) not in seen:
        seen.add(id(exc))
        original = getattr(exc, "original_exception", None)
        if not isinstance(original, BaseException):
            break
        exc = original
    return exc


def clean_message(exc: BaseException) -> str:
    """The provider's message without litellm's class-name prefixes and tracebacks."""
    text = str(getattr(exc, "message", None) or exc) or type(exc).__name__
    text = _ORIGINAL_SUFFIX.sub("", _LITELLM_PREFIX.sub("", text.strip()))
    first_line = text.strip().splitlines()[0] if text.strip() else type(exc).__name__
    return first_line


def classify(exc: BaseException) -> ErrorKind:
    """Retry transient failures (rate limit, 5xx, timeout, connection); fail fast otherwise."""
    error = unwrap(exc)
    detail = clean_message(error)
    for cls in type(error).__mro__:
        if cls.__name__ in _FATAL_NAMES:
            return ErrorKind(False, _FATAL_NAMES[cls.__name__], detail)
        if cls.__name__ in _RETRYABLE_NAMES:
            return ErrorKind(True, _RETRYABLE_NAMES[cls.__name__], detail)
    status = getattr(error, "status_code", None)
    if isinstance(status, int) and status >= SERVER_ERROR_STATUS:
        return ErrorKind(True, "server error", detail)
    return ErrorKind(False, "error", detail)
