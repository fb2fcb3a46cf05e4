"""The model runtime: one model call per `complete`, streamed, with Cairn's one retry layer.

`ModelRuntime.complete` checks that a call is possible (a model is set, its
key variable is set: `cairn.llm.provider`), then sends the messages and tool
schemas with the provider settings, forwards text and reasoning deltas as
they arrive, and returns the accumulated `ModelReply` (`cairn.llm.stream_reply`) with the number of
requests it took. litellm's and the SDK's own retries are off, so every
request is one of Cairn's: failures are classified (`cairn.llm.failures`)
and retried by the policy of `cairn.llm.retry` — at most `model_retries`
times, never once text was shown, and never past the deadline (the call's
`call_deadline_s`, or what is left of the turn's when that is sooner). Each
retry is reported to `on_retry` before its wait. An empty reply (no text,
no tool call) is asked for again once, then reported. Every failure becomes
a `ModelError` (a `ContextLengthError` for a context-length refusal) whose
message is whole: what happened, what to change, how many requests over how
long (`cairn.llm.explain`). Cancelling the awaiting task stops the call at
its next chunk and closes the stream.

`scripted/<path>` models resolve `<path>` against the workspace root and
receive the agent lane (`agent`, "main" by default) and are answered by
`cairn.llm.scripted` without litellm (so a scripted session never waits for
litellm's import), through the same retry layer and deadlines; `agent` names
the call's lane (one name, or several a branch answers to). Every other model
goes through litellm; `prefetch` starts its import in the background so it
overlaps the work before the first call. Sleeping and the clock are
injectable (`Timing`) so tests can assert the waits without waiting. With
`cache` hints, the request carries the prompt-cache hints of the model's
family (`cairn.llm.cache_hints`: `cache_control` breakpoints for
Anthropic-family models, `prompt_cache_key` for OpenAI); the cached and
cache-write input tokens the provider reports are kept in the reply's usage.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from cairn.errors import ContextLengthError, ModelError, NoModelError
from cairn.llm.cache_hints import CacheHints, hinted_request
from cairn.llm.explain import Accounting, empty_reply_message, failure_message, retry_reason
from cairn.llm.failures import Failure, classify
from cairn.llm.guide import no_model_message
from cairn.llm.lazy import litellm_future, prefetch_litellm
from cairn.llm.provider import ProviderSetup, provider_setup, request_options
from cairn.llm.reply import ModelReply
from cairn.llm.retry import (
    BACKOFF_BASE_S,
    EMPTY_REPLY_RETRIES,
    EMPTY_REPLY_WAIT_S,
    RetryNotice,
    give_up,
    retry_wait,
)
from cairn.llm.script import lane_names
from cairn.llm.scripted import scripted_stream
from cairn.llm.stream import StreamAccumulator, TextSink
from cairn.llm.stream_reply import close_stream, drain, reply_of
from cairn.settings import Settings, SettingsRef, shared
from cairn.tokens.model_info import SCRIPTED_PROVIDER, model_max_output
from cairn.tokens.model_info import is_scripted_model as is_scripted

Sleep = Callable[[float], Awaitable[None]]
Clock = Callable[[], float]
RetrySink = Callable[[RetryNotice], None]


@dataclass(frozen=True)
class Timing:
    """How the runtime waits and reads the time (tests pass a recording sleep and a fake clock)."""

    sleep: Sleep = asyncio.sleep
    clock: Clock = time.monotonic
    backoff_base_s: float = BACKOFF_BASE_S


@dataclass
class _Call:
    """The accounting of one `complete`: requests so far, retries, start, deadline."""

    start: float
    deadline_s: float
    deadline_label: str
    requests: int = 0
    retries: int = 0
    empties: int = 0


def is_empty(reply: ModelReply) -> bool:
    """No text and no tool call: nothing the turn could record or act on."""
    return not reply.text.strip() and not reply.tool_calls


class ModelRuntime:
    """Calls models through litellm; one instance serves a whole engine."""

    def __init__(
        self,
        settings: Settings | SettingsRef,
        workspace_root: Path | None = None,
        *,
        timing: Timing | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self._settings = shared(settings)
        self.workspace_root = workspace_root
        self.timing = timing or Timing()
        self._env = env

    @property
    def settings(self) -> Settings:
        """The current settings (read on every call: a change applies to the next one)."""
        return self._settings.current

    @property
    def env(self) -> Mapping[str, str]:
        """Where key variables are read (the process environment unless one was given)."""
        return self._env if self._env is not None else os.environ

    def prefetch(self, model: str | None = None) -> None:
        """Start importing litellm in the background unless the model is scripted (or unset)."""
        name = model or self.settings.model
        if name and not is_scripted(name):
            prefetch_litellm()

    def resolve_model(self, model: str | None) -> str:
        """`scripted/<relative path>` → `scripted/<absolute path>`; other names unchanged."""
        name = (model or "").strip()
        if not name:
            raise NoModelError(no_model_message(self.env))
        prefix = SCRIPTED_PROVIDER + "/"
        if not name.startswith(prefix):
            return name
        path = Path(name[len(prefix) :]).expanduser()
        if not path.is_absolute():
            path = (self.workspace_root or Path.cwd()) / path
        return prefix + str(path.resolve())

    def setup(self, model: str, main: str | None = None) -> ProviderSetup:
        """The provider settings a call to `model` would use (`main`: the main model)."""
        return provider_setup(self.settings, model, self.env, main)

    def check(self, model: str | None, main: str | None = None) -> None:
        """Raise the `ModelError` a call to `model` would fail with before any request."""
        self.resolve_model(model)
        assert model is not None
        problem = self.setup(model, main).problem
        if problem is not None:
            raise ModelError(f"model {model}: {problem}", kind="missing_key")

    async def complete(
        self,
        model: str | None,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]] | None,
        *,
        agent: str | Sequence[str] | None = None,
        on_text: TextSink | None = None,
        on_reasoning: TextSink | None = None,
        on_retry: RetrySink | None = None,
        main_model: str | None = None,
        time_left_s: float | None = None,
        allow_empty: bool = False,
        cache: CacheHints | None = None,
    ) -> ModelReply:
        """One model call, streamed and retried as the module docstring says; `ModelError`."""
        self.check(model, main_model)
        assert model is not None
        target = self.resolve_model(model)
        setup = self.setup(model, main_model)
        litellm = None if is_scripted(target) else await asyncio.wrap_future(litellm_future())
        call = self._new_call(time_left_s)
        while True:
            call.requests += 1
            accumulator = StreamAccumulator(on_text, on_reasoning)
            try:
                reply = await self._request(
                    litellm, target, messages, tools or [], agent, accumulator, setup, call, cache
                )
            except (asyncio.CancelledError, ModelError):
                raise
            except Exception as exc:
                await self._after_failure(model, classify(exc), accumulator, setup, call, on_retry)
                continue
            if allow_empty or not is_empty(reply):
                return replace(reply, requests=call.requests)
            self._after_empty(model, reply, call, on_retry)
            await self.timing.sleep(EMPTY_REPLY_WAIT_S)

    # -- accounting ------------------------------------------------------------

    def _new_call(self, time_left_s: float | None) -> _Call:
        call_deadline = self.settings.call_deadline_s
        label = f"call_deadline_s = {call_deadline:g}"
        if time_left_s is not None and time_left_s < call_deadline:
            turn = self.settings.turn_deadline_s
            label = f"turn_deadline_s = {turn:g}, {max(time_left_s, 0.0):.1f} s of it left"
            call_deadline = max(time_left_s, 0.0)
        return _Call(start=self.timing.clock(), deadline_s=call_deadline, deadline_label=label)

    def _elapsed(self, call: _Call) -> float:
        return self.timing.clock() - call.start

    def _accounting(self, call: _Call, next_wait_s: float = 0.0) -> Accounting:
        return Accounting(
            requests=call.requests,
            elapsed_s=self._elapsed(call),
            retries_allowed=self.settings.model_retries,
            timeout_s=self.settings.model_timeout_s,
            deadline=call.deadline_label,
            next_wait_s=next_wait_s,
        )

    async def _after_failure(
        self,
        model: str,
        failure: Failure,
        accumulator: StreamAccumulator,
        setup: ProviderSetup,
        call: _Call,
        on_retry: RetrySink | None,
    ) -> None:
        """Wait before the next request, or raise the call's `ModelError`."""
        wait = retry_wait(failure, call.retries + 1, self.timing.backoff_base_s)
        stop = give_up(
            failure,
            retries_used=call.retries,
            retries_allowed=self.settings.model_retries,
            delivered=accumulator.delivered,
            wait_s=wait,
            time_left_s=call.deadline_s - self._elapsed(call),
        )
        if stop is not None:
            message = failure_message(model, failure, stop, setup, self._accounting(call, wait))
            elapsed = self._elapsed(call)
            if failure.kind == "context_length":
                raise ContextLengthError(
                    message,
                    limit=failure.limit,
                    used=failure.used,
                    requests=call.requests,
                    elapsed_s=elapsed,
                )
            raise ModelError(message, kind=failure.kind, requests=call.requests, elapsed_s=elapsed)
        call.retries += 1
        if on_retry is not None:
            on_retry(RetryNotice(call.requests + 1, wait, retry_reason(failure)))
        await self.timing.sleep(wait)

    def _after_empty(
        self, model: str, reply: ModelReply, call: _Call, on_retry: RetrySink | None
    ) -> None:
        """Allow the one retry of an empty reply, or raise the call's `ModelError`."""
        hopeless = reply.finish_reason in ("length", "content_filter")
        out_of_time = self._elapsed(call) >= call.deadline_s
        if hopeless or out_of_time or call.empties >= EMPTY_REPLY_RETRIES:
            message = empty_reply_message(model, reply.finish_reason, self._accounting(call))
            raise ModelError(
                message, kind="empty", requests=call.requests, elapsed_s=self._elapsed(call)
            )
        call.empties += 1
        if on_retry is not None:
            reason = "empty reply (no text and no tool call)"
            on_retry(RetryNotice(call.requests + 1, EMPTY_REPLY_WAIT_S, reason))

    # -- one request -----------------------------------------------------------

    def _max_tokens(self, target: str) -> int:
        """`max_output_tokens`, lowered to the model's own output limit when litellm knows it."""
        limit = None if is_scripted(target) else model_max_output(target)
        wanted = self.settings.max_output_tokens
        return min(wanted, limit) if limit is not None else wanted

    async def _request(
        self,
        litellm: Any,
        target: str,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]],
        agent: str | Sequence[str] | None,
        accumulator: StreamAccumulator,
        setup: ProviderSetup,
        call: _Call,
        cache: CacheHints | None = None,
    ) -> ModelReply:
        """One request (HTTP, or the script's next line), bounded by `model_timeout_s` and
        by the call's deadline."""
        left = call.deadline_s - self._elapsed(call)
        if left <= 0:
            raise TimeoutError("the call's deadline passed before the request")
        timeout = min(self.settings.model_timeout_s, left)
        async with asyncio.timeout(left):
            if litellm is None:
                stream: Any = scripted_stream(target, messages, tools, lane_names(agent))
            else:
                stream = await self._litellm_stream(
                    litellm, target, messages, tools, setup, timeout, cache
                )
            try:
                await drain(stream, accumulator, timeout)
            finally:
                await close_stream(stream)
        return reply_of(litellm, target, messages, tools, accumulator)

    async def _litellm_stream(
        self,
        litellm: Any,
        target: str,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]],
        setup: ProviderSetup,
        timeout: float,
        cache: CacheHints | None,
    ) -> Any:
        sent, hints = hinted_request(target, messages, cache)
        request: dict[str, Any] = {
            **request_options(setup, self.env),
            "model": target,
            "messages": sent,
            "stream": True,
            "stream_options": {"include_usage": True},
            "timeout": timeout,
            "max_tokens": self._max_tokens(target),
        }
        if tools:
            request["tools"] = list(tools)
        request.update(hints)
        return await litellm.acompletion(**request)
