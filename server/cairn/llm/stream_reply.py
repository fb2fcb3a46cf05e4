"""One request's stream to its `ModelReply`: drained under an idle limit, closed, then read.

`drain` feeds every chunk of a litellm (or scripted) stream to a
`StreamAccumulator`, raising TimeoutError when the stream stays silent for the
idle limit; `close_stream` closes it and the provider's generator under it.
`reply_of` turns what was accumulated into the reply: tool calls get ids
unique to the request, a stop with tool calls reads `tool_calls`, and the
usage is what the provider reported (cache reads and writes too) or else
counted with the budget's tokenizer, priced from litellm's table (never for
the scripted model).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from cairn.llm.reply import ModelReply
from cairn.llm.stream import ChunkUsage, StreamAccumulator
from cairn.llm.usage import completion_text, cost_of, count_usage
from cairn.models.session import Usage
from cairn.tokens.model_info import SCRIPTED_PROVIDER

TOOL_CALLS_FINISH = "tool_calls"
DEFAULT_FINISH = "stop"


async def drain(stream: Any, accumulator: StreamAccumulator, idle_s: float) -> None:
    """Feed every chunk; a stream silent for `idle_s` raises TimeoutError."""
    iterator = stream.__aiter__()
    while True:
        try:
            async with asyncio.timeout(idle_s):
                chunk = await iterator.__anext__()
        except StopAsyncIteration:
            return
        accumulator.feed(chunk)


async def close_stream(stream: Any) -> None:
    """Close a litellm stream (and the provider's generator under it)."""
    aclose = getattr(stream, "aclose", None)
    if aclose is not None:
        await aclose()


def reply_of(
    litellm: Any,
    target: str,
    messages: Sequence[Mapping[str, Any]],
    tools: Sequence[Mapping[str, Any]],
    accumulator: StreamAccumulator,
) -> ModelReply:
    """The reply a drained stream accumulated."""
    tool_calls = accumulator.tool_calls(id_prefix=f"call-{uuid.uuid4().hex[:12]}")
    text, reasoning = accumulator.text, accumulator.reasoning
    output = completion_text(text, reasoning, tool_calls)
    usage = call_usage(litellm, target, messages, tools, accumulator.usage, output)
    finish = accumulator.finish_reason or DEFAULT_FINISH
    if tool_calls and finish == DEFAULT_FINISH:
        finish = TOOL_CALLS_FINISH
    return ModelReply(
        text=text,
        reasoning=reasoning,
        tool_calls=tool_calls,
        usage=usage,
        finish_reason=finish,
        usage_reported=accumulator.usage is not None,
    )


def call_usage(
    litellm: Any,
    target: str,
    messages: Sequence[Mapping[str, Any]],
    tools: Sequence[Mapping[str, Any]],
    reported: ChunkUsage | None,
    output: str,
) -> Usage:
    """The usage the provider reported (cache reads and writes too), else counted here."""
    if reported is not None:
        usage = Usage(
            input_tokens=reported.input_tokens,
            output_tokens=reported.output_tokens,
            cached_input_tokens=reported.cached_input_tokens,
            cache_write_input_tokens=reported.cache_write_input_tokens,
        )
    else:
        input_tokens, output_tokens = count_usage(target, messages, tools, output)
        usage = Usage(input_tokens=input_tokens, output_tokens=output_tokens)
    if target.startswith(SCRIPTED_PROVIDER + "/"):
        return usage
    cost = cost_of(
        litellm,
        target,
        usage.input_tokens,
        usage.output_tokens,
        usage.cached_input_tokens,
        usage.cache_write_input_tokens,
    )
    return usage.model_copy(update={"cost": cost})
