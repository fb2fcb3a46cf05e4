"""Keeping the engine's cached views of the workspace files current.

The engine caches what it knows about the files: the root folder's
`IgnoreRules` cache the non-ignored file list (glob, grep, `@dir` listings,
the repository map and the profile's rules files all read it), and the
repository map keeps the tags of every source file. Two kinds of news reach
them through `FileSync`:

- `files_changed(paths)` (the editor's file watcher, a save) only records the
  paths. The next `sync()` (before every context build) looks at them once:
  a created or deleted file, a new folder, or a changed `.gitignore` refreshes
  the folder's ignore rules (one file listing however many events came in);
  a content change of a file already listed needs nothing here, because the
  repository map notices changed stamps on its own stat pass and the rules
  files and the profile are re-read by hash on every build.
- `sync()` also hands the open editor buffers whose version changed since the
  last sync to the repository map (`RepoMap.update_buffer`), and sends closed
  ones back to their disk copy. Nothing changed: one dict comparison per
  open buffer.

A sync is two steps, so its work can leave the thread that owns the editor
state: `take()` (on that thread, cheap: the recorded events and the texts of
the buffers that changed, marked as handed over) and `apply(work)` (the
listing refresh and the map's parsing, on any one thread at a time — the
context build's worker). `sync()` does both.

`refresh_all()` is the turn-start safety net for clients without a watcher
(the CLI): every cached listing is rebuilt and the map re-stats its files.
Secondary workspace folders are not cached across calls (tools and
references load their rules per turn or per call), so only the root's rules
live here.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from cairn.files.buffers import Buffer
from cairn.files.ignore import GITIGNORE_NAME, IgnoreRules, has_always_ignored_part
from cairn.files.reading import try_resolve
from cairn.files.workspace import Workspace


class BufferMap(Protocol):
    """What the sync needs of `cairn.repomap.map.RepoMap`."""

    def update_buffer(self, path: Path, text: str | None) -> None: ...

    def refresh(self) -> None: ...


@dataclass(frozen=True)
class SyncWork:
    """What one sync applies: file events, and open buffers' new texts (None: closed)."""

    events: frozenset[Path] = frozenset()
    buffers: tuple[tuple[Path, str | None], ...] = ()


class FileSync:
    """Pending file events and buffer versions of one engine (`take` on the thread that
    owns the editor state, `apply` on one thread at a time)."""

    def __init__(
        self,
        workspace: Workspace,
        root_rules: IgnoreRules,
        repomap: BufferMap | None,
    ) -> None:
        self.workspace = workspace
        self._root_rules = root_rules
        self.repomap = repomap
        self._pending: set[Path] = set()
        # The root's listed files and their folders, for the listing generation they show
        # (built on demand; whoever refreshes the rules, a tool or the profile, outdates it).
        self._known: tuple[int, frozenset[Path], frozenset[Path]] | None = None
        # Open buffers as last handed to the map: path → (buffer object, version).
        self._synced: dict[Path, tuple[Buffer, int]] = {}
        self.listing_refreshes = 0

    def files_changed(self, paths: Iterable[Path]) -> None:
        """Record changed, created or deleted paths; applied by the next `sync()`."""
        for path in paths:
            absolute = path if path.is_absolute() else self.workspace.root / path
            # The folder resolved like the workspace's own paths; the name kept (it may be gone).
            folder = try_resolve(absolute.parent) or Path(os.path.normpath(absolute.parent))
            self._pending.add(folder / absolute.name)

    def sync(self) -> None:
        """Apply the recorded file events, then the changed open buffers."""
        self.apply(self.take())

    def take(self) -> SyncWork:
        """The recorded events and the changed buffers' texts, handed over (cheap)."""
        events, self._pending = frozenset(self._pending), set()
        return SyncWork(events, self._changed_buffers())

    def apply(self, work: SyncWork, *, refresh: bool = False) -> None:
        """Refresh the root's listing when an event changes it (`refresh`: the listing and
        the map's stamps in any case), then update the map's buffers."""
        rules = self._root_rules
        if refresh:
            self._refresh_listing(rules)
            if self.repomap is not None:
                self.repomap.refresh()
        elif any(self._changes_listing(rules, path) for path in work.events):
            self._refresh_listing(rules)
        if self.repomap is not None:
            for path, text in work.buffers:
                self.repomap.update_buffer(path, text)

    def refresh_all(self) -> None:
        """Rebuild the root's file listing and re-stat the map's files (no event needed)."""
        self.apply(self.take(), refresh=True)

    # -- file events -------------------------------------------------------------
    def _changes_listing(self, rules: IgnoreRules, path: Path) -> bool:
        """True when `path`'s event can change which files the root folder lists."""
        relative = rules.relative(path)
        if not relative or has_always_ignored_part(relative):
            return False
        if path.name == GITIGNORE_NAME:
            return True
        files, folders = self._listed(rules)
        if not path.exists():  # deleted: the listing must drop it (or what was below it)
            return path in files or path in folders
        if path.is_dir():
            return path not in folders and not rules.is_ignored(path)
        return path not in files and not rules.is_ignored(path)

    def _listed(self, rules: IgnoreRules) -> tuple[frozenset[Path], frozenset[Path]]:
        """(listed files, every folder holding one) of the root's current listing."""
        if self._known is None or self._known[0] != rules.generation:
            files = frozenset(rules.files())
            folders: set[Path] = set()
            for path in files:
                for parent in path.parents:
                    if parent in folders or parent == rules.root:
                        break
                    folders.add(parent)
            self._known = (rules.generation, files, frozenset(folders))
        return self._known[1], self._known[2]

    def _refresh_listing(self, rules: IgnoreRules) -> None:
        rules.refresh()
        self.listing_refreshes += 1

    # -- buffers -----------------------------------------------------------------
    def _changed_buffers(self) -> tuple[tuple[Path, str | None], ...]:
        """The open buffers whose version changed since the last call, with their texts, and
        the closed ones (None), each marked as handed to the map."""
        if self.repomap is None:
            return ()
        buffers = self.workspace.buffers
        changed: list[tuple[Path, str | None]] = []
        for path, buffer in buffers.items():
            seen = self._synced.get(path)
            if seen is not None and seen[0] is buffer and seen[1] == buffer.version:
                continue
            changed.append((path, buffer.text))
            self._synced[path] = (buffer, buffer.version)
        for path in [path for path in self._synced if path not in buffers]:
            del self._synced[path]
            changed.append((path, None))
        return tuple(changed)
