"""How the repository map reads a source file: regular files only, bounded before reading.

The map reads every listed source file, so a FIFO, a device, a 2 GB sparse file or a
minified bundle in the tree must cost it milliseconds, not a hang or gigabytes:

- `stat_refusal`: from a `stat` taken before any `open`, a file that is not a regular
  file, or is larger than MAX_MAP_FILE_BYTES, is refused;
- `read_source`: reads through `cairn.files.reading.read_bytes_bounded`, which opens
  without blocking (a FIFO swapped in after the stat cannot hang the open), checks the
  open file again with `fstat` and reads at most the limit, so a file that grew
  meanwhile is refused, not read whole;
- `content_refusal`: minified and generated code (`cairn.code.generated`) is left out.

A refusal is a short reason string (`Refusal`); the index keeps it instead of the
file's tags, so a refused file is neither shown nor re-read until it changes.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Literal, cast, get_args

from cairn.code.generated import code_refusal
from cairn.files.reading import Problem, UnsafeFileError, read_bytes_bounded

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


_UNSAFE: dict[Problem, Refusal] = {
    "special": "not_regular",
    "too_large": "too_large",
    "link_loop": "unreadable",
}


def stat_refusal(mode: int, size: int, max_bytes: int = MAX_MAP_FILE_BYTES) -> Refusal | None:
    """Why a file with this `st_mode` and size is not read, or None."""
    if not stat.S_ISREG(mode):
        return "not_regular"
    if size > max_bytes:
        return "too_large"
    return None


def read_source(path: str, max_bytes: int = MAX_MAP_FILE_BYTES) -> bytes | Refusal:
    """The bytes of a regular file of at most `max_bytes`, or why it was not read (the
    one bounded reader, `cairn.files.reading.read_bytes_bounded`)."""
    try:
        return read_bytes_bounded(Path(path), max_bytes)
    except UnsafeFileError as error:
        return _UNSAFE[error.problem]
    except OSError:
        return "unreadable"


def content_refusal(path: str, data: bytes) -> Refusal | None:
    """Why these bytes are not mapped (minified or generated code), or None."""
    return code_refusal(os.path.basename(path), data)
