"""Crash-safe file primitives: the project's one atomic writer and fsynced JSONL appends.

- `atomic_write`: write a temp file in the same folder, fsync it, `os.replace`
  it over the target, fsync the folder. A reader (or a crash) sees the old
  or the new version, never a mix; an existing file keeps its permissions.
  Every whole-file write of Cairn goes through it: trace records, the
  repository-map index, and `edit_file`'s writes to workspace files.
- `AppendLog`: one full line per write, then fsync. If the file ends with a
  torn line (a crash mid-write), a newline is written first so the fragment
  stays a line of its own (skipped on load) and new records are intact.
- `read_jsonl`: validates each line with a pydantic `TypeAdapter`; a corrupt or
  torn line is skipped, counted and logged, never taking valid lines with it.
"""

from __future__ import annotations

import logging
import os
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from pydantic import TypeAdapter, ValidationError

logger = logging.getLogger(__name__)

T = TypeVar("T")

NEWLINE = b"\n"
FILE_MODE = 0o644
PERMISSION_BITS = 0o7777
TEMP_SUFFIX = ".tmp"
TEMP_RANDOM_BYTES = 4


def fsync_dir(path: Path) -> None:
    """Make a folder's entries (created, renamed files) durable."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_all(fd: int, data: bytes) -> None:
    """`os.write` until every byte is written."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def temp_name(target: Path) -> Path:
    """A unique hidden temp path next to `target` (`.<name>.<pid>.<random>.tmp`)."""
    token = secrets.token_hex(TEMP_RANDOM_BYTES)
    return target.with_name(f".{target.name}.{os.getpid()}.{token}{TEMP_SUFFIX}")


def remove_stale_temps(folder: Path) -> None:
    """Remove temp files left by a crashed writer (call only while holding the write lock)."""
    for stale in folder.glob(f".*{TEMP_SUFFIX}"):
        stale.unlink(missing_ok=True)


def existing_mode(target: Path) -> int | None:
    """The permission bits of `target`, or None when there is no such file."""
    try:
        return target.stat().st_mode & PERMISSION_BITS
    except FileNotFoundError:
        return None


def atomic_write(target: Path, data: bytes) -> None:
    """Replace `target` with `data` atomically and durably, keeping an existing file's mode.

    A new file gets `FILE_MODE` (less the umask). The folder must exist.
    """
    mode = existing_mode(target)
    tmp = temp_name(target)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    try:
        try:
            write_all(fd, data)
            if mode is not None:
                os.fchmod(fd, mode)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    fsync_dir(target.parent)


class AppendLog:
    """An append-only JSONL file, opened on first append and kept open until `close()`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def _open(self) -> int:
        existed = self.path.exists()
        fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, FILE_MODE)
        try:
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != NEWLINE:
                logger.warning("%s: torn last line; new records start on a fresh line", self.path)
                write_all(fd, NEWLINE)
                os.fsync(fd)
        except BaseException:
            os.close(fd)
            raise
        if not existed:
            fsync_dir(self.path.parent)
        return fd

    def append(self, line: bytes) -> None:
        """Write one full line (a newline is added) and fsync it."""
        if self._fd is None:
            self._fd = self._open()
        try:
            write_all(self._fd, line + NEWLINE)
            os.fsync(self._fd)
        except BaseException:
            # A partial line may be on disk: reopen (and repair the tail) next time.
            self.close()
            raise

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


@dataclass
class LineReport:
    """What loading one JSONL file found."""

    file: str
    loaded: int = 0
    corrupt: int = 0
    duplicates: int = 0
    torn_tail: bool = False

    @property
    def skipped(self) -> int:
        return self.corrupt + self.duplicates


def iter_jsonl(path: Path, adapter: TypeAdapter[T], report: LineReport) -> Iterator[T]:
    """Each valid record of a JSONL file, in order, read line by line (memory holds one line
    at a time, whatever the file's size); `report` counts what was loaded and skipped."""
    try:
        stream = path.open("rb")
    except FileNotFoundError:
        return
    with stream:
        for number, line in enumerate(stream, start=1):
            if not line.strip():
                continue
            try:
                record = adapter.validate_json(line)
            except ValidationError as exc:
                report.corrupt += 1
                last = not line.endswith(NEWLINE)
                report.torn_tail = report.torn_tail or last
                kind = "torn last line" if last else "corrupt line"
                logger.warning("%s:%d: %s skipped (%s)", path, number, kind, exc.errors()[0]["msg"])
                continue
            report.loaded += 1
            yield record


def read_jsonl(path: Path, adapter: TypeAdapter[T]) -> tuple[list[T], LineReport]:
    """Every valid record of a JSONL file, in order, and a report of skipped lines."""
    report = LineReport(file=path.name)
    records = list(iter_jsonl(path, adapter, report))
    return records, report


@dataclass
class LoadReport:
    """What loading a trace's JSONL files skipped."""

    messages: LineReport
    manifests: LineReport

    @property
    def skipped(self) -> int:
        """Lines skipped in all files (corrupt, torn or duplicate)."""
        return self.messages.skipped + self.manifests.skipped
