"""What went wrong with a provider request, in Cairn's own words (no litellm import).

litellm raises its own exception classes, mirroring OpenAI's, but not always
the telling one: a missing OpenAI key and a refused connection both arrive
as `InternalServerError` (status 500), a cut stream as
`MidStreamFallbackError`. `classify` therefore reads the whole chain — the
exception, its `original_exception`, `__cause__` and `__context__` — and
decides by, in order: a missing-credentials message, a context-length
refusal (class or message), a refused or failed connection, a timeout, the
HTTP status, then class names. Classes are matched by name along each MRO,
so this module never imports litellm.

A `Failure` keeps what the retry policy and the message need: the kind, the
provider's message without litellm's prefixes, the HTTP status, the wait the
provider asked for (`Retry-After` / `retry-after-ms`) and, for a
context-length refusal, the limit and the count the provider reported.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any, Literal

FailureKind = Literal[
    "missing_key",
    "auth",
    "permission",
    "not_found",
    "bad_request",
    "context_length",
    "content_policy",
    "rate_limit",
    "timeout",
    "server",
    "connection",
    "cut",
    "error",
]

# Failures a later request may not repeat.
RETRYABLE_KINDS: frozenset[FailureKind] = frozenset(
    {"rate_limit", "timeout", "server", "connection", "cut"}
)
# Links of an exception chain followed at most (a guard against odd cycles).
MAX_CHAIN = 16

_LITELLM_PREFIX = re.compile(r"^(?:(?:litellm\.)?\w*(?:Error|Exception|Timeout)\s*[:-]\s*)+")
# `(?<!\s)`: tried only where a whitespace run starts (else every position of a long run
# would rescan it: quadratic); the same matches, as `\s*` is greedy.
_NOISE = re.compile(r"(?<!\s)\s*ssl:<[^>]*>|(?<!\s)\s*Error_str:.*$")
_ORIGINAL_SUFFIX = re.compile(
    r"(?<!\s)\s*(?:Original exception:|Traceback \(most recent).*$", re.DOTALL
)
_MISSING_KEY = re.compile(
    r"missing credentials|missing \w+ api key|api_key client option must be set"
    r"|no (?:api )?key is set|api key not (?:found|set)|set the \w+_api_key",
    re.IGNORECASE,
)
_CONTEXT_LENGTH = re.compile(
    r"context[ _]length|context window|maximum context|prompt is too long"
    r"|too many (?:input )?tokens|exceeds the maximum number of tokens|input is too long",
    re.IGNORECASE,
)
# Patterns of the providers' context-length messages: the limit, and the input tokens the
# provider counted (not the completion it was asked for).
_LIMIT_PATTERNS: tuple[re.Pattern[str], ...] = (
    # OpenAI, DeepSeek, vLLM, OpenRouter: "maximum context length is 128000 tokens"
    re.compile(r"maximum context length is (?P<limit>\d+)", re.IGNORECASE),
    # Anthropic: "prompt is too long: 210000 tokens > 200000 maximum"
    re.compile(r"\d+ tokens > (?P<limit>\d+) maximum", re.IGNORECASE),
    # Gemini: "... exceeds the maximum number of tokens allowed (1048576)"
    re.compile(r"maximum number of tokens allowed \((?P<limit>\d+)\)", re.IGNORECASE),
    re.compile(r"context (?:length|window) (?:of|is) (?P<limit>\d+)", re.IGNORECASE),
)
_USED_PATTERNS: tuple[re.Pattern[str], ...] = (
    re.compile(r"\((?P<used>\d+) in the messages", re.IGNORECASE),
    re.compile(r"messages resulted in (?P<used>\d+) tokens", re.IGNORECASE),
    re.compile(r"prompt is too long: (?P<used>\d+) tokens", re.IGNORECASE),
    re.compile(r"input token count \((?P<used>\d+)\)", re.IGNORECASE),
)
_CONNECTION_CLASSES = frozenset(
    {
        "APIConnectionError",
        "ConnectError",
        "ConnectionRefusedError",
        "ConnectionResetError",
        "ClientConnectorError",
        "ClientConnectorDNSError",
        "ServerDisconnectedError",
        "RemoteProtocolError",
        "gaierror",
    }
)
_TIMEOUT_CLASSES = frozenset(
    {"Timeout", "APITimeoutError", "TimeoutError", "ReadTimeout", "ConnectTimeout"}
)
_CONNECTION_REASONS: tuple[tuple[frozenset[str], str], ...] = (
    (frozenset({"ConnectionRefusedError"}), "connection refused"),
    (frozenset({"gaierror", "ClientConnectorDNSError"}), "host not found"),
    (frozenset({"ConnectionResetError", "ServerDisconnectedError"}), "connection reset"),
)
_CUT_MARKERS = ("MidStreamFallbackError",)
_CUT_MESSAGE = re.compile(r"stream ended|incomplete chunked|peer closed connection", re.I)
_NAME_KINDS: dict[str, FailureKind] = {
    "AuthenticationError": "auth",
    "PermissionDeniedError": "permission",
    "NotFoundError": "not_found",
    "ContentPolicyViolationError": "content_policy",
    "UnprocessableEntityError": "bad_request",
    "UnsupportedParamsError": "bad_request",
    "BadRequestError": "bad_request",
    "BudgetExceededError": "bad_request",
    "RateLimitError": "rate_limit",
    "ServiceUnavailableError": "server",
    "InternalServerError": "server",
    "BadGatewayError": "server",
    "APIError": "server",
}
_STATUS_KINDS: dict[int, FailureKind] = {
    400: "bad_request",
    401: "auth",
    403: "permission",
    404: "not_found",
    408: "timeout",
    413: "context_length",
    422: "bad_request",
    429: "rate_limit",
}
SERVER_ERROR_STATUS = 500
# litellm's made-up statuses for failures that never reached the provider.
_SYNTHETIC_STATUS = frozenset({SERVER_ERROR_STATUS})


@dataclass(frozen=True, slots=True)
class Failure:
    """One failed request, classified (see the module docstring)."""

    kind: FailureKind
    detail: str
    status: int | None = None
    retry_after_s: float | None = None
    limit: int | None = None
    used: int | None = None

    @property
    def retryable(self) -> bool:
        return self.kind in RETRYABLE_KINDS


def chain(exc: BaseException) -> Iterator[BaseException]:
    """`exc`, then what it wraps (`original_exception`, `__cause__`, `__context__`)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen and len(seen) < MAX_CHAIN:
        seen.add(id(current))
        yield current
        original = getattr(current, "original_exception", None)
        if isinstance(original, BaseException) and id(original) not in seen:
            current = original
        else:
            current = current.__cause__ or current.__context__


def clean_message(exc: BaseException) -> str:
    """The provider's message without litellm's class-name prefixes and tracebacks."""
    text = str(getattr(exc, "message", None) or exc).strip()
    text = _ORIGINAL_SUFFIX.sub("", _LITELLM_PREFIX.sub("", text)).strip()
    text = _NOISE.sub("", text)
    return text.splitlines()[0].strip() if text else type(exc).__name__


def _names(exc: BaseException) -> set[str]:
    return {cls.__name__ for cls in type(exc).__mro__}


def _status(exc: BaseException) -> int | None:
    status = getattr(exc, "status_code", None)
    if isinstance(status, int):
        return status
    response = getattr(exc, "response", None)
    status = getattr(response, "status_code", None)
    return status if isinstance(status, int) else None


def _headers(exc: BaseException) -> Mapping[str, Any]:
    for source in (
        getattr(exc, "litellm_response_headers", None),
        getattr(getattr(exc, "response", None), "headers", None),
        getattr(exc, "headers", None),
    ):
        if isinstance(source, Mapping) or hasattr(source, "get"):
            return source  # type: ignore[return-value]
    return {}


def retry_after_seconds(headers: Mapping[str, Any], now: datetime | None = None) -> float | None:
    """The wait a response asks for: `retry-after-ms`, else `Retry-After` (seconds or a date)."""
    lowered = {str(k).lower(): str(v) for k, v in dict(headers).items()}
    millis = lowered.get("retry-after-ms")
    if millis is not None:
        try:
            return max(float(millis) / 1000.0, 0.0)
        except ValueError:
            pass
    value = lowered.get("retry-after")
    if value is None:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max((when - (now or datetime.now(UTC))).total_seconds(), 0.0)


def context_limit(text: str) -> tuple[int | None, int | None]:
    """(limit, input tokens counted) from a provider's context-length message, None where it
    says nothing."""

    def first(patterns: tuple[re.Pattern[str], ...], group: str) -> int | None:
        match = next((m for m in (p.search(text) for p in patterns) if m), None)
        return int(match.group(group)) if match else None

    return first(_LIMIT_PATTERNS, "limit"), first(_USED_PATTERNS, "used")


def _kind_of(links: list[BaseException], texts: list[str]) -> FailureKind:
    """The kind of a chain; a mid-stream wrapper is judged by what it wraps (a lost
    connection is a cut stream, a provider error raised inside the stream is that error)."""
    wrapped = [i for i, link in enumerate(links) if _names(link) & set(_CUT_MARKERS)]
    if wrapped and wrapped[-1] + 1 < len(links):
        inner = wrapped[-1] + 1
        kind = _kind_of(links[inner:], texts[inner:])
        return "cut" if kind in ("connection", "error") else kind
    names = set().union(*(_names(link) for link in links))
    joined = " | ".join(texts)
    if _MISSING_KEY.search(joined):
        return "missing_key"
    if "ContextWindowExceededError" in names or (
        "BadRequestError" in names and _CONTEXT_LENGTH.search(joined)
    ):
        return "context_length"
    if _CUT_MESSAGE.search(joined):
        return "cut"
    if names & _TIMEOUT_CLASSES:
        return "timeout"
    if names & _CONNECTION_CLASSES:
        return "connection"
    for link in links:
        status = _status(link)
        if status in _STATUS_KINDS:
            return _STATUS_KINDS[status]
    for link in links:  # class names before a status litellm may have made up
        for cls in type(link).__mro__:
            if cls.__name__ in _NAME_KINDS:
                return _NAME_KINDS[cls.__name__]
    status = _status(links[0])
    if status is not None and status >= SERVER_ERROR_STATUS:
        return "server"
    return "error"


def classify(exc: BaseException) -> Failure:
    """Cairn's reading of a failed request (see the module docstring)."""
    links = list(chain(exc))
    texts = [clean_message(link) for link in links]
    kind = _kind_of(links, texts)
    status = next((s for s in map(_status, links) if s is not None), None)
    if kind in ("connection", "missing_key", "cut") and status in _SYNTHETIC_STATUS:
        status = None
    retry_after = None
    for link in links:
        retry_after = retry_after_seconds(_headers(link))
        if retry_after is not None:
            break
    limit, used = context_limit(" | ".join(texts)) if kind == "context_length" else (None, None)
    detail = _detail(links, texts)
    return Failure(kind, detail, status, retry_after, limit, used)


def _detail(links: list[BaseException], texts: list[str]) -> str:
    """The outermost message that says something, with the socket-level reason of a
    connection failure (refused, unknown host) that litellm's message leaves out."""
    detail = next(
        (t for link, t in zip(links, texts, strict=True) if t and t != type(link).__name__),
        texts[0],
    )
    names = set().union(*(_names(link) for link in links))
    for markers, reason in _CONNECTION_REASONS:
        if names & markers and reason not in detail.lower():
            return f"{detail.rstrip('.')} ({reason})"
    return detail
