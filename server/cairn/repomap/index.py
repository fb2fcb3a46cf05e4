"""The repository map's persisted index: tags of every file, re-scanned only when it changed.

Each file's entry is keyed by its size and modification time (ns); a refresh is one stat
pass over the folder's files, and only new or changed files are scanned — with helper
processes on every core when there are many of them (a cold build, `repomap_workers`).
Definitions parsed later for rendering (`complete`, whole files or parts) are kept in the
index too. The index is saved in `cache_dir` as one `marshal` file written by
`trace.files.atomic_write` (temp file, fsync, rename, fsync of the folder); a missing,
corrupt or foreign-version file just means a cold build.
"""

from __future__ import annotations

import marshal
import os
import sys
from collections.abc import Collection, Iterable, Mapping, Sequence
from pathlib import Path

from cairn.code.languages import language_for_path
from cairn.repomap.parts import DefRecord, NameParts, PartRecords
from cairn.repomap.tags import FileTags, ParseRequest, with_found
from cairn.repomap.workers import PARSE, SCAN, Workers, scan_result_tags

INDEX_FORMAT = 3
INDEX_NAME = f"repomap-v{INDEX_FORMAT}-py{sys.version_info.major}{sys.version_info.minor}.marshal"
MARSHAL_VERSION = 4
LOCATED_SLACK_FACTOR = 2
LOCATED_SLACK = 1024
"""The memo of listed paths is cleared when it holds more than FACTOR x listed + SLACK
paths (files created and deleted since it was filled)."""

Stamp = tuple[int, int]
"""(size in bytes, modification time in ns) of a file when it was scanned."""


def _record(raw: Sequence[object]) -> DefRecord:
    name, first, last, line, signature = raw
    return (str(name), int(first), int(last), int(line), str(signature))  # type: ignore[call-overload]


def _part_records(raw: Mapping[object, Sequence[Sequence[object]]]) -> PartRecords:
    return {int(start): tuple(map(_record, records)) for start, records in raw.items()}  # type: ignore[call-overload]


def _name_parts(raw: Mapping[object, Sequence[Sequence[object]]]) -> NameParts:
    return {
        str(name): tuple((int(start), int(end)) for start, end in spans)  # type: ignore[call-overload]
        for name, spans in raw.items()
    }


class TagIndex:
    """Tags of the files of one folder, by workspace-relative POSIX path."""

    def __init__(self, folder: Path, cache_dir: Path | None) -> None:
        self.folder = folder
        self._path = cache_dir / INDEX_NAME if cache_dir is not None else None
        self._stamps: dict[str, Stamp] = {}
        self._tags: dict[str, FileTags] = {}
        self.scanned_last_refresh: list[str] = []
        self.dirty = False
        """True when tags changed since the last save."""
        self._workers = Workers()
        self._located: dict[Path, tuple[str, str] | tuple[()]] = {}
        """Where each listed path was found (`_locate`), so a refresh is little but stats;
        cleared when it holds many more paths than the last listing."""
        self._load()

    @property
    def tags(self) -> dict[str, FileTags]:
        return self._tags

    def _load(self) -> None:
        if self._path is None:
            return
        try:
            raw = marshal.loads(self._path.read_bytes())
            if raw["format"] != INDEX_FORMAT or raw["folder"] != str(self.folder):
                return
            for rel, entry in raw["files"].items():
                size, mtime, names, references, definitions, part_records, name_parts = entry
                self._stamps[rel] = (int(size), int(mtime))
                self._tags[rel] = FileTags(
                    tuple(names),
                    dict(references),
                    None if definitions is None else tuple(map(_record, definitions)),
                    None if part_records is None else _part_records(part_records),
                    None if name_parts is None else _name_parts(name_parts),
                )
        except (OSError, EOFError, ValueError, TypeError, KeyError, IndexError, AttributeError):
            self._stamps.clear()
            self._tags.clear()

    def save(self) -> None:
        """Write the index atomically (no-op without a cache folder; an unwritable one is
        skipped, the map still works)."""
        if self._path is None:
            return
        files = {
            rel: (
                stamp[0],
                stamp[1],
                tags.names,
                tags.references,
                tags.definitions,
                tags.part_records,
                tags.name_parts,
            )
            for rel, stamp in self._stamps.items()
            if (tags := self._tags.get(rel)) is not None
        }
        data = marshal.dumps(
            {"format": INDEX_FORMAT, "folder": str(self.folder), "files": files}, MARSHAL_VERSION
        )
        # Imported here: the trace package loads pydantic, which the map itself never needs.
        from cairn.trace.files import atomic_write

        try:
            self._path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(self._path, data)
        except OSError:
            # An unwritable cache only costs the next process a cold build.
            return
        self.dirty = False

    def complete(self, rel: str, names: Collection[str]) -> FileTags:
        """The tags of `rel` with the definitions the outline of `names` needs, parsing
        the file now if needed."""
        self.complete_many({rel: names})
        return self._tags[rel]

    def refresh(self, files: Iterable[Path]) -> bool:
        """Stat every file, scan new and changed ones, forget removed ones.

        Returns True when anything changed (the caller then saves and re-ranks).
        """
        current: dict[str, Stamp] = {}
        stale: list[str] = []
        located = self._located
        listed = 0
        for path in files:
            listed += 1
            place = located.get(path)
            if place is None:
                place = located[path] = self._locate(path)
            if not place:
                continue
            full, rel = place
            try:
                stat = os.stat(full)
            except OSError:
                continue
            stamp = (stat.st_size, stat.st_mtime_ns)
            current[rel] = stamp
            if self._stamps.get(rel) != stamp:
                stale.append(rel)
        if len(located) > LOCATED_SLACK_FACTOR * listed + LOCATED_SLACK:
            located.clear()
        removed = [rel for rel in self._stamps if rel not in current]
        for rel in removed:
            del self._stamps[rel]
            self._tags.pop(rel, None)
        self.scanned_last_refresh = stale
        for rel, tags in zip(stale, self._scan(stale, current), strict=True):
            if tags is None:
                self._stamps.pop(rel, None)
                self._tags.pop(rel, None)
            else:
                self._stamps[rel] = current[rel]
                self._tags[rel] = tags
        if stale or removed:
            self.dirty = True
        return bool(stale or removed)

    def _locate(self, path: Path) -> tuple[str, str] | tuple[()]:
        """(full path, workspace-relative POSIX path) of a source file of the folder, or ()
        for a file outside it or in a language without a grammar."""
        prefix = str(self.folder) + os.sep
        full = str(path)
        if not full.startswith(prefix):
            full = str(path.resolve())
            if not full.startswith(prefix):
                return ()
        if language_for_path(full) is None:
            return ()
        return full, full[len(prefix) :].replace(os.sep, "/")

    def _scan(self, rels: list[str], stamps: dict[str, Stamp]) -> list[FileTags | None]:
        paths = [str(self.folder / rel) for rel in rels]
        results = self._workers.run(SCAN, paths, [stamps[rel][0] for rel in rels])
        return [scan_result_tags(result) for result in results]

    def complete_many(self, wanted: Mapping[str, Collection[str]]) -> None:
        """Parse what the outlines of these files and names need (in parallel if many)."""
        requests: list[ParseRequest] = []
        rels: list[str] = []
        for rel, names in wanted.items():
            parts = self._tags[rel].unparsed(names)
            if parts != []:
                requests.append((str(self.folder / rel), sorted(names), parts))
                rels.append(rel)
        if not requests:
            return
        sizes = [self._stamps.get(rel, (0, 0))[0] for rel in rels]
        for rel, found in zip(rels, self._workers.run(PARSE, requests, sizes), strict=True):
            self._tags[rel] = with_found(self._tags[rel], found)
        self.dirty = True

    def close(self) -> None:
        """Stop the helper processes, if any were started (they are started again on need)."""
        self._workers.close()
