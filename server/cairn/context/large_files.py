"""Files over the read limit, excerpted by streaming instead of refused.

A 2 MB log or a 300 MB build output is too large to hand over whole (the read
limit, `MAX_FILE_BYTES`) but too useful to refuse: `large_file_excerpt` reads
it once by streaming (`cairn.files.reading.read_sample_bounded`: memory bounded
by `STREAM_SAMPLE`, never by the file) and renders its head, its error lines
with context and its tail (`context.excerpt`, the one shortener), each omitted
range naming the `read_file(path, start_line, end_line)` call that shows it
(the file itself holds exactly these lines, so no artifact is needed), with a
closing note on the file's size and line count. A block made of it says so in
its manifest reason (`excerpt_reason`: how many of the file's lines it shows,
and the call that shows any range), like any other degraded form. A file the guard refuses for
any other reason (secret, binary, outside) stays refused: `guard_large` runs
every check but the size. The excerpt of a file is remembered while its
size, modification time and inode stay the same (`EXCERPT_MEMO_ENTRIES`
files), as every call of a turn gathers the same references again.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

from cairn.context.excerpt import (
    ERROR_CONTEXT_LINES,
    ExcerptShape,
    excerpt_of,
    is_error_line,
    shown_count,
)
from cairn.files.guard import PathRefusal, guard_path
from cairn.files.ignore import IgnoreRules
from cairn.files.reading import MAX_FILE_BYTES, MAX_STREAM_BYTES, read_sample_bounded
from cairn.files.sampling import SampleShape
from cairn.files.text import clip_line
from cairn.files.workspace import Workspace

# What the excerpt of a file over the read limit keeps: head, tail, error lines ...
STREAM_HEAD_LINES = 40
STREAM_TAIL_LINES = 60
STREAM_MAX_ERRORS = 60
# ... each line cut after this many characters (the file keeps it whole).
STREAM_MAX_LINE_CHARS = 500
# Files whose excerpt is remembered (keyed by path, size, mtime and inode).
EXCERPT_MEMO_ENTRIES = 32
STREAM_EXCERPT = ExcerptShape(STREAM_HEAD_LINES, STREAM_TAIL_LINES, STREAM_MAX_ERRORS)
STREAM_SAMPLE = SampleShape(
    STREAM_HEAD_LINES,
    STREAM_TAIL_LINES,
    STREAM_MAX_ERRORS,
    ERROR_CONTEXT_LINES,
    STREAM_MAX_LINE_CHARS,
)


@dataclass(frozen=True)
class StreamedExcerpt:
    """The excerpt of a file over the read limit, and how many of its lines it shows."""

    text: str
    shown_lines: int
    total_lines: int


def excerpt_reason(rel: str, shown: int, total: int) -> str:
    """The manifest reason of a block that is a streamed file's excerpt."""
    return (
        f"excerpt: {shown} of {total} lines (head, error lines, tail);"
        f' read_file("{rel}", start_line, end_line) shows any range'
    )


def guard_large(
    workspace: Workspace, ref: str, *, ignore: IgnoreRules | None, refusal: PathRefusal
) -> Path:
    """The path of a file refused only for its size (every other check passed again);
    raises `refusal` itself when it was refused for anything else."""
    if refusal.reason != "too_large":
        raise refusal
    return guard_path(workspace, ref, ignore=ignore, max_bytes=MAX_STREAM_BYTES * 1024)


def large_file_note(rel: str, size: int, total_lines: int, read_bytes: int) -> str:
    """The closing line of a streamed excerpt: how large the file is and how to read it."""
    unread = (
        f"; only its first {read_bytes} bytes were read ({size - read_bytes} more not read)"
        if read_bytes < size
        else ""
    )
    return (
        f"[{rel}: {size} bytes, {total_lines} lines — over the {MAX_FILE_BYTES}-byte read"
        f" limit, so excerpted by streaming: head, error lines with context, tail{unread};"
        f' read_file("{rel}", start_line, end_line) shows any range]'
    )


_Key = tuple[str, str, int, int, int]
_memo: OrderedDict[_Key, StreamedExcerpt] = OrderedDict()
_memo_lock = threading.Lock()


def large_file_excerpt(path: Path, rel: str) -> StreamedExcerpt:
    """The head, error lines (with context) and tail of the file over the read limit at
    `path` (shown as `rel`), with a closing note; read by streaming, once per version."""
    info = os.stat(path)
    key = (str(path), rel, info.st_size, info.st_mtime_ns, info.st_ino)
    with _memo_lock:
        known = _memo.get(key)
        if known is not None:
            _memo.move_to_end(key)
            return known
    text = _excerpt(path, rel)
    with _memo_lock:
        _memo[key] = text
        while len(_memo) > EXCERPT_MEMO_ENTRIES:
            _memo.popitem(last=False)
    return text


def forget_excerpts() -> None:
    """Forget every remembered excerpt (the next read streams the file again)."""
    with _memo_lock:
        _memo.clear()


def _excerpt(path: Path, rel: str) -> StreamedExcerpt:
    streamed = read_sample_bounded(path, STREAM_SAMPLE, is_error_line)
    sample = streamed.sample
    body = excerpt_of(sample, STREAM_EXCERPT, ref=rel, max_line_chars=STREAM_MAX_LINE_CHARS)
    if body is None:  # few lines, none long (cannot be over the limit, but said plainly)
        body = "\n".join(
            clip_line(sample.line(i), STREAM_MAX_LINE_CHARS) for i in range(sample.total)
        )
    note = large_file_note(rel, streamed.size, sample.total, streamed.read_bytes)
    shown = shown_count(sample, STREAM_EXCERPT)
    return StreamedExcerpt(f"{body}\n{note}", shown, sample.total)
