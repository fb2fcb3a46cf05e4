"""The `cache_prices` settings table: a provider's prompt-cache prices, and the defaults.

Providers cache prompt prefixes in one of four ways (`CacheFamily`, told
from a model's name by `cairn.llm.cache_hints.cache_family`); `CachePrice`
is what a cached read and a cache write cost as multiples of the uncached
input price, and `DEFAULT_CACHE_PRICES` holds each family's price when the
setting leaves it unset. `cairn.settings` (whose `Settings.cache_prices`
field this is) re-exports all three; the compaction policy reads them
(`cairn.compaction.retention`, `cairn.compaction.cache_policy`).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

# How a provider caches prompt prefixes (`cairn.llm.cache_hints.cache_family`).
CacheFamily = Literal["anthropic", "openai", "automatic", "none"]


class CachePrice(BaseModel):
    """A provider's prompt-cache prices, as multiples of its uncached input price."""

    model_config = ConfigDict(extra="forbid")

    read: float = Field(ge=0)
    write: float = Field(ge=0)

    @property
    def cached(self) -> bool:
        """Whether a repeated prefix costs less than its full price (a cache exists)."""
        return self.read < 1.0


# Anthropic reads at 0.1x and writes at 1.25x; OpenAI's GPT-5 family reads at 0.1x and
# writes at no extra cost; other hosted providers are taken to price like OpenAI; a
# provider that caches nothing pays full price for every token, read or not.
DEFAULT_CACHE_PRICES: dict[CacheFamily, CachePrice] = {
    "anthropic": CachePrice(read=0.1, write=1.25),
    "openai": CachePrice(read=0.1, write=1.0),
    "automatic": CachePrice(read=0.1, write=1.0),
    "none": CachePrice(read=1.0, write=1.0),
}
