"""The repository map's persisted index: tags of every file, re-scanned only when it changed.

Each file's entry is keyed by its size and modification time (ns); a refresh is one
`lstat` pass over the folder's files, and only new or changed files are scanned — with
helper processes on every core when there are many of them (a cold build,
`repomap_workers`). Definitions parsed later for rendering (`complete`, whole files or
parts) are kept in the index too.

What the map must not read is never read: a path the secret rules refuse
(`cairn.files.secrets`, the rules references obey; a symlink is judged by its target too)
is skipped before any `stat`; a file that is not regular or is too large is refused from
its `stat`; minified or generated code from its bytes (`repomap_reading`). A refused file
keeps only its stamp and the reason, no content, so it is not read again until it
changes. Entries of files the rules refuse are dropped when the index is loaded, and the
stored index is then rewritten without them.

The index is stored by `repomap_store` (a base file and an append-only journal): a save
writes only the entries that changed since the last one.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Collection, Iterable, Mapping
from pathlib import Path, PurePosixPath

from cairn.code.languages import language_for_path
from cairn.files.secrets import (
    DEFAULT_SECRET_PATHS,
    SECRET_DIR_NAMES,
    SECRET_EXEMPT_NAMES,
    SECRET_NAME_PATTERNS,
    SecretPaths,
)
from cairn.repomap.entries import IndexTags, Packed, pack
from cairn.repomap.reading import REFUSALS, Refusal, as_refusal, stat_refusal
from cairn.repomap.store import Changes, IndexStore, RawEntry
from cairn.repomap.tags import FileTags, ParseRequest, with_found
from cairn.repomap.workers import PARSE, SCAN, Workers, scan_document, scan_result

LOCATED_SLACK_FACTOR = 2
LOCATED_SLACK = 1024
"""The memo of listed paths is cleared when it holds more than FACTOR x listed + SLACK
paths (files created and deleted since it was filled)."""
TAGS_ENTRY_FIELDS = 4
"""A stored entry of a mapped file: size, mtime and its tags packed (`repomap_entries`);
a refused file's entry is size, mtime, reason."""

Stamp = tuple[int, int]
"""(size in bytes, modification time in ns) of a file when it was scanned."""
SecretPolicy = Callable[[], SecretPaths]
"""The secret-path rules in force (a workspace's `secrets`, which settings may replace)."""
Located = tuple[str, str] | tuple[()]
ScanProgress = Callable[[int, int], None]
"""Told `(done, total)` of a scan: (0, total) first, then after each batch."""
PROGRESS_MIN_FILES = 200
"""A scan of fewer files reports no progress (it takes well under a second)."""
PROGRESS_STEPS = 20
"""A scan that reports progress runs in about this many batches, each reported."""


def rules_key(policy: SecretPaths) -> str:
    """What decides which paths are secret, as text: the user's lists and the built-in
    ones. Entries stored under the same key need not be judged again."""
    builtin = (SECRET_NAME_PATTERNS, sorted(SECRET_EXEMPT_NAMES), sorted(SECRET_DIR_NAMES))
    return repr((type(policy).__qualname__, policy.deny, policy.allow, builtin))


def builtin_secrets() -> SecretPaths:
    """The built-in secret-path rules (`cairn.files.secrets`), without the user's lists;
    an engine passes its workspace's `secrets` instead."""
    return DEFAULT_SECRET_PATHS


class TagIndex:
    """Tags of the files of one folder, by workspace-relative POSIX path."""

    def __init__(
        self, folder: Path, cache_dir: Path | None, secrets: SecretPolicy = builtin_secrets
    ) -> None:
        self.folder = folder
        self._secrets = secrets
        self._policy = secrets()
        self._secret: dict[str, bool] = {}
        """What the rules in force say of each path asked about (cleared with the rules)."""
        self._trusted = False
        """True when the stored entries were admitted under the rules in force."""
        self._store = IndexStore(cache_dir, str(folder))
        self._stamps: dict[str, Stamp] = {}
        self._tags: dict[str, FileTags] = {}
        self._packed: dict[str, Packed] = {}
        """Tags as loaded, not decoded yet (`IndexTags` decodes them when read)."""
        self._view = IndexTags(self._tags, self._packed)
        self._counted: dict[str, bytes] = {}  # document shares, until the lexicon takes them
        self.purged = False
        """True when entries were dropped for the secret rules: what was stored beside the
        index (the ranking snapshot) must go too."""
        self._refused: dict[str, Refusal] = {}
        self._changed: set[str] = set()
        """Paths whose entry changed since the last save."""
        self._rewrite = False
        """True when the next save must rewrite the whole stored index."""
        self.scanned_last_refresh: list[str] = []
        self._workers = Workers()
        self._located: dict[Path | str, Located] = {}
        """Where each listed path was found (`_locate`), so a refresh is little but stats;
        cleared when it holds many more paths than the last listing."""
        self._load()

    @property
    def tags(self) -> IndexTags:
        return self._view

    def stamp(self, rel: str) -> Stamp | None:
        """The (size, mtime) a file had when its entry was made (None: no entry)."""
        return self._stamps.get(rel)

    def _drop(self, rel: str) -> None:
        self._tags.pop(rel, None)
        self._packed.pop(rel, None)

    def is_secret(self, rel: str) -> bool:
        """True for a folder-relative POSIX path the secret rules in force refuse (each
        path judged once per set of rules: loading and listing ask about the same ones)."""
        secret = self._secret.get(rel)
        if secret is None:
            secret = self._secret[rel] = self._policy.is_secret(PurePosixPath(rel))
        return secret

    def _adopt_policy(self, changes: dict[str, FileTags | None]) -> None:
        """Follow new secret rules: forget where listed paths were found and every entry
        the rules now refuse (the stored index is then rewritten without them)."""
        policy = self._secrets()
        if policy is self._policy:
            return
        self._policy = policy
        self._secret.clear()
        self._located.clear()
        self._trusted = False
        self._rewrite = True  # the stored rules must name the new ones
        for rel in [rel for rel in self._stamps if self.is_secret(rel)]:
            self._forget(rel, changes)
            self._rewrite = self.purged = True

    @property
    def refused(self) -> dict[str, Refusal]:
        """Files listed but not mapped, with the reason (secret paths are not listed)."""
        return self._refused

    @property
    def dirty(self) -> bool:
        """True when entries changed since the last save."""
        return bool(self._changed) or self._rewrite

    def _load(self) -> None:
        stored = self._store.load()
        self._trusted = self._store.rules == rules_key(self._policy)
        if stored and not self._trusted:
            self._rewrite = True  # the stored rules must name these ones
        try:
            for rel, entry in stored.items():
                if not self._trusted and self.is_secret(rel):
                    self._rewrite = self.purged = True  # the stored copies must lose it too
                    continue
                stamp = (int(entry[0]), int(entry[1]))  # type: ignore[call-overload]
                if len(entry) == TAGS_ENTRY_FIELDS and isinstance(entry[3], bytes):
                    self._packed[rel] = (entry[2], entry[3])
                elif entry[2] in REFUSALS:
                    self._refused[rel] = as_refusal(entry[2])
                else:
                    raise ValueError(f"unknown index entry for {rel}")
                self._stamps[rel] = stamp
        except (ValueError, TypeError, IndexError, AttributeError):
            self._stamps.clear()
            self._tags.clear()
            self._packed.clear()
            self._refused.clear()
            self._rewrite = self.purged = True

    def _entry(self, rel: str) -> RawEntry | None:
        stamp = self._stamps.get(rel)
        if stamp is None:
            return None
        refusal = self._refused.get(rel)
        if refusal is not None:
            return (stamp[0], stamp[1], refusal)
        packed = self._packed.get(rel)
        if packed is None:
            tags = self._tags.get(rel)
            if tags is None:
                return None
            packed = pack(tags)
        return (stamp[0], stamp[1], *packed)

    def save(self) -> None:
        """Store what changed since the last save: a journal frame, or the whole index
        when the store asks for it (no cache folder: nothing; an unwritable one is skipped,
        the map still works)."""
        if self._store.path is None or not self.dirty:
            return
        if self._rewrite or self._store.needs_rewrite():
            entries = {rel: entry for rel in self._stamps if (entry := self._entry(rel))}
            saved = self._store.write(entries, rules_key(self._policy))
        else:
            changes: Changes = {rel: self._entry(rel) for rel in sorted(self._changed)}
            saved = self._store.append(changes)
        if saved:
            self._changed.clear()
            self._rewrite = False
        if self.purged:
            self._store.drop_snapshot()
            self.purged = False

    @property
    def snapshot_path(self) -> Path | None:
        """Where the ranking snapshot of this index lies (None: nothing is stored)."""
        return self._store.snapshot

    def complete(self, rel: str, names: Collection[str]) -> FileTags:
        """The tags of `rel` with the definitions the outline of `names` needs, parsing
        the file now if needed."""
        self.complete_many({rel: names})
        return self._view[rel]

    def refresh(
        self, files: Iterable[Path | str], progress: ScanProgress | None = None
    ) -> dict[str, FileTags | None]:
        """Stat every file (a `str`: folder-relative), scan new and changed ones, forget
        removed ones; `progress` is told how the scan goes when it has
        `PROGRESS_MIN_FILES` or more files.

        Returns the previous tags (None: it had none) of every file whose tags changed;
        empty when nothing did.
        """
        changes: dict[str, FileTags | None] = {}
        self._adopt_policy(changes)
        current, stale, refused = self._stat_pass(files)
        for rel in [rel for rel in self._stamps if rel not in current]:
            self._forget(rel, changes)
        self.scanned_last_refresh = stale
        scanned = self._scan_reported(stale, current, progress)
        results: list[Packed | Refusal] = [*scanned, *refused.values()]
        for rel, result in zip([*stale, *refused], results, strict=True):
            changes.setdefault(rel, self._view.peek(rel))
            self._refused.pop(rel, None)
            self._drop(rel)
            self._changed.add(rel)
            if result == "unreadable":  # tried again on the next refresh
                self._stamps.pop(rel, None)
                continue
            self._stamps[rel] = current[rel]
            if isinstance(result, str):
                self._refused[rel] = result
            else:
                self._packed[rel] = result
        return {rel: old for rel, old in changes.items() if old is not None or rel in self._view}

    def _forget(self, rel: str, changes: dict[str, FileTags | None]) -> None:
        changes.setdefault(rel, self._view.peek(rel))
        del self._stamps[rel]
        self._counted.pop(rel, None)
        self._drop(rel)
        self._refused.pop(rel, None)
        self._changed.add(rel)

    def _stat_pass(
        self, files: Iterable[Path | str]
    ) -> tuple[dict[str, Stamp], list[str], dict[str, Refusal]]:
        """(stamp of every listed source file, the new or changed ones to scan, the new
        or changed ones refused from their stat)."""
        current: dict[str, Stamp] = {}
        stale: list[str] = []
        refused: dict[str, Refusal] = {}
        located, stamps, lstat, is_link = self._located, self._stamps, os.lstat, stat.S_ISLNK
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
                info: os.stat_result | None = lstat(full)
            except (OSError, ValueError):
                continue  # gone since it was listed
            if is_link(info.st_mode):
                info = self._stat(full)
                if info is None:
                    continue
            stamp = (info.st_size, info.st_mtime_ns)
            current[rel] = stamp
            if stamps.get(rel) == stamp:
                continue
            refusal = stat_refusal(info.st_mode, info.st_size)
            if refusal is None:
                stale.append(rel)
            else:
                refused[rel] = refusal
        if len(located) > LOCATED_SLACK_FACTOR * listed + LOCATED_SLACK:
            located.clear()
            self._secret.clear()
        return current, stale, refused

    def _stat(self, full: str) -> os.stat_result | None:
        """The stat of a file (of its target for a symlink, refused when that target is
        secret or outside the folder); None when it cannot be stat'ed (gone, a loop)."""
        try:
            info = os.lstat(full)
            if not stat.S_ISLNK(info.st_mode):
                return info
            target = os.path.realpath(full)
            inside = self._inside(target)
            if inside is None or self.is_secret(inside):
                return None
            return os.stat(full)
        except (OSError, ValueError):
            return None

    def _inside(self, full: str) -> str | None:
        """The folder-relative POSIX path of an absolute path inside the folder, or None."""
        prefix = str(self.folder) + os.sep
        if not full.startswith(prefix):
            return None
        return full[len(prefix) :].replace(os.sep, "/")

    def _locate(self, path: Path | str) -> Located:
        """(full path, workspace-relative POSIX path) of a source file of the folder (a
        `str` is folder-relative already), or () for a file outside it, in a language
        without a grammar, or with a secret path."""
        if isinstance(path, str):
            full, rel = str(self.folder) + os.sep + path, path
        else:
            full = str(path)
            rel = self._inside(full)
        if rel is None and isinstance(path, Path):
            try:
                full = str(path.resolve())
            except (OSError, RuntimeError):  # a symlink loop
                return ()
            rel = self._inside(full)
        if rel is None or language_for_path(full) is None:
            return ()
        # A stored entry was admitted under the rules in force (`_trusted`): not secret.
        if not (self._trusted and rel in self._stamps) and self.is_secret(rel):
            return ()
        return full, rel

    def _scan_reported(
        self, rels: list[str], stamps: dict[str, Stamp], progress: ScanProgress | None
    ) -> list[Packed | Refusal]:
        """`_scan`, in batches reported to `progress` when there are many files."""
        if progress is None or len(rels) < PROGRESS_MIN_FILES:
            return self._scan(rels, stamps)
        step = max(PROGRESS_MIN_FILES, -(-len(rels) // PROGRESS_STEPS))
        results: list[Packed | Refusal] = []
        progress(0, len(rels))
        for start in range(0, len(rels), step):
            results += self._scan(rels[start : start + step], stamps)
            progress(len(results), len(rels))
        return results

    def _scan(self, rels: list[str], stamps: dict[str, Stamp]) -> list[Packed | Refusal]:
        paths = [str(self.folder / rel) for rel in rels]
        results = self._workers.run(SCAN, paths, [stamps[rel][0] for rel in rels])
        for rel, result in zip(rels, results, strict=True):
            share = scan_document(result)
            if share is None:
                self._counted.pop(rel, None)
            else:
                self._counted[rel] = share
        return [scan_result(result) for result in results]

    def take_counted(self) -> dict[str, bytes]:
        """The document shares the scans counted since the last call (`Lexicon`'s)."""
        counted, self._counted = self._counted, {}
        return counted

    def complete_many(self, wanted: Mapping[str, Collection[str]]) -> None:
        """Parse what the outlines of these files and names need (in parallel if many)."""
        requests: list[ParseRequest] = []
        rels: list[str] = []
        for rel, names in wanted.items():
            parts = self._view[rel].unparsed(names)
            if parts != []:
                requests.append((str(self.folder / rel), sorted(names), parts))
                rels.append(rel)
        if not requests:
            return
        sizes = [self._stamps.get(rel, (0, 0))[0] for rel in rels]
        for rel, found in zip(rels, self._workers.run(PARSE, requests, sizes), strict=True):
            self._tags[rel] = with_found(self._view[rel], found)
            self._changed.add(rel)

    def close(self) -> None:
        """Stop the helper processes, if any were started (they are started again on need)."""
        self._workers.close()
