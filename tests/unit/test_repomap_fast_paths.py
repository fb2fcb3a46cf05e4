"""The map's fast paths on large trees give the answers of the plain ones: one look at
the disk per build, the listing as folder-relative names, definers read from the graph,
path stems and path words without `pathlib` (issue 27 item 4)."""

from __future__ import annotations

import math
import os
import shutil
import subprocess
from collections import Counter
from pathlib import Path, PurePosixPath

import numpy as np
import pytest

from cairn.context.sources.repomap import repomap_candidates
from cairn.files.ignore import IgnoreRules
from cairn.repomap.current import CurrentFacts, CurrentTags
from cairn.repomap.file_roles import path_stem
from cairn.repomap.graph import RankGraph
from cairn.repomap.index import TagIndex
from cairn.repomap.lexicon import FileFacts, Lexicon
from cairn.repomap.map import RepoMap
from cairn.repomap.message_mentions import mentions_in, split_identifier
from cairn.repomap.where_parts import definers_in, file_parts

FIXTURE = Path(__file__).resolve().parents[1] / "workspaces" / "repomap_small"
MESSAGE = "Forecast.load fails when the weather station cache is empty"


def count(text: str) -> int:
    return (len(text) + 3) // 4


class Files:
    """A lister that gives absolute paths only, and counts how often it is asked."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.asked = 0

    def files(self) -> list[Path]:
        self.asked += 1
        return sorted(path for path in self.root.rglob("*") if path.is_file())


class Names:
    """A lister of its root's files as relative names; its `files()` must not be used."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()

    def files(self) -> list[Path]:
        raise AssertionError("the map asked for paths though names were there")

    def relative_files(self) -> list[str]:
        paths = sorted(path for path in self.root.rglob("*") if path.is_file())
        return [path.relative_to(self.root).as_posix() for path in paths]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    shutil.copytree(FIXTURE, root)
    return root


def _build(repo_map: RepoMap) -> str:
    blocks = repomap_candidates(repo_map, [], {"Forecast"}, [], count, 100_000, MESSAGE)
    return "\n".join(block.body for block in blocks)


def test_one_build_looks_at_the_disk_once(workspace: Path) -> None:
    files = Files(workspace)
    repo_map = RepoMap(workspace, files)
    first = _build(repo_map)
    assert files.asked == 1  # the mapped files, the ranking and the map share one listing
    path = workspace / "weather" / "radar.py"
    path.write_text("class RadarForecastCache:\n    def load(self):\n        return 1\n")
    second = _build(repo_map)
    assert files.asked == 2
    assert "weather/radar.py" in second and second != first  # the next build sees the edit
    repo_map.where_to_look([], MESSAGE)
    assert files.asked == 3  # outside a build, every call looks


def test_a_listing_by_names_gives_the_map_of_a_listing_by_paths(workspace: Path) -> None:
    by_paths = RepoMap(workspace, Files(workspace))
    by_names = RepoMap(workspace, Names(workspace))
    assert _build(by_names) == _build(by_paths)
    assert by_names.where_to_look([], MESSAGE) == by_paths.where_to_look([], MESSAGE)


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def test_relative_files_are_the_listed_files_relative_to_the_root(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "mod.py").write_text("x = 1\n")
    (root / "gone.py").write_text("y = 2\n")
    (root / "ignored.log").write_text("z\n")
    (root / ".gitignore").write_text("*.log\n")
    _git(root, "init", "-q")
    _git(root, "add", "gone.py")
    (root / "gone.py").unlink()  # tracked, deleted: git still lists it
    os.symlink(root / "pkg" / "mod.py", root / "inside.py")
    os.symlink(root / "nowhere.py", root / "dangling.py")
    os.symlink(tmp_path / "outside.py", root / "outside.py")
    rules = IgnoreRules(root)
    names = rules.relative_files()
    assert names == [path.relative_to(rules.root).as_posix() for path in rules.files()]
    assert names == [".gitignore", "inside.py", "pkg/mod.py"]
    assert rules.skipped == {
        "dangling.py": "dangling symlink",
        "outside.py": "symlink out of the folder",
    }


def test_the_graph_names_the_definers_the_files_name(workspace: Path) -> None:
    index = TagIndex(workspace.resolve(), None)
    index.refresh(Files(workspace.resolve()).files())
    current = CurrentTags(index.tags, {}, {})
    graph = RankGraph(current)
    asked = [*graph.names, "NotDefinedAnywhere", "load"]
    assert graph.definers_by_name(asked) == definers_in(CurrentFacts(current))(asked)
    assert graph.definers_by_name(["NotDefinedAnywhere"]) == {}


@pytest.mark.parametrize(
    "rel",
    ["a/b/c.py", "c.py", ".bashrc", "a/.env.local", "x.", "a.b/c", "pkg/mod.test.ts", "noext"],
)
def test_path_stem_is_the_pathlib_stem(rel: str) -> None:
    assert path_stem(rel) == PurePosixPath(rel).stem


def _path_words_oracle(files: list[str], words: set[str]) -> dict[str, float]:
    """The path-word part as `pathlib` and a split of every part compute it."""
    found: dict[str, set[str]] = {}
    frequency: Counter[str] = Counter()
    for rel in files:
        path = PurePosixPath(rel)
        parts = [*path.parts[:-1], path.stem]
        hits = {w for part in parts for w in split_identifier(part)} & words
        if hits:
            found[rel] = hits
            frequency.update(hits)
    total = len(files)
    return {
        rel: sum(math.log(1.0 + total / frequency[w]) for w in sorted(hits))
        for rel, hits in found.items()
    }


def test_path_words_match_a_split_of_every_path_part() -> None:
    files = sorted(
        [
            "src/weatherStation/CacheLoader.py",
            "src/weather_station/cache.py",
            "données/cacheÉtat/loader.py",
            "lib/HTTPServer/station2cache.ts",
            "docs/empty.md",
            "station.py",
            "a/b/c/d/e/forecast_cache_station.py",
        ]
    )
    message = "the weather station cache loader fails; HTTPServer forecast données état"
    facts = {rel: FileFacts((), {}) for rel in files}
    mentions = mentions_in(message)
    parts = file_parts(facts, mentions, message, Lexicon(facts))
    got = {rel: p.path_words for rel, p in parts.items() if p.path_words}
    assert got == _path_words_oracle(files, set(mentions.words))
    assert got  # the message's words are among these paths


def test_the_scans_counted_shares_make_the_lexicon_of_the_tags(workspace: Path) -> None:
    index = TagIndex(workspace.resolve(), None)
    index.refresh(Files(workspace.resolve()).files())
    counted = index.take_counted()
    assert counted and set(counted) == set(index.tags)
    assert index.take_counted() == {}  # taken once
    facts = CurrentFacts(CurrentTags(index.tags, {}, {}))
    files, vocab, tables = Lexicon(facts, counted).postings.arrays()
    plain_files, plain_vocab, plain_tables = Lexicon(facts).postings.arrays()
    assert (files, vocab) == (plain_files, plain_vocab)
    assert all(np.array_equal(tables[key], plain_tables[key]) for key in plain_tables)


def test_a_buffer_open_before_the_first_ranking_is_counted_from_its_text(
    workspace: Path, tmp_path: Path
) -> None:
    text = "class RadarForecastCache:\n    def load(self):\n        return radar_station\n"
    buffered = RepoMap(workspace, Files(workspace))
    buffered.mapped_files()  # scanned: the shares of the disk's tags are counted
    buffered.update_buffer(workspace / "weather" / "forecast.py", text)
    on_disk = tmp_path / "disk"
    shutil.copytree(workspace, on_disk)
    (on_disk / "weather" / "forecast.py").write_text(text)
    message = "RadarForecastCache loads a radar station forecast"
    expected = RepoMap(on_disk, Files(on_disk)).where_to_look([], message)
    assert buffered.where_to_look([], message) == expected
