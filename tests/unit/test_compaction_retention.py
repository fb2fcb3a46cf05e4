"""The compaction knobs follow the provider's prompt-cache price unless the user set them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cairn.commands.models_report import models_report
from cairn.compaction.retention import retention
from cairn.settings import DEFAULT_CACHE_PRICES, CachePrice, Settings
from tests.unit.test_compaction_prune import pruned_paths, read_file_turns

CACHED = DEFAULT_CACHE_PRICES["anthropic"]
UNCACHED = DEFAULT_CACHE_PRICES["none"]


def test_a_cached_provider_gets_opencodes_numbers_capped_to_the_window() -> None:
    big = retention(Settings(), 200_000, CACHED)
    assert (big.threshold, big.keep_recent) == (0.7, 0.25)
    assert (big.prune_protect, big.prune_minimum) == (40_000, 20_000)
    assert retention(Settings(), 1_000_000, CACHED).prune_protect == 40_000
    small = retention(Settings(), 32_000, CACHED)
    assert (small.prune_protect, small.prune_minimum) == (6_400, 3_200)
    assert small.cached


def test_a_provider_without_a_cache_keeps_less_and_cuts_sooner() -> None:
    knobs = retention(Settings(), 32_000, UNCACHED)
    assert not knobs.cached
    assert (knobs.threshold, knobs.keep_recent) == (0.55, 0.1)
    assert (knobs.prune_protect, knobs.prune_minimum) == (960, 480)
    cached = retention(Settings(), 32_000, CACHED)
    # Only the current turn's outputs are left alone (with a cache, the last two turns').
    assert (knobs.prune_skip_turns, cached.prune_skip_turns) == (1, 2)
    assert knobs.threshold < cached.threshold and knobs.keep_recent < cached.keep_recent
    assert knobs.prune_protect < cached.prune_protect
    # Any discount on a repeated prefix counts as a cache.
    assert retention(Settings(), 32_000, CachePrice(read=0.5, write=1.0)).cached


@pytest.mark.parametrize("price", [CACHED, UNCACHED])
def test_a_value_the_user_set_is_used_as_given(price: CachePrice) -> None:
    settings = Settings(
        compaction_threshold=0.8, summary_keep_recent=0.3, prune_protect=50_000, prune_minimum=0
    )
    knobs = retention(settings, 32_000, price)
    assert (knobs.threshold, knobs.keep_recent) == (0.8, 0.3)
    assert (knobs.prune_protect, knobs.prune_minimum) == (50_000, 0)
    # One knob set, the others still chosen from the price.
    one = retention(Settings(prune_minimum=10**9), 32_000, price)
    assert one.prune_minimum == 10**9
    assert one.threshold == retention(Settings(), 32_000, price).threshold


async def _pruned_paths(root: Path, **settings: Any) -> set[str]:
    """Six turns that each read one ~600-token file at 40k: the paths whose reads were pruned."""
    _, messages = await read_file_turns(root, 40, context_window=40_000, **settings)
    return pruned_paths(messages)


async def test_the_same_session_prunes_without_a_cache_and_keeps_its_reads_with_one(
    tmp_path: Path,
) -> None:
    """At 40k, six ~600-token reads are far below a cached provider's prune threshold
    (8,000 protected) but above an uncached one's (1,200 protected, 600 to free), which
    leaves only the current turn alone."""
    (tmp_path / "uncached").mkdir()
    (tmp_path / "cached").mkdir()
    uncached = await _pruned_paths(tmp_path / "uncached")
    assert "a.txt" in uncached and "f.txt" not in uncached  # the current turn's read stays
    cached = await _pruned_paths(
        tmp_path / "cached", cache_prices={"none": {"read": 0.1, "write": 1.25}}
    )
    assert cached == set()


def test_cairn_models_shows_the_knobs_a_local_model_gets(tmp_path: Path) -> None:
    """`cairn models` reports the main model's knobs: a local Ollama model caches nothing."""
    settings = Settings(model="ollama_chat/qwen3:8b", context_window=32_000, prune_minimum=100)
    main = models_report(settings, settings.origins, {}, tmp_path)[0]
    assert main.retention == retention(settings, 32_000, UNCACHED)
    assert main.retention is not None and main.retention.prune_minimum == 100  # as set
    assert not main.retention.cached and main.retention.threshold == 0.55
