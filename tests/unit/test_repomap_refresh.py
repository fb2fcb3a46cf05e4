"""Files changed on disk: the map's work and its stored index grow with the change, not
with the repository, and the result is the map a fresh build gives."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cairn.repomap.map import RepoMap
from cairn.repomap.store import INDEX_NAME, JOURNAL_SUFFIX

FIXTURE = Path(__file__).resolve().parents[1] / "workspaces" / "repomap_small"
PLAY = "shop/cli.py"
MENTIONED = {"Forecast"}
BUDGET = 400
EDITS_BEFORE_REWRITE = 400
"""More one-file saves than a journal may hold before the base is rewritten."""


def count(text: str) -> int:
    return (len(text) + 3) // 4


class Files:
    def __init__(self, root: Path) -> None:
        self.root = root

    def files(self) -> list[Path]:
        return sorted(path for path in self.root.rglob("*") if path.is_file())


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    shutil.copytree(FIXTURE, root)
    return root


def _render(repomap: RepoMap, root: Path) -> str:
    return repomap.render([root / PLAY], MENTIONED, BUDGET, count)


def _fresh(root: Path) -> str:
    return _render(RepoMap(root, Files(root)), root)


def _edit_body(root: Path, step: int) -> None:
    """Change what `apply_discount` uses, not the names the file defines."""
    path = root / "shop" / "pricing.py"
    text = path.read_text().replace("return total * 0.9", f"return total * 0.9 + 0 * {step}")
    path.write_text(text.replace(f"+ 0 * {step - 1}", ""))


def test_a_body_edit_on_disk_patches_the_graph(workspace: Path) -> None:
    repomap = RepoMap(workspace, Files(workspace))
    _render(repomap, workspace)
    path = workspace / "shop" / "pricing.py"
    path.write_text(path.read_text().replace("return total * 0.9", "return total * Order.rate"))
    assert _render(repomap, workspace) == _fresh(workspace)
    assert repomap.scanned_last_refresh == ["shop/pricing.py"]
    assert repomap.graph_builds == 1


def test_changed_names_added_and_removed_files_match_a_fresh_build(workspace: Path) -> None:
    repomap = RepoMap(workspace, Files(workspace))
    _render(repomap, workspace)
    (workspace / "shop" / "pricing.py").write_text(
        (workspace / "shop" / "pricing.py").read_text() + "\n\ndef surcharge():\n    return 1\n"
    )
    assert _render(repomap, workspace) == _fresh(workspace)
    (workspace / "shop" / "tax.py").write_text("def tax_rate(order):\n    return Forecast()\n")
    assert _render(repomap, workspace) == _fresh(workspace)
    (workspace / "weather" / "report.py").unlink()
    assert _render(repomap, workspace) == _fresh(workspace)


def test_a_save_after_one_edit_appends_only_that_file(workspace: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    repomap = RepoMap(workspace, Files(workspace), cache)
    _render(repomap, workspace)
    base = cache / INDEX_NAME
    journal = cache / (INDEX_NAME + JOURNAL_SUFFIX)
    before = base.read_bytes()
    _edit_body(workspace, 1)
    text = _render(repomap, workspace)
    assert base.read_bytes() == before  # the base is not rewritten
    assert b"pricing.py" in journal.read_bytes() and b"forecast.py" not in journal.read_bytes()
    warm = RepoMap(workspace, Files(workspace), cache)
    assert _render(warm, workspace) == text == _fresh(workspace)
    assert warm.scanned_last_refresh == []  # the journal brought the edit


def test_a_torn_journal_costs_only_a_rescan(workspace: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    repomap = RepoMap(workspace, Files(workspace), cache)
    _render(repomap, workspace)
    _edit_body(workspace, 1)
    _render(repomap, workspace)
    journal = cache / (INDEX_NAME + JOURNAL_SUFFIX)
    journal.write_bytes(journal.read_bytes()[:-3])  # a crash in the middle of the append
    warm = RepoMap(workspace, Files(workspace), cache)
    assert _render(warm, workspace) == _fresh(workspace)
    assert warm.scanned_last_refresh == ["shop/pricing.py"]


def test_a_long_journal_is_folded_into_the_base(workspace: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    repomap = RepoMap(workspace, Files(workspace), cache)
    _render(repomap, workspace)
    journal = cache / (INDEX_NAME + JOURNAL_SUFFIX)
    sizes: list[int] = []
    for step in range(1, EDITS_BEFORE_REWRITE):
        _edit_body(workspace, step)
        repomap.refresh()
        sizes.append(journal.stat().st_size if journal.exists() else 0)
    assert max(sizes) > 0 and 0 in sizes[sizes.index(max(sizes)) :]
    warm = RepoMap(workspace, Files(workspace), cache)
    assert _render(warm, workspace) == _fresh(workspace)
    assert warm.scanned_last_refresh == []
