"""Repository-map helper processes: same results as in-process work, failures fall back."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from cairn.repomap.map import RepoMap
from cairn.repomap.workers import (
    PARALLEL_MIN_FILES,
    PARSE,
    SCAN,
    Workers,
    batches_by_size,
    scan_result_tags,
)

FILES = PARALLEL_MIN_FILES + 16
HANG_DEADLINE_S = 1.0
"""How long the tests wait for a helper that never answers."""


def _write_project(root: Path) -> list[str]:
    paths: list[str] = []
    for i in range(FILES):
        path = root / f"pkg/mod_{i:03d}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        body = "".join(f"    value_{j} = helper_{(i + j) % FILES}()\n" for j in range(i % 7 + 1))
        path.write_text(
            f'"""Module {i}."""\n\n'
            f"class Thing{i}:\n    def method(self) -> int:\n{body}        return 1\n\n\n"
            f"def helper_{i}() -> int:\n    return Thing{(i + 1) % FILES}().method()\n"
        )
        paths.append(str(path))
    (root / "web.ts").write_text("export function quote(sku: string): number {\n  return 1;\n}\n")
    paths.append(str(root / "web.ts"))
    (root / "broken.py").write_bytes(b"def broken(:\n  \xff\xfe\n")
    paths.append(str(root / "broken.py"))
    paths.append(str(root / "missing.py"))
    return paths


def _sizes(paths: list[str]) -> list[int]:
    return [Path(path).stat().st_size if Path(path).exists() else 0 for path in paths]


@pytest.fixture
def project(tmp_path: Path) -> list[str]:
    return _write_project(tmp_path)


def test_helpers_give_the_results_of_in_process_work(project: list[str]) -> None:
    alone = Workers(helpers=0)
    workers = Workers(helpers=1)
    requests = [(path, ["method", "helper_3", "quote"], []) for path in project]
    try:
        for job, items in ((SCAN, project), (PARSE, requests)):
            expected = alone.run(job, items, _sizes(project))
            assert workers.run(job, items, _sizes(project)) == expected
            assert workers.running == 1
        assert scan_result_tags(alone.run(SCAN, project, _sizes(project))[-1]) == "unreadable"
    finally:
        workers.close()
    assert workers.running == 0


@pytest.mark.parametrize(
    "command",
    [
        [sys.executable, "-c", "import sys; sys.exit(3)"],
        [sys.executable, "-c", "import sys; sys.stdout.buffer.write(b'\\x05' * 64)"],
        [sys.executable, "-c", "import sys; sys.stdin.read(); print('not a frame')"],
        [sys.executable, "-c", "import time; time.sleep(60)"],
        ["/nonexistent/python-for-cairn-helpers"],
    ],
    ids=["exits", "answers-garbage", "never-answers", "hangs", "cannot-start"],
)
def test_a_failing_helper_means_the_work_is_done_here(
    project: list[str], command: list[str]
) -> None:
    expected = Workers(helpers=0).run(SCAN, project, _sizes(project))
    workers = Workers(helpers=1, command=command, deadline_s=HANG_DEADLINE_S)
    try:
        assert workers.run(SCAN, project, _sizes(project)) == expected
        assert workers.running == 0
    finally:
        workers.close()


def test_small_batches_stay_in_this_process(project: list[str]) -> None:
    workers = Workers(helpers=1)
    few = project[: PARALLEL_MIN_FILES - 1]
    assert workers.run(SCAN, few, _sizes(few)) == Workers(helpers=0).run(SCAN, few, _sizes(few))
    assert workers.running == 0


def test_batches_by_size_balance_and_keep_every_index_in_order() -> None:
    sizes = [50, 10, 40, 30, 20, 20, 10, 5, 5, 10]
    batches = batches_by_size(sizes, 4)
    assert [i for batch in batches for i in batch] == list(range(len(sizes)))
    assert len(batches) <= 4
    assert all(batch for batch in batches)
    loads = [sum(sizes[i] + 1 for i in batch) for batch in batches]
    assert max(loads) <= 2 * (sum(sizes) + len(sizes)) / 4
    assert batches_by_size([], 4) == []
    assert batches_by_size([1000, 1, 1], 8) == [[0], [1], [2]]


class _Listing:
    def __init__(self, paths: list[Path]) -> None:
        self._paths = paths

    def files(self) -> list[Path]:
        return self._paths


def test_map_built_with_helpers_equals_one_built_alone(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    paths = [Path(p) for p in _write_project(root) if Path(p).exists()]
    play = [root / "pkg/mod_000.py"]

    def render(helpers: int, cache: Path) -> str:
        repomap = RepoMap(root, _Listing(paths), cache)
        repomap._index._workers = Workers(helpers=helpers)  # the point of the test
        return repomap.render(play, {"Thing5"}, 600, lambda text: (len(text) + 3) // 4)

    shared = render(1, tmp_path / "cache-helpers")
    assert shared
    assert shared == render(0, tmp_path / "cache-alone")
    assert "pkg/mod_005.py:" in shared
