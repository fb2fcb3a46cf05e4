"""Resolving and reading workspace files so that no path can hang or blow up Cairn.

Every resolve and every read of a workspace file goes through here:

- `resolve_path` follows symlinks like `Path.resolve()` but turns a symlink
  loop (a `RuntimeError` in Python 3.11, `OSError(ELOOP)` later) into an
  `UnsafeFileError`; `try_resolve` answers None instead.
- `regular_file_size` stats the path (following links) and refuses anything
  that is not a regular file — a FIFO, a socket, a device — *before* it is
  opened: opening a FIFO blocks until a writer appears, which would freeze
  the thread (or the language server's event loop) doing it.
- `read_bytes_bounded` checks the size limit before reading, opens with
  `O_NONBLOCK` and checks the opened descriptor again (`fstat`), so a file
  swapped for a FIFO between the check and the open is refused too, and
  never reads more than the limit even when the file grows meanwhile.
- `read_sample_bounded` reads a text file of any size by streaming, opened
  the same way, and keeps only a bounded sample of it (head, tail, error
  lines: `cairn.files.sampling`), reading at most `MAX_STREAM_BYTES`; this
  is how a file over the read limit is excerpted instead of refused;
  `read_lines_bounded` streams one range of lines out of such a file.

`UnsafeFileError` is an `OSError`, so every caller that already skips an
unreadable file skips these too; its `problem` says why, for refusals shown
to the user or the model.
"""

from __future__ import annotations

import codecs
import errno
import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from cairn.files.sampling import LineSample, LineSampler, SampleShape

# Largest file (bytes) handed to the model whole, and the default bound of every read.
MAX_FILE_BYTES = 1024 * 1024
# The most of one line `stream_lines` holds at a time.
STREAM_PIECE_BYTES = 1024 * 1024
# Bytes read per system call while reading a file.
READ_CHUNK_BYTES = 256 * 1024
# Most bytes of one file streamed into a sample (the rest is said to be unread).
MAX_STREAM_BYTES = 256 * 1024 * 1024

Problem = Literal["link_loop", "special", "too_large"]

_KIND_NAMES: tuple[tuple[int, str], ...] = (
    (stat.S_IFIFO, "a FIFO"),
    (stat.S_IFSOCK, "a socket"),
    (stat.S_IFCHR, "a character device"),
    (stat.S_IFBLK, "a block device"),
    (stat.S_IFDIR, "a directory"),
)


class UnsafeFileError(OSError):
    """A path Cairn will not follow or open: a symlink loop, not a regular file, too large."""

    def __init__(self, path: Path | str, problem: Problem, detail: str) -> None:
        super().__init__(detail)
        self.path = str(path)
        self.problem: Problem = problem
        self.detail = detail

    def __str__(self) -> str:
        return f"{self.path}: {self.detail}"


def kind_name(mode: int) -> str:
    """'a FIFO', 'a socket', 'a directory'... for a `st_mode` that is not a regular file."""
    file_type = stat.S_IFMT(mode)
    for value, name in _KIND_NAMES:
        if file_type == value:
            return name
    return "not a regular file"


def resolve_path(path: Path) -> Path:
    """`path.resolve()` (non-strict), with a symlink loop raised as `UnsafeFileError`."""
    try:
        return path.resolve()
    except RuntimeError as error:  # Python 3.11: "Symlink loop from ..."
        raise UnsafeFileError(path, "link_loop", "symlink loop") from error
    except OSError as error:  # later Pythons: ELOOP
        raise UnsafeFileError(path, "link_loop", error.strerror or "symlink loop") from error


def try_resolve(path: Path) -> Path | None:
    """The resolved path, or None when it cannot be resolved (a symlink loop)."""
    try:
        return resolve_path(path)
    except UnsafeFileError:
        return None


def refuse_special(path: Path | str, mode: int) -> None:
    """Raise `UnsafeFileError` unless `mode` is a regular file's."""
    if not stat.S_ISREG(mode):
        name = kind_name(mode)
        raise UnsafeFileError(path, "special", f"{name}, not a regular file")


def regular_file_size(path: Path) -> int:
    """The size of the regular file at `path` (links followed), checked without opening it.

    Raises `UnsafeFileError` for anything else, `FileNotFoundError` and the
    other `OSError`s as `os.stat` does (a loop is reported as "link_loop").
    """
    try:
        info = os.stat(path)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise UnsafeFileError(path, "link_loop", "symlink loop") from error
        raise
    refuse_special(path, info.st_mode)
    return info.st_size


def _too_large(path: Path, size: int, max_bytes: int) -> UnsafeFileError:
    return UnsafeFileError(path, "too_large", f"too large ({size} bytes > {max_bytes})")


def _open_regular(path: Path) -> int:
    """A descriptor of the regular file `path`, opened without blocking on a FIFO."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        refuse_special(path, os.fstat(fd).st_mode)  # swapped for a FIFO since the stat
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_bytes_bounded(path: Path, max_bytes: int = MAX_FILE_BYTES, *, head: bool = False) -> bytes:
    """The bytes of the regular file `path`, refused when larger than `max_bytes`.

    With `head=True` the first `max_bytes` are returned instead of a refusal
    (the binary sniff). Never blocks on a FIFO or device, never reads more
    than `max_bytes + 1` bytes.
    """
    size = regular_file_size(path)
    if size > max_bytes and not head:
        raise _too_large(path, size, max_bytes)
    fd = _open_regular(path)
    try:
        info = os.fstat(fd)
        if info.st_size > max_bytes and not head:
            raise _too_large(path, info.st_size, max_bytes)
        chunks: list[bytes] = []
        wanted = max_bytes if head else max_bytes + 1
        while wanted > 0:
            chunk = os.read(fd, min(wanted, READ_CHUNK_BYTES))
            if not chunk:
                break
            chunks.append(chunk)
            wanted -= len(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > max_bytes and not head:
        raise _too_large(path, len(data), max_bytes)
    return data


def read_text_bounded(path: Path, max_bytes: int = MAX_FILE_BYTES) -> str:
    """`read_bytes_bounded` decoded as UTF-8 (undecodable bytes replaced)."""
    return read_bytes_bounded(path, max_bytes).decode("utf-8", errors="replace")


@dataclass(frozen=True)
class StreamedSample:
    """A bounded sample of a file read by streaming, and how much of it was read."""

    sample: LineSample
    size: int
    read_bytes: int

    @property
    def complete(self) -> bool:
        """True when the whole file was read (not stopped at `MAX_STREAM_BYTES`)."""
        return self.read_bytes >= self.size


def _stream_text(path: Path, max_bytes: int) -> Iterator[tuple[str, int]]:
    """The decoded text of a regular file in pieces, with the bytes read so far; at most
    `max_bytes` are read."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    read = 0
    fd = _open_regular(path)
    try:
        while read < max_bytes:
            chunk = os.read(fd, min(READ_CHUNK_BYTES, max_bytes - read))
            if not chunk:
                break
            read += len(chunk)
            yield decoder.decode(chunk), read
    finally:
        os.close(fd)
    yield decoder.decode(b"", final=True), read


def read_sample_bounded(
    path: Path,
    shape: SampleShape,
    is_error: Callable[[str], bool],
    max_bytes: int = MAX_STREAM_BYTES,
) -> StreamedSample:
    """A sample of the regular text file `path` (UTF-8, undecodable bytes replaced), read
    by streaming: memory bounded by `shape`, at most `max_bytes` read."""
    size = regular_file_size(path)
    sampler = LineSampler(shape, is_error)
    read = 0
    for piece, seen in _stream_text(path, max_bytes):
        sampler.feed(piece)
        read = seen
    return StreamedSample(sample=sampler.finish(), size=max(size, read), read_bytes=read)


@dataclass
class LineRange:
    """Lines `start`.. (1-based) of a file read by streaming, each cut after `max_chars`
    characters (`lengths` holds their whole lengths), and the file's line count."""

    start: int
    end: int | None
    max_chars: int
    lines: list[str] = field(default_factory=list)
    lengths: list[int] = field(default_factory=list)
    total: int = 0
    complete: bool = True
    _held: int = 0

    def add(self, text: str, length: int) -> None:
        """Count one more line of the file; keep it when it is wanted and there is room."""
        self.total += 1
        number = self.total
        if number < self.start or (self.end is not None and number > self.end):
            return
        if not self.complete or (self.lines and self._held + len(text) + 1 > self.max_chars):
            self.complete = False
            return
        self.lines.append(text)
        self.lengths.append(length)
        self._held += len(text) + 1


def read_lines_bounded(
    path: Path, start: int, end: int | None, max_chars: int, max_bytes: int = MAX_STREAM_BYTES
) -> LineRange:
    """Lines `start`..`end` (1-based, inclusive; `end` None: to the end) of the regular
    text file `path`, read by streaming and holding at most `max_chars` characters of
    them (whole lines, at least one, each cut after `max_chars`); `total` counts every
    line of the first `max_bytes`."""
    regular_file_size(path)
    found = LineRange(start=start, end=end, max_chars=max_chars)
    partial: list[str] = []
    kept = 0
    length = 0
    for piece, _seen in _stream_text(path, max_bytes):
        pieces = piece.split("\n")
        for index, part in enumerate(pieces):
            if kept < max_chars:
                partial.append(part[: max_chars - kept])
                kept += len(partial[-1])
            length += len(part)
            if index < len(pieces) - 1:
                found.add("".join(partial), length)
                partial, kept, length = [], 0, 0
    if length:
        found.add("".join(partial), length)
    return found


def stream_lines(path: Path, piece_bytes: int = STREAM_PIECE_BYTES) -> Iterator[tuple[int, str]]:
    """`(line number, text)` for each line of the regular file `path`, read as they come
    (UTF-8, errors replaced, line ending dropped), whatever the file's size: memory stays
    under `piece_bytes` per step, a longer line coming in pieces that share its number.
    Never blocks on a FIFO or device."""
    fd = _open_regular(path)
    with os.fdopen(fd, "rb") as stream:
        number = 1
        while piece := stream.readline(piece_bytes):
            ends = piece.endswith(b"\n")
            text = piece.decode("utf-8", errors="replace")
            yield number, text.rstrip("\r\n") if ends else text
            if ends:
                number += 1
