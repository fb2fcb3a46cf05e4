"""The model runtime: one streamed litellm call per `complete`, with retries.

`ModelRuntime.complete` sends the messages and tool schemas, forwards text
and reasoning deltas as they arrive, and returns the accumulated
`ModelReply`. Transient provider failures (rate limits, 5xx, timeouts,
connection errors) are retried `settings.model_retries` times with
exponential backoff, as long as nothing was streamed to the caller yet (a
retry would repeat text the user already saw); every other failure, and the
last one, becomes a `ModelError` naming the model and the cause. Cancelling
the awaiting task stops the call at its next chunk and closes the stream.

`scripted/<path>` models resolve `<path>` against the workspace root and
receive the agent lane (`agent`, "main" by default) through litellm's
`metadata`.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from cairn.errors import ModelError
from cairn.llm.lazy import load_litellm
from cairn.llm.reply import ModelReply
from cairn.llm.retry import BACKOFF_BASE_S, ErrorKind, backoff_delay, classify
from cairn.llm.script import AGENT_METADATA_KEY, MAIN_LANE
from cairn.llm.stream import StreamAccumulator, TextSink
from cairn.llm.usage import completion_text, cost_of, count_usage
from cairn.models.session import Usage
from cairn.settings import Settings, SettingsRef, shared
from cairn.tokens.model_info import SCRIPTED_PROVIDER

TOOL_CALLS_FINISH = "tool_calls"
DEFAULT_FINISH = "stop"

Sleep = Callable[[float], Awaitable[None]]


class ModelRuntime:
    """Calls models through litellm; one instance serves a whole engine."""

    def __init__(
        self,
        settings: Settings | SettingsRef,
        workspace_root: Path | None = None,
        *,
        backoff_base_s: float = BACKOFF_BASE_S,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        self._settings = shared(settings)
        self.workspace_root = workspace_root
        self.backoff_base_s = backoff_base_s
        self._sleep = sleep

    @property
    def settings(self) -> Settings:
        """The current settings (read on every call: a change applies to the next one)."""
        return self._settings.current

    def resolve_model(self, model: str) -> str:
        """`scripted/<relative path>` → `scripted/<absolute path>`; other names unchanged."""
        name = model.strip()
        if not name:
            raise ModelError("no model configured (set `model` in cairn.toml)")
        prefix = SCRIPTED_PROVIDER + "/"
        if not name.startswith(prefix):
            return name
        path = Path(name[len(prefix) :]).expanduser()
        if not path.is_absolute():
            path = (self.workspace_root or Path.cwd()) / path
        return prefix + str(path.resolve())

    async def complete(
        self,
        model: str,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]] | None,
        *,
        agent: str | None = None,
        on_text: TextSink | None = None,
        on_reasoning: TextSink | None = None,
    ) -> ModelReply:
        """One model call, streamed; retried on transient errors; raises `ModelError`."""
        target = self.resolve_model(model)
        litellm = await asyncio.to_thread(load_litellm)
        attempts = self.settings.model_retries + 1
        attempt = 0
        while True:
            attempt += 1
            accumulator = StreamAccumulator(on_text, on_reasoning)
            try:
                return await self._call_once(
                    litellm, target, messages, tools or [], agent, accumulator
                )
            except (asyncio.CancelledError, ModelError):
                raise
            except Exception as exc:
                kind = classify(exc)
                if not kind.retryable:
                    raise ModelError(_fatal_message(model, kind)) from exc
                if accumulator.delivered:
                    raise ModelError(_mid_stream_message(model, kind)) from exc
                if attempt == attempts:
                    raise ModelError(_exhausted_message(model, attempts, kind)) from exc
                await self._sleep(backoff_delay(attempt, self.backoff_base_s))

    async def _call_once(
        self,
        litellm: Any,
        target: str,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]],
        agent: str | None,
        accumulator: StreamAccumulator,
    ) -> ModelReply:
        request: dict[str, Any] = {
            "model": target,
            "messages": list(messages),
            "stream": True,
            "stream_options": {"include_usage": True},
            "timeout": self.settings.model_timeout_s,
            "max_tokens": self.settings.max_output_tokens,
            "metadata": {AGENT_METADATA_KEY: agent or MAIN_LANE},
        }
        if tools:
            request["tools"] = list(tools)
        stream = await litellm.acompletion(**request)
        try:
            await self._drain(stream, accumulator)
        finally:
            await _close(stream)
        return self._reply(litellm, target, messages, tools, accumulator)

    async def _drain(self, stream: Any, accumulator: StreamAccumulator) -> None:
        """Feed every chunk; a stream silent for `model_timeout_s` raises TimeoutError."""
        iterator = stream.__aiter__()
        while True:
            try:
                async with asyncio.timeout(self.settings.model_timeout_s):
                    chunk = await iterator.__anext__()
            except StopAsyncIteration:
                return
            accumulator.feed(chunk)

    def _reply(
        self,
        litellm: Any,
        target: str,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]],
        accumulator: StreamAccumulator,
    ) -> ModelReply:
        tool_calls = accumulator.tool_calls(id_prefix=f"call-{uuid.uuid4().hex[:12]}")
        text, reasoning = accumulator.text, accumulator.reasoning
        if accumulator.usage is not None:
            input_tokens = accumulator.usage.input_tokens
            output_tokens = accumulator.usage.output_tokens
        else:
            output = completion_text(text, reasoning, tool_calls)
            input_tokens, output_tokens = count_usage(target, messages, tools, output)
        scripted = target.startswith(SCRIPTED_PROVIDER + "/")
        cost = None if scripted else cost_of(litellm, target, input_tokens, output_tokens)
        finish = accumulator.finish_reason or DEFAULT_FINISH
        if tool_calls and finish == DEFAULT_FINISH:
            finish = TOOL_CALLS_FINISH
        return ModelReply(
            text=text,
            reasoning=reasoning,
            tool_calls=tool_calls,
            usage=Usage(input_tokens=input_tokens, output_tokens=output_tokens, cost=cost),
            finish_reason=finish,
        )


async def _close(stream: Any) -> None:
    """Close a litellm stream (and the provider's generator under it)."""
    aclose = getattr(stream, "aclose", None)
    if aclose is not None:
        await aclose()


def _fatal_message(model: str, kind: ErrorKind) -> str:
    return f"model {model}: {kind.label}: {kind.detail}"


def _mid_stream_message(model: str, kind: ErrorKind) -> str:
    return f"model {model} failed mid-stream (not retried): {kind.label}: {kind.detail}"


def _exhausted_message(model: str, attempts: int, kind: ErrorKind) -> str:
    noun = "attempt" if attempts == 1 else "attempts"
    return f"model {model} failed after {attempts} {noun}: {kind.label}: {kind.detail}"
