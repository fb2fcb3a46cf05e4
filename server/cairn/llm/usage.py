"""Token usage and cost of one model call, when the provider does not report them.

Counting uses `cairn.tokens.counter.count_tokens`, the tokenizer of the
budget, so a call's usage and the manifest that predicted it agree. Cost comes
from litellm's price table and is None for models it does not know (the
scripted model, local models); pricing never fails a call.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import Any

from cairn.llm.reply import ToolCall
from cairn.tokens.counter import count_tokens


def _content_text(content: Any) -> str:
    """Text of a message `content`: a string, or a list of typed parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        texts = [
            str(part.get("text", ""))
            for part in content
            if isinstance(part, Mapping) and part.get("type") == "text"
        ]
        return "\n".join(texts)
    return ""


def prompt_text(messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]]) -> str:
    """Everything a provider reads from a request, as one text (for counting)."""
    pieces: list[str] = []
    for message in messages:
        pieces.append(_content_text(message.get("content")))
        for call in message.get("tool_calls") or []:
            function = call.get("function") or {}
            pieces.append(f"{function.get('name', '')} {function.get('arguments', '')}")
    if tools:
        pieces.append(json.dumps(list(tools), sort_keys=True))
    return "\n".join(piece for piece in pieces if piece)


def completion_text(text: str, reasoning: str, tool_calls: Sequence[ToolCall]) -> str:
    """Everything the model produced, as one text (for counting)."""
    pieces = [reasoning, text, *(f"{c.name} {c.raw_arguments}" for c in tool_calls)]
    return "\n".join(piece for piece in pieces if piece)


def count_usage(
    model: str,
    messages: Sequence[Mapping[str, Any]],
    tools: Sequence[Mapping[str, Any]],
    output: str,
) -> tuple[int, int]:
    """(input tokens, output tokens) counted with the budget's tokenizer."""
    return count_tokens(prompt_text(messages, tools), model), count_tokens(output, model)


def cost_of(
    litellm: ModuleType,
    model: str,
    input_tokens: int,
    output_tokens: int,
    cached_input_tokens: int = 0,
    cache_write_input_tokens: int = 0,
) -> float | None:
    """Dollar cost from litellm's price table (cache reads and writes at their own prices),
    or None when the model is not priced."""
    try:
        prompt_cost, completion_cost = litellm.cost_per_token(
            model=model,
            prompt_tokens=input_tokens,
            completion_tokens=output_tokens,
            cache_read_input_tokens=cached_input_tokens,
            cache_creation_input_tokens=cache_write_input_tokens,
        )
    except Exception:
        return None
    return float(prompt_cost) + float(completion_cost)
