"""Repository map: deterministic ranking by relation, budget, persisted index, buffers."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cairn.repomap.map import RepoMap

FIXTURE = Path(__file__).resolve().parents[1] / "workspaces" / "repomap_small"


def count(text: str) -> int:
    """A stand-in tokenizer: a token per four characters, rounded up."""
    return (len(text) + 3) // 4


class Files:
    """Every file of a folder (what the map needs of IgnoreRules)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def files(self) -> list[Path]:
        return sorted(path for path in self.root.rglob("*") if path.is_file())


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    shutil.copytree(FIXTURE, root)
    return root


def _map(root: Path, cache: Path | None = None) -> RepoMap:
    return RepoMap(root, Files(root), cache)


def _files_in(text: str) -> list[str]:
    return [line[:-1] for line in text.splitlines() if not line.startswith(" ")]


def test_same_inputs_give_identical_bytes_in_fresh_objects(workspace: Path) -> None:
    play = [workspace / "shop" / "cli.py"]
    first = _map(workspace).render(play, {"Forecast"}, 400, count)
    second = _map(workspace, workspace.parent / "cache").render(play, {"Forecast"}, 400, count)
    third = _map(workspace, workspace.parent / "cache").render(play, {"Forecast"}, 400, count)
    assert first
    assert first == second == third


def test_output_does_not_depend_on_the_hash_seed(workspace: Path) -> None:
    probe = (
        "import sys\n"
        "from pathlib import Path\n"
        "from cairn.repomap.map import RepoMap\n"
        "root = Path(sys.argv[1])\n"
        "class Files:\n"
        "    def files(self):\n"
        "        return sorted(p for p in root.rglob('*') if p.is_file())\n"
        "text = RepoMap(root, Files(), None).render(\n"
        "    [root / 'shop' / 'pricing.py'], {'Forecast', 'Order'}, 300, lambda t: len(t) // 4)\n"
        "sys.stdout.write(text)\n"
    )
    outputs = set()
    for seed in ("1", "2", "3"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", probe, str(workspace)],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        outputs.add(done.stdout)
    assert len(outputs) == 1
    assert next(iter(outputs))


def test_ranking_favours_files_related_to_the_files_in_play(workspace: Path) -> None:
    text = _map(workspace).render([workspace / "shop" / "cli.py"], set(), 1000, count)
    files = _files_in(text)
    assert set(files[:2]) == {"shop/models.py", "shop/pricing.py"}
    assert "shop/cli.py" not in files
    assert "  L17-18  def add_line(self, product: Product, quantity: int) -> None:" in text


def test_mentioned_identifier_pulls_its_definition_up(workspace: Path) -> None:
    play = [workspace / "shop" / "cli.py"]
    plain = _files_in(_map(workspace).render(play, set(), 1000, count))
    boosted = _files_in(_map(workspace).render(play, {"Forecast"}, 1000, count))
    assert plain[0] != "weather/forecast.py"
    assert boosted[0] == "weather/forecast.py"


def test_small_budget_keeps_only_the_best_and_is_respected(workspace: Path) -> None:
    play = [workspace / "shop" / "cli.py"]
    repomap = _map(workspace)
    sizes = []
    for budget in (0, 10, 40, 80, 200, 2000):
        text = repomap.render(play, set(), budget, count)
        assert count(text) <= budget
        sizes.append(len(text))
    assert sizes == sorted(sizes)
    assert sizes[0] == 0
    small = repomap.render(play, set(), 80, count)
    assert "shop/" in small
    assert "weather/" not in small


def test_map_shows_outlines_with_real_signature_lines(workspace: Path) -> None:
    text = _map(workspace).render([workspace / "shop" / "cli.py"], set(), 2000, count)
    assert "shop/models.py:\n  L7-9  class Product:\n" in text
    assert "web/api.ts:" in text
    assert "  L6-8  export function quoteFor(sku: string): Quote {" in text


def test_persisted_index_is_reused_and_only_changed_files_rescanned(workspace: Path) -> None:
    cache = workspace.parent / "cache"
    play = [workspace / "shop" / "cli.py"]
    cold = _map(workspace, cache)
    cold_text = cold.render(play, set(), 2000, count)
    assert len(cold.scanned_last_refresh) == 6
    assert list(cache.iterdir())

    warm = _map(workspace, cache)
    assert warm.render(play, set(), 2000, count) == cold_text
    assert warm.scanned_last_refresh == []

    pricing = workspace / "shop" / "pricing.py"
    pricing.write_text(
        pricing.read_text() + "\n\ndef refund(order: Order) -> float:\n    return 0.0\n"
    )
    changed = _map(workspace, cache)
    text = changed.render(play, {"refund"}, 2000, count)
    assert changed.scanned_last_refresh == ["shop/pricing.py"]
    assert "def refund(order: Order) -> float:" in text


def test_corrupt_index_means_a_cold_build(workspace: Path) -> None:
    cache = workspace.parent / "cache"
    play = [workspace / "shop" / "cli.py"]
    expected = _map(workspace, cache).render(play, set(), 2000, count)
    for path in cache.iterdir():
        path.write_bytes(b"\x00garbage")
    repomap = _map(workspace, cache)
    assert repomap.render(play, set(), 2000, count) == expected
    assert len(repomap.scanned_last_refresh) == 6


def test_buffer_text_overrides_the_disk_until_dropped(workspace: Path) -> None:
    repomap = _map(workspace)
    play = [workspace / "shop" / "cli.py"]
    forecast = workspace / "weather" / "forecast.py"
    before = repomap.render(play, {"rain_chance"}, 2000, count)
    assert "rain_chance" not in before
    edited = forecast.read_text() + "\n\ndef rain_chance(city: str) -> float:\n    return 0.5\n"
    repomap.update_buffer(forecast, edited)
    after = repomap.render(play, {"rain_chance"}, 2000, count)
    assert "L16-17  def rain_chance(city: str) -> float:" in after
    fresh = _map(workspace)
    fresh.update_buffer(forecast, edited)
    assert fresh.render(play, {"rain_chance"}, 2000, count) == after
    repomap.update_buffer(forecast, None)
    assert repomap.render(play, {"rain_chance"}, 2000, count) == before


def test_edit_in_a_file_in_play_reranks_like_a_fresh_map(workspace: Path) -> None:
    cli = workspace / "shop" / "cli.py"
    repomap = _map(workspace)
    repomap.render([cli], set(), 2000, count)
    assert ("weather/report.py", "print_report") not in repomap.used_definitions([cli], set())
    edited = cli.read_text() + "\n\ndef weather() -> None:\n    print_report('paris')\n"
    repomap.update_buffer(cli, edited)
    incremental = repomap.render([cli], set(), 2000, count)
    fresh = _map(workspace)
    fresh.update_buffer(cli, edited)
    assert incremental == fresh.render([cli], set(), 2000, count)
    used = repomap.used_definitions([cli], set())
    assert ("weather/report.py", "print_report") in used
    assert ("web/api.ts", "quoteFor") not in used


def test_works_with_the_workspace_ignore_rules(workspace: Path) -> None:
    from cairn.files.ignore import IgnoreRules

    (workspace / ".gitignore").write_text("weather/\n")
    rules = IgnoreRules.for_folder(workspace)
    text = RepoMap(workspace, rules, None).render(
        [workspace / "shop" / "cli.py"], {"Forecast"}, 2000, count
    )
    assert "shop/models.py:" in text
    assert "weather/" not in text


def test_unwritable_cache_folder_still_renders(workspace: Path) -> None:
    blocker = workspace.parent / "not-a-folder"
    blocker.write_text("a file where the cache folder should be")
    play = [workspace / "shop" / "cli.py"]
    text = _map(workspace, blocker / "cache").render(play, set(), 2000, count)
    assert text == _map(workspace).render(play, set(), 2000, count)
