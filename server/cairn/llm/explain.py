"""The words of a failed model call: what happened, what to change, how many requests it took.

One message per failed call, shown whole (CLI, editor, trace): `model M:
<what> (HTTP n): <the provider's message> — <the setting or variable to
fix>; <requests made over how long, and why no more>`. Pure functions of a
classified `Failure`, the call's `ProviderSetup` and its accounting.
"""

from __future__ import annotations

from dataclasses import dataclass

from cairn.llm.failures import Failure, FailureKind
from cairn.llm.provider import ProviderSetup
from cairn.llm.retry import GiveUp

LABELS: dict[FailureKind, str] = {
    "missing_key": "no API key",
    "auth": "authentication failed",
    "permission": "permission denied",
    "not_found": "model not found",
    "bad_request": "request refused",
    "context_length": "context length exceeded",
    "content_policy": "refused by the provider's content policy",
    "rate_limit": "rate limited",
    "timeout": "timed out",
    "server": "server error",
    "connection": "cannot connect",
    "cut": "stream cut",
    "error": "error",
}


@dataclass(frozen=True, slots=True)
class Accounting:
    """How a call ended: requests made, seconds spent, the next wait, the deadline in force."""

    requests: int
    elapsed_s: float
    retries_allowed: int
    timeout_s: float
    # The setting that bounds the call ("call_deadline_s = 600", "turn_deadline_s = …").
    deadline: str
    next_wait_s: float = 0.0


def requests_phrase(requests: int, elapsed_s: float) -> str:
    noun = "request" if requests == 1 else "requests"
    return f"{requests} {noun} over {elapsed_s:.1f} s"


def _hint(failure: Failure, setup: ProviderSetup, timeout_s: float) -> str | None:
    kind = failure.kind
    if kind == "missing_key":
        return setup.problem or setup.key_hint()
    if kind == "auth":
        return setup.key_hint()
    if kind == "permission":
        return "the key has no access to this model: check the account or the model name"
    if kind == "not_found":
        where = f" served at {setup.api_base}" if setup.api_base else ""
        return f"check the model name{where} (`cairn models` shows what is configured)"
    if kind == "connection":
        if setup.api_base:
            return f"is the server at {setup.api_base} running? (api_base)"
        return "check the network connection"
    if kind == "timeout":
        return f"no answer within model_timeout_s = {timeout_s:g} s"
    if kind == "content_policy":
        return "rephrase the request"
    if kind == "bad_request" and setup.params:
        return "check extra_params, which are sent with every call"
    return None


def _ending(stop: GiveUp, failure: Failure, acct: Accounting) -> str:
    spent = requests_phrase(acct.requests, acct.elapsed_s)
    if stop == "fatal":
        return f"{spent}; not retried (a retry cannot succeed)"
    if stop == "delivered":
        return f"{spent}; not retried: the reply had already started streaming"
    if stop == "exhausted":
        return f"gave up after {spent} (model_retries = {acct.retries_allowed})"
    asked = " (Retry-After)" if failure.retry_after_s is not None else ""
    return (
        f"gave up after {spent}: the next wait of {acct.next_wait_s:.1f} s{asked} would pass "
        f"the deadline ({acct.deadline})"
    )


def failure_message(
    model: str, failure: Failure, stop: GiveUp, setup: ProviderSetup, acct: Accounting
) -> str:
    """The one message of a failed call (see the module docstring)."""
    status = f" (HTTP {failure.status})" if failure.status is not None else ""
    head = f"model {model}: {LABELS[failure.kind]}{status}: {failure.detail}"
    hint = _hint(failure, setup, acct.timeout_s)
    body = f"{head} — {hint}" if hint else head
    return f"{body}; {_ending(stop, failure, acct)}"


def retry_reason(failure: Failure) -> str:
    """Why a request is retried, for the retry event (`rate limited (HTTP 429): …`)."""
    status = f" (HTTP {failure.status})" if failure.status is not None else ""
    return f"{LABELS[failure.kind]}{status}: {failure.detail}"


def empty_reply_message(model: str, finish: str, acct: Accounting) -> str:
    """An empty reply that a retry did not fix, or cannot fix."""
    spent = requests_phrase(acct.requests, acct.elapsed_s)
    if finish == "length":
        return (
            f"model {model}: the reply stopped at the output limit before any text or tool call "
            f"— raise max_output_tokens; {spent}"
        )
    if finish == "content_filter":
        return f"model {model}: the provider filtered the reply (content_filter); {spent}"
    return (
        f"model {model}: empty reply (no text and no tool call, finish reason {finish!r}) "
        f"— try again, or choose another model; {spent}"
    )
