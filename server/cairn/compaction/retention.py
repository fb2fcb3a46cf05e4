"""How much of a session stays verbatim: the compaction policy's four knobs (pure).

The knobs are the summary threshold (`compaction_threshold`), the share of
the input a summary leaves verbatim (`summary_keep_recent`), the prune
thresholds (`prune_protect`, `prune_minimum`) and how many of the latest
turns a prune leaves alone. A value the user set is used as given. An unset
one follows what a kept token costs, which is the provider's prompt-cache
price (`CachePrice.cached`):
- with a cache, every later call reads the kept history at a tenth of its
  price, and each summary or prune re-writes what follows it: keep much, cut
  rarely (OpenCode's numbers: summarise at 70%, keep the newest 25%, prune
  past 40,000 tokens of tool output once 20,000 can go, both thresholds
  capped at 20% / 10% of a smaller window than the 200k they were set for,
  never in the last two turns);
- without one, every later call pays the kept history in full and a cut
  breaks nothing: summarise at 55%, keep 10%, and prune old tool output down
  to 3% of the window once 1.5% can go, the previous turn's too (only the
  current turn's outputs are left alone).
The ledger block, the plan and the summary carry what a cut takes away, and
the trace keeps every output (`read_file("artifact:…")` shows it again).
"""

from __future__ import annotations

from dataclasses import dataclass

from cairn.compaction.prune import DEFAULT_PRUNE_MINIMUM, DEFAULT_PRUNE_PROTECT, PRUNE_SKIP_TURNS
from cairn.settings import CachePrice, Settings

# The knobs when unset: with a provider that serves a repeated prefix from its cache
# (OpenCode's numbers, its prune thresholds set for a 200k window and capped at these
# shares of a smaller one) ...
DEFAULT_COMPACTION_THRESHOLD = 0.7
DEFAULT_SUMMARY_KEEP_RECENT = 0.25
DEFAULT_PRUNE_PROTECT_SHARE = 0.2
DEFAULT_PRUNE_MINIMUM_SHARE = 0.1
# ... and with one that caches nothing, where every token kept costs its full price on
# every later call: summaries sooner and shorter, old tool output pruned down to a few
# percent of the window.
UNCACHED_COMPACTION_THRESHOLD = 0.55
UNCACHED_SUMMARY_KEEP_RECENT = 0.1
UNCACHED_PRUNE_PROTECT_SHARE = 0.03
UNCACHED_PRUNE_MINIMUM_SHARE = 0.015
# The latest turns whose tool outputs a prune leaves alone, with a cache and without.
CACHED_PRUNE_SKIP_TURNS = PRUNE_SKIP_TURNS
UNCACHED_PRUNE_SKIP_TURNS = 1


@dataclass(frozen=True)
class Retention:
    """The compaction knobs in effect for one model and window."""

    threshold: float
    keep_recent: float
    prune_protect: int
    prune_minimum: int
    # Whether the unset knobs took the cached provider's values.
    cached: bool
    # The latest turns whose tool outputs a prune leaves alone.
    prune_skip_turns: int = PRUNE_SKIP_TURNS


def _share(share: float, window: int, cap: int | None = None) -> int:
    tokens = int(window * share)
    return tokens if cap is None else min(cap, tokens)


def retention(settings: Settings, window: int, price: CachePrice) -> Retention:
    """The knobs for a `window`-token context at a provider priced `price` (see the
    module docstring)."""
    if price.cached:
        threshold, keep = DEFAULT_COMPACTION_THRESHOLD, DEFAULT_SUMMARY_KEEP_RECENT
        protect = _share(DEFAULT_PRUNE_PROTECT_SHARE, window, DEFAULT_PRUNE_PROTECT)
        minimum = _share(DEFAULT_PRUNE_MINIMUM_SHARE, window, DEFAULT_PRUNE_MINIMUM)
    else:
        threshold, keep = UNCACHED_COMPACTION_THRESHOLD, UNCACHED_SUMMARY_KEEP_RECENT
        protect = _share(UNCACHED_PRUNE_PROTECT_SHARE, window)
        minimum = _share(UNCACHED_PRUNE_MINIMUM_SHARE, window)

    def given(value: float | None, default: float) -> float:
        return default if value is None else value

    return Retention(
        threshold=given(settings.compaction_threshold, threshold),
        keep_recent=given(settings.summary_keep_recent, keep),
        prune_protect=protect if settings.prune_protect is None else settings.prune_protect,
        prune_minimum=minimum if settings.prune_minimum is None else settings.prune_minimum,
        cached=price.cached,
        prune_skip_turns=CACHED_PRUNE_SKIP_TURNS if price.cached else UNCACHED_PRUNE_SKIP_TURNS,
    )
