"""Where the repository map's index lives on disk: one base file and an append-only journal.

The base (`repomap-v<format>-py<version>.marshal`) holds every file's entry and a random
token; it is written whole by `trace.files.atomic_write` (temp file, fsync, rename, fsync
of the folder). Saves between two
base writes append one journal frame (`<base name>.journal`) with only the entries that
changed — a save after one edited file costs that file's entry, not the whole index.
Each frame is its length, a CRC-32 and a `marshal` payload naming the base token it
extends; loading applies the frames of the current base in order and stops at the first
torn or foreign one. The journal is not fsynced: losing its tail in a crash only means
re-scanning those files. When the journal grows past JOURNAL_MAX_SHARE of the base (or
the caller asks, e.g. to drop what must not stay on disk), the base is rewritten and
the journal removed.

Index files of other formats or Python versions in the same folder are deleted on load:
they may hold entries of files the map now refuses.
"""

from __future__ import annotations

import marshal
import os
import secrets
import struct
import sys
import zlib
from contextlib import suppress
from pathlib import Path

INDEX_FORMAT = 5
INDEX_PREFIX = "repomap-v"
INDEX_NAME = (
    f"{INDEX_PREFIX}{INDEX_FORMAT}-py{sys.version_info.major}{sys.version_info.minor}.marshal"
)
JOURNAL_SUFFIX = ".journal"
SNAPSHOT_SUFFIX = ".rank"
"""The snapshot of what ranking needs (`repomap_snapshot`) lies beside the base."""
MARSHAL_VERSION = 4
FRAME_HEADER = struct.Struct("<QI")
"""Each journal frame: payload length (8 bytes), CRC-32 of the payload (4 bytes)."""
JOURNAL_MAX_SHARE = 0.5
JOURNAL_MIN_BYTES = 64 * 1024
"""The base is rewritten when the journal is larger than MAX_SHARE x the base and MIN."""
TOKEN_BYTES = 8

RawEntry = tuple[object, ...]
"""One file's entry as stored (`marshal` types only)."""
Changes = dict[str, RawEntry | None]
"""Entries written or (None) removed since the last save."""


class IndexStore:
    """The index file pair in one cache folder (no folder: nothing is stored)."""

    def __init__(self, cache_dir: Path | None, folder: str) -> None:
        self.path = cache_dir / INDEX_NAME if cache_dir is not None else None
        self._folder = folder
        self._token: bytes | None = None
        self.rules: str | None = None
        """The secret rules the stored entries were admitted under (see `write`)."""
        self._base_bytes = 0
        self._journal_bytes = 0

    @property
    def snapshot(self) -> Path | None:
        return self.path.with_name(self.path.name + SNAPSHOT_SUFFIX) if self.path else None

    def drop_snapshot(self) -> None:
        """Delete the stored snapshot (it may name files the map must forget)."""
        if self.snapshot is not None:
            with suppress(OSError):
                self.snapshot.unlink()

    @property
    def journal(self) -> Path | None:
        return self.path.with_name(self.path.name + JOURNAL_SUFFIX) if self.path else None

    def load(self) -> dict[str, RawEntry]:
        """Every stored entry (base, then journal frames); {} when nothing usable is stored."""
        if self.path is None:
            return {}
        self._remove_foreign()
        try:
            data = self.path.read_bytes()
            raw = marshal.loads(data)
            if raw["format"] != INDEX_FORMAT or raw["folder"] != self._folder:
                return {}
            entries: dict[str, RawEntry] = dict(raw["entries"])
            token = bytes(raw["token"])
            rules = raw["rules"]
        except (OSError, EOFError, ValueError, TypeError, KeyError, AttributeError):
            return {}
        self._token, self._base_bytes = token, len(data)
        self.rules = rules if isinstance(rules, str) else None
        self._journal_bytes = self._apply_journal(entries)
        return entries

    def _apply_journal(self, entries: dict[str, RawEntry]) -> int:
        """Apply the journal's frames of this base; the bytes of the frames applied."""
        journal = self.journal
        try:
            data = journal.read_bytes() if journal is not None else b""
        except OSError:
            return 0
        at = 0
        while at + FRAME_HEADER.size <= len(data):
            size, crc = FRAME_HEADER.unpack_from(data, at)
            payload = data[at + FRAME_HEADER.size : at + FRAME_HEADER.size + size]
            if len(payload) != size or zlib.crc32(payload) != crc:
                break
            try:
                token, changes = marshal.loads(payload)
            except (EOFError, ValueError, TypeError):
                break
            if token != self._token:
                break
            for rel, entry in changes.items():
                if entry is None:
                    entries.pop(rel, None)
                else:
                    entries[rel] = entry
            at += FRAME_HEADER.size + size
        return at

    def _remove_foreign(self) -> None:
        """Delete index files of other formats or Python versions (and their journals)."""
        assert self.path is not None
        try:
            names = os.listdir(self.path.parent)
        except OSError:
            return
        mine = {self.path.name + suffix for suffix in ("", JOURNAL_SUFFIX, SNAPSHOT_SUFFIX)}
        for name in names:
            if name.startswith(INDEX_PREFIX) and name not in mine:
                with suppress(OSError):
                    (self.path.parent / name).unlink()

    def needs_rewrite(self) -> bool:
        """True when the next save should write the base (none yet, or a long journal)."""
        if self._token is None:
            return True
        return self._journal_bytes > max(JOURNAL_MIN_BYTES, JOURNAL_MAX_SHARE * self._base_bytes)

    def write(self, entries: dict[str, RawEntry], rules: str) -> bool:
        """Write the base with every entry and drop the journal; False if it failed.

        `rules` names the secret rules every entry was admitted under: the journal frames
        that follow are written under the same rules (a change of rules rewrites the base).
        """
        if self.path is None:
            return False
        token = secrets.token_bytes(TOKEN_BYTES)
        header = {"format": INDEX_FORMAT, "folder": self._folder, "token": token}
        data = marshal.dumps({**header, "rules": rules, "entries": entries}, MARSHAL_VERSION)
        if not write_atomic(self.path, data):
            return False
        self._token, self._base_bytes, self._journal_bytes = token, len(data), 0
        self.rules = rules
        if self.journal is not None:
            with suppress(OSError):
                self.journal.unlink()
        return True

    def append(self, changes: Changes) -> bool:
        """Append one journal frame with these changes; False if it failed."""
        if self.journal is None or self._token is None:
            return False
        payload = marshal.dumps((self._token, changes), MARSHAL_VERSION)
        frame = FRAME_HEADER.pack(len(payload), zlib.crc32(payload)) + payload
        try:
            with open(self.journal, "ab") as handle:
                handle.write(frame)
        except OSError:
            return False
        self._journal_bytes += len(frame)
        return True


def write_atomic(path: Path, data: bytes) -> bool:
    """Write `data` to `path` with `trace.files.atomic_write`; False on failure."""
    # Imported here: the trace package loads pydantic, which the map itself never needs.
    from cairn.trace.files import atomic_write

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, data)
    except OSError:
        # An unwritable cache only costs the next process a cold build.
        return False
    return True
