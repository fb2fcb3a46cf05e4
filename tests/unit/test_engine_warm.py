"""`Engine.warm`: the repository map's index is built before the first context build."""

from __future__ import annotations

from pathlib import Path

from cairn.agent.parts import REPOMAP_CACHE
from tests.unit.test_agent_support import make_engine


def test_warm_scans_the_workspace_once_and_persists_the_index(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "store.py").write_text("class Store:\n    def get(self): ...\n")
    (tmp_path / "pkg" / "cli.py").write_text("from pkg.store import Store\nStore().get()\n")
    engine = make_engine(tmp_path, [])
    try:
        repomap = engine.repomap
        assert repomap is not None
        engine.warm()
        assert sorted(repomap.scanned_last_refresh) == ["pkg/cli.py", "pkg/store.py"]
        assert list(engine.store.cache_dir(REPOMAP_CACHE).iterdir())
        repomap.refresh()
        assert repomap.scanned_last_refresh == []
    finally:
        engine.close()
