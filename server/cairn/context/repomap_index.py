"""The repository map's persisted index: tags of every file, re-parsed only when it changed.

Each file's entry is keyed by its size and modification time (ns); a refresh is one stat
pass over the folder's files, and only new or changed files are parsed — on every core
when there are many of them (a cold build). The index is saved in `cache_dir` as one
`marshal` file written atomically (temp file, fsync, rename); a missing, corrupt or
foreign-version file just means a cold build.
"""

from __future__ import annotations

import marshal
import os
import sys
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context
from pathlib import Path

from cairn.code.languages import language_for_path
from cairn.context.repomap_tags import FileTags, tags_of_files

INDEX_FORMAT = 1
INDEX_NAME = f"repomap-v{INDEX_FORMAT}-py{sys.version_info.major}{sys.version_info.minor}.marshal"
PARALLEL_MIN_FILES = 64
"""Fewer files to parse than this are parsed in this process (a pool costs ~0.1 s to start)."""
FILES_PER_TASK = 32
"""Files handed to a pool worker at a time."""
MARSHAL_VERSION = 4

Stamp = tuple[int, int]
"""(size in bytes, modification time in ns) of a file when it was parsed."""


class TagIndex:
    """Tags of the files of one folder, by workspace-relative POSIX path."""

    def __init__(self, folder: Path, cache_dir: Path | None) -> None:
        self.folder = folder
        self._path = cache_dir / INDEX_NAME if cache_dir is not None else None
        self._stamps: dict[str, Stamp] = {}
        self._tags: dict[str, FileTags] = {}
        self.parsed_last_refresh: list[str] = []
        self._load()

    @property
    def tags(self) -> dict[str, FileTags]:
        return self._tags

    def _load(self) -> None:
        if self._path is None:
            return
        try:
            raw = marshal.loads(self._path.read_bytes())
            files: dict[str, tuple[int, int, list[list[object]], dict[str, int]]] = raw["files"]
            if raw["format"] != INDEX_FORMAT or raw["folder"] != str(self.folder):
                return
            for rel, (size, mtime, definitions, references) in files.items():
                self._stamps[rel] = (size, mtime)
                self._tags[rel] = FileTags(
                    tuple((d[0], d[1], d[2], d[3], d[4]) for d in definitions),  # type: ignore[misc]
                    references,
                )
        except (OSError, EOFError, ValueError, TypeError, KeyError, IndexError):
            self._stamps.clear()
            self._tags.clear()

    def save(self) -> None:
        """Write the index atomically (no-op without a cache folder)."""
        if self._path is None:
            return
        files = {
            rel: (stamp[0], stamp[1], [list(d) for d in tags.definitions], tags.references)
            for rel, stamp in self._stamps.items()
            if (tags := self._tags.get(rel)) is not None
        }
        data = marshal.dumps(
            {"format": INDEX_FORMAT, "folder": str(self.folder), "files": files}, MARSHAL_VERSION
        )
        self._path.parent.mkdir(parents=True, exist_ok=True)
        temp = self._path.with_name(f".{self._path.name}.{os.getpid()}.tmp")
        with open(temp, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, self._path)

    def refresh(self, files: Iterable[Path]) -> bool:
        """Stat every file, parse new and changed ones, forget removed ones.

        Returns True when anything changed (the caller then saves and re-ranks).
        """
        current: dict[str, Stamp] = {}
        stale: list[str] = []
        for path in files:
            if language_for_path(path.name) is None:
                continue
            try:
                stat = path.stat()
            except OSError:
                continue
            rel = path.relative_to(self.folder).as_posix()
            stamp = (stat.st_size, stat.st_mtime_ns)
            current[rel] = stamp
            if self._stamps.get(rel) != stamp:
                stale.append(rel)
        removed = [rel for rel in self._stamps if rel not in current]
        for rel in removed:
            del self._stamps[rel]
            self._tags.pop(rel, None)
        self.parsed_last_refresh = stale
        for rel, tags in zip(stale, self._parse(stale), strict=True):
            if tags is None:
                self._stamps.pop(rel, None)
                self._tags.pop(rel, None)
            else:
                self._stamps[rel] = current[rel]
                self._tags[rel] = tags
        return bool(stale or removed)

    def _parse(self, rels: list[str]) -> list[FileTags | None]:
        paths = [str(self.folder / rel) for rel in rels]
        workers = os.cpu_count() or 1
        if len(paths) < PARALLEL_MIN_FILES or workers < 2:
            return tags_of_files(paths)
        batches = [paths[i : i + FILES_PER_TASK] for i in range(0, len(paths), FILES_PER_TASK)]
        results: list[FileTags | None] = []
        try:
            with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn")) as pool:
                for batch in pool.map(tags_of_files, batches):
                    results.extend(batch)
        except (BrokenProcessPool, OSError):
            # No usable worker processes (e.g. an unguarded __main__): parse here instead.
            return tags_of_files(paths)
        return results
