"""Prompt-cache hints on a request, and the cached tokens a provider reports back.

Providers cache a repeated prompt prefix in different ways (`cache_family`):
- `anthropic`: Claude through `anthropic/`, `bedrock/`, `vertex_ai/` (or any
  route whose model name says `claude`) caches only prefixes that end at a
  `cache_control` breakpoint, at most four per request. The context builder
  names the breakpoints (`cairn.context.breakpoints`: the system message,
  the preamble, the frozen summary, the last history message, and the end
  of what the previous call also sent when no other one reaches it);
  `with_breakpoints` marks those messages. litellm's Anthropic
  transformation keeps `cache_control` on a text content part (system,
  user, tool and assistant text) and on a tool call entry (an assistant
  message that is only tool calls);
- `openai`: `openai/`, `azure/` and bare OpenAI names cache automatically;
  `prompt_cache_key` (the session id) routes a session's requests to the
  same cache (a first-class `acompletion` argument in litellm);
- `automatic`: other hosted providers cache prefixes themselves, no hint;
- `none`: the scripted model and local servers.

`cache_tokens` reads what the provider reported: cached (read) input
tokens from `prompt_tokens_details.cached_tokens` (OpenAI, and litellm's
translation of Anthropic's) or `cache_read_input_tokens`, and cache-write
tokens from `cache_creation_input_tokens` (Anthropic).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from cairn.context.breakpoints import MAX_BREAKPOINTS
from cairn.settings import CacheFamily, CachePrice, Settings
from cairn.tokens.model_info import SCRIPTED_PROVIDER

ANTHROPIC: Final[CacheFamily] = "anthropic"
OPENAI: Final[CacheFamily] = "openai"
AUTOMATIC: Final[CacheFamily] = "automatic"
NONE: Final[CacheFamily] = "none"

EPHEMERAL: Final = {"type": "ephemeral"}
PROMPT_CACHE_KEY: Final = "prompt_cache_key"

ANTHROPIC_PROVIDERS: Final = frozenset({"anthropic"})
# Routes that serve Claude among other models: Anthropic caching when the name says claude.
CLAUDE_ROUTES: Final = frozenset(
    {"bedrock", "bedrock_converse", "vertex_ai", "vertex_ai_beta", "openrouter", "litellm_proxy"}
)
CLAUDE_MARKER: Final = "claude"
OPENAI_PROVIDERS: Final = frozenset({"openai", "azure", "azure_ai"})
# Bare model names (no provider prefix) that litellm routes to OpenAI.
OPENAI_NAME_PREFIXES: Final = ("gpt-", "o1", "o3", "o4", "chatgpt-")
NO_CACHE_PROVIDERS: Final = frozenset(
    {SCRIPTED_PROVIDER, "ollama", "ollama_chat", "lm_studio", "llamafile"}
)


@dataclass(frozen=True)
class CacheHints:
    """What a call tells the provider about caching: the routing key and the breakpoints."""

    key: str
    # Indexes of the messages that end a cacheable segment.
    breakpoints: tuple[int, ...] = ()


def cache_family(model: str) -> CacheFamily:
    """The prompt-cache family of a litellm model name."""
    name = model.strip().lower()
    provider, _, rest = name.partition("/")
    if not rest:
        provider, rest = "", name
    if provider in NO_CACHE_PROVIDERS:
        return NONE
    is_claude = CLAUDE_MARKER in rest and (not provider or provider in CLAUDE_ROUTES)
    if provider in ANTHROPIC_PROVIDERS or is_claude:
        return ANTHROPIC
    if provider in OPENAI_PROVIDERS or (not provider and rest.startswith(OPENAI_NAME_PREFIXES)):
        return OPENAI
    return AUTOMATIC if provider else NONE


def model_cache_price(settings: Settings, model: str) -> CachePrice:
    """The prompt-cache prices of `model`'s provider: its family's, configured or default."""
    return settings.cache_price(cache_family(model))


def _marked(message: Mapping[str, Any]) -> dict[str, Any]:
    """`message` with a cache breakpoint at its end."""
    out = dict(message)
    content = out.get("content")
    calls = out.get("tool_calls")
    if out.get("role") == "assistant" and calls and not content:
        entries = [dict(c) for c in calls]
        entries[-1]["cache_control"] = dict(EPHEMERAL)
        out["tool_calls"] = entries
    elif isinstance(content, str):
        out["content"] = [{"type": "text", "text": content, "cache_control": dict(EPHEMERAL)}]
    elif isinstance(content, list) and content:
        parts = [dict(p) for p in content]
        parts[-1]["cache_control"] = dict(EPHEMERAL)
        out["content"] = parts
    else:
        out["cache_control"] = dict(EPHEMERAL)
    return out


def with_breakpoints(
    messages: Sequence[Mapping[str, Any]], breakpoints: Sequence[int]
) -> list[dict[str, Any]]:
    """The messages with `cache_control` at the given indexes (the last `MAX_BREAKPOINTS`)."""
    wanted = sorted({i for i in breakpoints if 0 <= i < len(messages)})[-MAX_BREAKPOINTS:]
    out = [dict(m) for m in messages]
    for index in wanted:
        out[index] = _marked(out[index])
    return out


def hinted_request(
    model: str, messages: Sequence[Mapping[str, Any]], hints: CacheHints | None
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The messages to send and the extra `acompletion` arguments for `model`'s cache family."""
    family = cache_family(model)
    if hints is None or family in (AUTOMATIC, NONE):
        return [dict(m) for m in messages], {}
    if family == ANTHROPIC:
        return with_breakpoints(messages, hints.breakpoints), {}
    return [dict(m) for m in messages], {PROMPT_CACHE_KEY: hints.key}


def _get(obj: Any, key: str) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(key)
    return getattr(obj, key, None)


def _int(value: Any) -> int:
    return int(value) if isinstance(value, int | float) and value > 0 else 0


def cache_tokens(usage: Any) -> tuple[int, int]:
    """(cached input tokens read, input tokens written to the cache) of a reported usage."""
    read = _int(_get(usage, "cache_read_input_tokens"))
    if not read:
        read = _int(_get(_get(usage, "prompt_tokens_details"), "cached_tokens"))
    written = _int(_get(usage, "cache_creation_input_tokens"))
    return read, written
