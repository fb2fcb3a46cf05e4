"""The map's budget follows the window and the provider's prompt-cache price, and
`repo_map_tokens` overrides it."""

from __future__ import annotations

import json
from pathlib import Path

from cairn.commands.context_dry_run import build_dry_run
from cairn.context.priorities import (
    REPOMAP_CACHED_TOKENS,
    REPOMAP_MAX_TOKENS,
    REPOMAP_MID_TOKENS,
    REPOMAP_UNCACHED_TOKENS,
)
from cairn.context.sources.repomap import map_cap, repomap_budget


def test_the_cap_follows_the_window() -> None:
    assert map_cap(32_000)[0] == REPOMAP_MAX_TOKENS
    assert map_cap(100_000)[0] == REPOMAP_MID_TOKENS
    assert map_cap(200_000) == (REPOMAP_CACHED_TOKENS, "a 200k window, prompt-cached")
    assert map_cap(1_000_000)[0] == REPOMAP_CACHED_TOKENS


def test_the_cap_follows_the_prompt_cache_price() -> None:
    # An uncached provider pays the map in full on every call: a smaller cap.
    assert map_cap(200_000, None, 1.0) == (
        REPOMAP_UNCACHED_TOKENS,
        "a 200k window, no prompt cache",
    )
    assert map_cap(100_000, None, 1.0)[0] == REPOMAP_MAX_TOKENS
    assert map_cap(32_000, None, 1.0)[0] == REPOMAP_MAX_TOKENS
    cached = map_cap(200_000, None, 0.1)
    assert cached == (REPOMAP_CACHED_TOKENS, "a 200k window, prompt cache reads at 0.1x")
    assert map_cap(100_000, None, 0.1)[0] == REPOMAP_MID_TOKENS
    assert map_cap(32_000, None, 0.1)[0] == REPOMAP_MAX_TOKENS
    assert map_cap(200_000, 3_000, 1.0)[0] == 3_000


def test_the_setting_wins_and_says_so() -> None:
    assert map_cap(1_000_000, 2_000) == (2_000, "repo_map_tokens = 2000")
    assert map_cap(32_000, 6_000)[0] == 6_000


def test_the_budget_stays_a_share_of_a_small_input() -> None:
    assert repomap_budget(900_000, 0.0, REPOMAP_CACHED_TOKENS) == REPOMAP_CACHED_TOKENS
    assert repomap_budget(20_000, 0.0, REPOMAP_CACHED_TOKENS) == 2_000


def _map_reason(root: Path, model: str) -> str:
    built = build_dry_run(root, [], "where is Engine defined", None, model)
    manifest = json.loads(built.manifest.model_dump_json())
    [line] = [b for b in manifest["blocks"] if b["ref"] == "repomap"]
    return line["reason"]


def _workspace(root: Path) -> Path:
    (root / "app").mkdir(parents=True)
    (root / "app" / "engine.py").write_text("class Engine:\n    def run(self):\n        pass\n")
    (root / "app" / "main.py").write_text("from app.engine import Engine\n\nEngine().run()\n")
    return root


def test_the_manifest_names_the_budget_in_effect_and_why(tmp_path: Path) -> None:
    root = _workspace(tmp_path / "ws")
    reason = _map_reason(root, "openai/gpt-4.1")
    assert reason.startswith(f"map budget {REPOMAP_CACHED_TOKENS} tokens (a ")
    assert reason.endswith("window, prompt cache reads at 0.1x)")


def test_an_uncached_provider_gets_the_smaller_map(tmp_path: Path) -> None:
    root = _workspace(tmp_path / "ws")
    (root / "cairn.toml").write_text("[cache_prices.openai]\nread = 1.0\nwrite = 1.0\n")
    reason = _map_reason(root, "openai/gpt-4.1")
    assert reason.startswith(f"map budget {REPOMAP_UNCACHED_TOKENS} tokens (a ")
    assert reason.endswith("window, no prompt cache)")


def test_the_setting_reaches_the_manifest(tmp_path: Path) -> None:
    root = _workspace(tmp_path / "ws")
    (root / "cairn.toml").write_text("repo_map_tokens = 3000\n")
    assert _map_reason(root, "openai/gpt-4.1") == (
        "map budget 3000 tokens (repo_map_tokens = 3000)"
    )
