"""How the repository map reads a source file: regular files only, bounded before reading.

The map reads every listed source file, so a FIFO, a device, a 2 GB sparse file or a
minified bundle in the tree must cost it milliseconds, not a hang or gigabytes:

- `stat_refusal`: from a `stat` taken before any `open`, a file that is not a regular
  file, or is larger than MAX_MAP_FILE_BYTES, is refused;
- `read_source`: opens without blocking (`O_NONBLOCK`: a FIFO swapped in after the stat
  cannot hang the open), checks the open file again with `fstat`, and reads at most the
  limit, so a file that grew meanwhile is refused, not read whole;
- `content_refusal`: minified and generated code (`cairn.code.generated`) is left out.

A refusal is a short reason string (`Refusal`); the index keeps it instead of the
file's tags, so a refused file is neither shown nor re-read until it changes.
"""

from __future__ import annotations

import os
import stat
from typing import Literal, cast, get_args

from cairn.code.generated import code_refusal

MAX_MAP_FILE_BYTES = 4 * 1024 * 1024
"""Larger source files are left out of the map (the largest hand-written sources seen,
ported parsers and printers, are under 2 MB)."""

Refusal = Literal[
    "secret", "not_regular", "too_large", "unreadable", "minified", "generated", "outside"
]
REFUSALS: frozenset[str] = frozenset(get_args(Refusal))
"""Every refusal reason (what the index accepts when it loads one)."""


def as_refusal(reason: object) -> Refusal:
    """A stored or received reason as a `Refusal` (an unknown one reads "unreadable")."""
    return cast(Refusal, reason) if reason in REFUSALS else "unreadable"


_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


def stat_refusal(mode: int, size: int, max_bytes: int = MAX_MAP_FILE_BYTES) -> Refusal | None:
    """Why a file with this `st_mode` and size is not read, or None."""
    if not stat.S_ISREG(mode):
        return "not_regular"
    if size > max_bytes:
        return "too_large"
    return None


def read_source(path: str, max_bytes: int = MAX_MAP_FILE_BYTES) -> bytes | Refusal:
    """The bytes of a regular file of at most `max_bytes`, or why it was not read."""
    try:
        handle = os.open(path, _OPEN_FLAGS)
    except OSError:
        return "unreadable"
    try:
        info = os.fstat(handle)
        refusal = stat_refusal(info.st_mode, info.st_size, max_bytes)
        if refusal is not None:
            return refusal
        pieces: list[bytes] = []
        remaining = max_bytes + 1
        while remaining > 0:
            piece = os.read(handle, remaining)
            if not piece:
                break
            pieces.append(piece)
            remaining -= len(piece)
    except OSError:
        return "unreadable"
    finally:
        os.close(handle)
    data = b"".join(pieces)
    return "too_large" if len(data) > max_bytes else data


def content_refusal(path: str, data: bytes) -> Refusal | None:
    """Why these bytes are not mapped (minified or generated code), or None."""
    return code_refusal(os.path.basename(path), data)
