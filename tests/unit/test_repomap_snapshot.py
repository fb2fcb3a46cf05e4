"""The ranking snapshot: a new process loads the graph and the lexical statistics instead
of building them, patches in what changed since, and gives the bytes a fresh build gives;
a broken snapshot only costs a build, and none outlives the secret rules."""

from __future__ import annotations

import shutil
from pathlib import Path, PurePath

import pytest

from cairn.files.secrets import SecretPaths
from cairn.repomap import snapshot
from cairn.repomap.map import RepoMap
from cairn.repomap.store import INDEX_NAME, SNAPSHOT_SUFFIX

FIXTURE = Path(__file__).resolve().parents[1] / "workspaces" / "repomap_small"
PLAY = "shop/cli.py"
MESSAGE = "Forecast.report shows the wrong total after apply_discount on an Order"
BUDGET = 600
SNAPSHOT = INDEX_NAME + SNAPSHOT_SUFFIX


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


def first_call(repomap: RepoMap, root: Path) -> tuple[str, str]:
    """What a first call asks of the map: where to look, then the map in that order."""
    ranked = repomap.where_to_look([root / PLAY], MESSAGE)
    lines = "\n".join(f"{c.rel} {c.score!r} {c.reason} {c.symbols}" for c in ranked)
    order = [(c.rel, c.symbols) for c in ranked]
    return lines, repomap.render([root / PLAY], {"Forecast"}, BUDGET, count, order)


def fresh(root: Path) -> tuple[str, str]:
    return first_call(RepoMap(root, Files(root)), root)


def test_a_new_process_loads_the_ranking_data_instead_of_building_it(
    workspace: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    cold = RepoMap(workspace, Files(workspace), cache)
    expected = first_call(cold, workspace)
    assert cold.graph_builds == 1 and (cache / SNAPSHOT).is_file()
    warm = RepoMap(workspace, Files(workspace), cache)
    assert first_call(warm, workspace) == expected == fresh(workspace)
    assert warm.graph_builds == 0


def test_files_changed_between_processes_are_patched_in(workspace: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first_call(RepoMap(workspace, Files(workspace), cache), workspace)
    pricing = workspace / "shop" / "pricing.py"
    pricing.write_text(pricing.read_text().replace("return total * 0.9", "return Forecast"))
    warm = RepoMap(workspace, Files(workspace), cache)
    assert first_call(warm, workspace) == fresh(workspace)
    assert warm.graph_builds == 0  # same names: its uses were patched in
    (workspace / "weather" / "alerts.py").write_text("def forecast_alert(total):\n    return 1\n")
    (workspace / "weather" / "report.py").unlink()
    warm = RepoMap(workspace, Files(workspace), cache)
    assert first_call(warm, workspace) == fresh(workspace)
    assert warm.graph_builds == 1  # a new file with names: the graph is built again


def test_an_open_buffer_is_never_taken_from_the_snapshot(workspace: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    editing = RepoMap(workspace, Files(workspace), cache)
    editing.update_buffer(workspace / "shop" / "pricing.py", "def apply_forecast():\n    pass\n")
    first_call(editing, workspace)
    warm = RepoMap(workspace, Files(workspace), cache)  # no buffer: the disk's file again
    assert first_call(warm, workspace) == fresh(workspace)


@pytest.mark.parametrize("damage", ["truncate", "garbage", "empty", "another folder's"])
def test_a_broken_snapshot_costs_only_a_build(workspace: Path, tmp_path: Path, damage: str) -> None:
    cache = tmp_path / "cache"
    expected = first_call(RepoMap(workspace, Files(workspace), cache), workspace)
    path = cache / SNAPSHOT
    data = path.read_bytes()
    if damage == "truncate":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "garbage":
        path.write_bytes(data[:40] + bytes(range(256)) * 8 + data[40 + 2048 :])
    elif damage == "empty":
        path.write_bytes(b"")
    else:  # a snapshot of a copy of this folder, which is elsewhere
        other, other_cache = tmp_path / "other", tmp_path / "other-cache"
        shutil.copytree(workspace, other)
        first_call(RepoMap(other, Files(other), other_cache), other)
        shutil.copy(other_cache / SNAPSHOT, path)
    warm = RepoMap(workspace, Files(workspace), cache)
    assert first_call(warm, workspace) == expected
    assert warm.graph_builds == 1


def test_a_path_made_secret_leaves_the_stored_snapshot(workspace: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    (workspace / "config").mkdir()
    (workspace / "config" / "deploy.py").write_text("def deploy_credentials():\n    return 2\n")
    first_call(RepoMap(workspace, Files(workspace), cache), workspace)
    assert b"deploy_credentials" in (cache / SNAPSHOT).read_bytes()
    denied = SecretPaths(deny=("config/",))
    warm = RepoMap(workspace, Files(workspace), cache, secrets=lambda: denied)
    lines, text = first_call(warm, workspace)
    assert "config/deploy.py" not in lines + text
    stored = b"".join(p.read_bytes() for p in cache.iterdir())
    assert b"config/deploy.py" not in stored and b"deploy_credentials" not in stored


def test_snapshots_of_other_formats_are_deleted(workspace: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "repomap-v4-py311.marshal.rank").write_bytes(b"deploy_credentials")
    first_call(RepoMap(workspace, Files(workspace), cache), workspace)
    assert sorted(p.name for p in cache.iterdir()) == [INDEX_NAME, SNAPSHOT]


def test_a_warm_process_judges_only_new_paths_by_the_secret_rules(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    first_call(RepoMap(workspace, Files(workspace), cache), workspace)
    asked: list[str] = []
    judge = SecretPaths.rule_for

    def counted(self: SecretPaths, relative: PurePath) -> str | None:
        asked.append(relative.as_posix())
        return judge(self, relative)

    monkeypatch.setattr(SecretPaths, "rule_for", counted)
    first_call(RepoMap(workspace, Files(workspace), cache), workspace)
    assert asked == []  # every stored path was admitted under these same rules
    (workspace / "shop" / "stock.py").write_text("def restock():\n    pass\n")
    first_call(RepoMap(workspace, Files(workspace), cache), workspace)
    assert asked == ["shop/stock.py"]
    other_rules = SecretPaths(deny=("weather/",))
    warm = RepoMap(workspace, Files(workspace), cache, secrets=lambda: other_rules)
    lines, text = first_call(warm, workspace)
    assert "weather/" not in lines + text and len(asked) > 1  # other rules: judged again


def test_a_snapshot_counted_by_other_document_rules_is_not_used(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    with monkeypatch.context() as patched:  # as if `lexical_document` read files otherwise
        patched.setattr(snapshot, "documents_key", lambda: "counted otherwise")
        first_call(RepoMap(workspace, Files(workspace), cache), workspace)
    warm = RepoMap(workspace, Files(workspace), cache)
    assert first_call(warm, workspace) == fresh(workspace)
    assert warm.graph_builds == 1
