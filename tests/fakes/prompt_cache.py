"""Simulated provider prompt caches: Anthropic's breakpoint cache and OpenAI's automatic one.

Both work on a request as a list of `PromptBlock`s in the order the
provider reads them (tools, then system, then each message's content
blocks), each with its token count and whether it carries a breakpoint.

`AnthropicCache` follows Anthropic's documented rules: a prefix is written
to the cache only where a block carries `cache_control` (at most four per
request), and only from `ANTHROPIC_MIN_TOKENS` on; a later request reads
the longest cached prefix it repeats, looked up at each of its breakpoints
and up to `LOOKBACK_BLOCKS` block boundaries before it; a write costs
tokens from the read point to the request's last breakpoint; an entry
lives `CACHE_LIFETIME_S` seconds, refreshed on each hit. Reported like
Anthropic's usage: `input_tokens` are the tokens neither read nor written.

`OpenAICache` caches automatically: the longest prefix (in tokens, whole
blocks then inside one) shared with any earlier request, from
`OPENAI_MIN_TOKENS` on, rounded down to `OPENAI_STEP_TOKENS`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

ANTHROPIC_MIN_TOKENS = 1_024
LOOKBACK_BLOCKS = 20
CACHE_LIFETIME_S = 300.0
OPENAI_MIN_TOKENS = 1_024
OPENAI_STEP_TOKENS = 128


@dataclass(frozen=True)
class PromptBlock:
    """One content block as the provider reads it (its key: canonical JSON, hints stripped)."""

    key: str
    tokens: int
    breakpoint: bool = False


@dataclass(frozen=True)
class CacheUse:
    read: int
    written: int
    uncached: int

    @property
    def total(self) -> int:
        return self.read + self.written + self.uncached


def _strip(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def _has_breakpoint(value: Any) -> bool:
    return isinstance(value, dict) and value.get("cache_control") is not None


def anthropic_blocks(body: dict[str, Any], count: Callable[[str], int]) -> list[PromptBlock]:
    """The blocks of an Anthropic Messages request body (tools, system, message contents)."""
    raw: list[Any] = list(body.get("tools") or [])
    system = body.get("system")
    raw += [{"type": "text", "text": system}] if isinstance(system, str) else list(system or [])
    for message in body.get("messages") or []:
        content = message.get("content")
        if isinstance(content, str):
            raw.append({"role": message.get("role"), "type": "text", "text": content})
        else:
            raw += [{"role": message.get("role"), **part} for part in content or []]
    blocks: list[PromptBlock] = []
    for item in raw:
        key = json.dumps(_strip(item), sort_keys=True, ensure_ascii=False)
        blocks.append(PromptBlock(key, count(key), _has_breakpoint(item)))
    return blocks


def _digests(blocks: Sequence[PromptBlock]) -> list[str]:
    running = hashlib.sha256()
    out: list[str] = []
    for block in blocks:
        running.update(block.key.encode())
        running.update(b"\x00")
        out.append(running.copy().hexdigest())
    return out


@dataclass
class AnthropicCache:
    """Anthropic's prompt cache over a sequence of requests (see the module docstring)."""

    min_tokens: int = ANTHROPIC_MIN_TOKENS
    lifetime_s: float = CACHE_LIFETIME_S
    entries: dict[str, float] = field(default_factory=dict)

    def account(self, blocks: Sequence[PromptBlock], now: float) -> CacheUse:
        digests = _digests(blocks)
        totals: list[int] = []
        running = 0
        for block in blocks:
            running += block.tokens
            totals.append(running)
        marks = [i for i, b in enumerate(blocks) if b.breakpoint]
        read, read_at = 0, -1
        for mark in marks:
            for index in range(mark, max(-1, mark - LOOKBACK_BLOCKS), -1):
                at = self.entries.get(digests[index])
                if at is not None and now - at <= self.lifetime_s:
                    if totals[index] > read:
                        read, read_at = totals[index], index
                    break
        if read_at >= 0:
            self.entries[digests[read_at]] = now
        written = 0
        if marks and totals[marks[-1]] >= self.min_tokens and totals[marks[-1]] > read:
            written = totals[marks[-1]] - read
        for mark in marks:
            if totals[mark] >= self.min_tokens:
                self.entries[digests[mark]] = now
        total = totals[-1] if totals else 0
        return CacheUse(read=read, written=written, uncached=total - read - written)


def common_prefix_chars(a: Sequence[str], b: Sequence[str]) -> int:
    """Characters of the longest common prefix of two prompts (whole units, then inside one)."""
    total = 0
    for left, right in zip(a, b, strict=False):
        if left == right:
            total += len(left)
            continue
        index = 0
        limit = min(len(left), len(right))
        while index < limit and left[index] == right[index]:
            index += 1
        return total + index
    return total


def openai_cached_tokens(prefix_tokens: int) -> int:
    """What OpenAI reports as cached for a shared prefix of `prefix_tokens`."""
    if prefix_tokens < OPENAI_MIN_TOKENS:
        return 0
    return prefix_tokens // OPENAI_STEP_TOKENS * OPENAI_STEP_TOKENS


@dataclass
class OpenAICache:
    """OpenAI's automatic prefix cache over a sequence of prompts (units: canonical JSON)."""

    count: Callable[[str], int]
    prompts: list[list[str]] = field(default_factory=list)

    def account(self, units: list[str]) -> CacheUse:
        text = "".join(units)
        total = self.count(text)
        cached = 0
        if self.prompts:
            best = max(common_prefix_chars(units, earlier) for earlier in self.prompts)
            cached = min(openai_cached_tokens(self.count(text[:best])), total)
        self.prompts.append(units)
        return CacheUse(read=cached, written=0, uncached=total - cached)
