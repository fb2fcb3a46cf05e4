"""Writing unified diffs of whole files, and undoing them on the files' current text.

`file_patch(path, before, after)` is the one writer of a file's unified diff
(`a/<path>` → `b/<path>`, `/dev/null` for a file created or deleted, a
`\\ No newline at end of file` marker where a side lacks its last newline), so
a patch undoes to exactly the text it was made from. `undo_patch(text,
patch)` reverses one file's diff on that file's current text (None: the file
does not exist): each hunk's new side must still be there, at its line or
within `MAX_HUNK_OFFSET` lines of it (earlier edits above it may have moved
it); otherwise `PatchConflict` names the file and the line. The result is
the file's text before the patch, or None when the patch created the file.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from unidiff.constants import (
    LINE_TYPE_ADDED,
    LINE_TYPE_CONTEXT,
    LINE_TYPE_NO_NEWLINE,
    LINE_TYPE_REMOVED,
)
from unidiff.errors import UnidiffParseError
from unidiff.patch import Hunk, PatchSet

from cairn.errors import CairnError

DEV_NULL = "/dev/null"
NO_NEWLINE_MARKER = "\\ No newline at end of file\n"
INDEX_PREFIX = "index "
# How far (in lines) a hunk may have moved since the patch was made.
MAX_HUNK_OFFSET = 2_000


class PatchConflict(CairnError):
    """A file changed since its patch was made, so the patch cannot be undone on it."""

    def __init__(self, path: str, line: int | None, reason: str) -> None:
        where = f" (near line {line})" if line is not None else ""
        super().__init__(f"{path}: {reason}{where}")
        self.path = path


def _lines(text: str) -> list[str]:
    """Lines with their endings; a last line without one gets the no-newline marker."""
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += "\n" + NO_NEWLINE_MARKER
    return lines


def file_patch(path: str, before: str | None, after: str | None) -> str:
    """The unified diff of one file from `before` to `after` ('' when equal).

    None on a side means the file does not exist there (created or deleted).
    """
    if before == after:
        return ""
    diff = difflib.unified_diff(
        _lines(before or ""),
        _lines(after or ""),
        fromfile=DEV_NULL if before is None else f"a/{path}",
        tofile=DEV_NULL if after is None else f"b/{path}",
    )
    return "".join(diff)


@dataclass(frozen=True)
class FileChange:
    """One file's part of a patch: the blocks of each hunk, old and new side."""

    path: str
    created: bool
    deleted: bool
    binary: bool
    # (new-side 0-based start, old lines, new lines) per hunk, in file order.
    hunks: tuple[tuple[int, tuple[str, ...], tuple[str, ...]], ...]
    # The (abbreviated) git blob ids of the old and new side, from git's `index` line.
    blobs: tuple[str, str] | None = None


def _blob_ids(header: list[str]) -> tuple[str, str] | None:
    """The old and new blob ids of git's `index <old>..<new> [mode]` header line."""
    for line in header:
        if line.startswith(INDEX_PREFIX):
            ids = line[len(INDEX_PREFIX) :].split()[0].split("..")
            if len(ids) == 2:
                return ids[0], ids[1]
    return None


def is_missing_blob(blob_id: str) -> bool:
    """Whether a patch's blob id stands for no file (git writes zeros)."""
    return set(blob_id) == {"0"}


def _strip_prefix(name: str) -> str:
    return name[2:] if name.startswith(("a/", "b/")) else name


def _hunk_blocks(hunk: Hunk) -> tuple[tuple[str, ...], tuple[str, ...]]:
    old: list[str] = []
    new: list[str] = []
    last = ""
    for line in hunk:
        kind = line.line_type
        if kind == LINE_TYPE_NO_NEWLINE:
            for block, sides in ((old, "- "), (new, "+ ")):
                if last in sides and block and block[-1].endswith("\n"):
                    block[-1] = block[-1][:-1]
            continue
        if kind in (LINE_TYPE_CONTEXT, LINE_TYPE_REMOVED):
            old.append(line.value)
        if kind in (LINE_TYPE_CONTEXT, LINE_TYPE_ADDED):
            new.append(line.value)
        last = kind
    return tuple(old), tuple(new)


def parse_patch(text: str) -> list[FileChange]:
    """The files of a unified diff; a malformed one is a `CairnError`."""
    try:
        files = PatchSet(text)
    except UnidiffParseError as exc:
        raise CairnError(f"the recorded patch cannot be read: {exc}") from None
    changes: list[FileChange] = []
    for patched in files:
        created = patched.source_file == DEV_NULL
        deleted = patched.target_file == DEV_NULL
        name = patched.source_file if deleted else patched.target_file
        hunks = []
        for hunk in patched:
            old, new = _hunk_blocks(hunk)
            start = hunk.target_start if hunk.target_length == 0 else hunk.target_start - 1
            hunks.append((start, old, new))
        path = _strip_prefix(name)
        blobs = _blob_ids([str(line) for line in patched.patch_info or ()])
        binary = patched.is_binary_file
        changes.append(FileChange(path, created, deleted, binary, tuple(hunks), blobs))
    return changes


def _find(lines: list[str], block: tuple[str, ...], start: int) -> int | None:
    """Where `block` occurs in `lines`, the nearest to `start` first."""
    size = len(block)
    for offset in range(MAX_HUNK_OFFSET + 1):
        for at in (start - offset, start + offset) if offset else (start,):
            if 0 <= at <= len(lines) - size and tuple(lines[at : at + size]) == block:
                return at
    return None


def undo_patch(text: str | None, change: FileChange) -> str | None:
    """The file's text before `change`, from its current `text` (see the module docstring)."""
    if change.binary:
        raise PatchConflict(change.path, None, "a binary change cannot be undone from its patch")
    if change.deleted:
        if text is not None:
            raise PatchConflict(change.path, None, "was deleted and exists again")
        return "".join(line for _, old, _ in change.hunks for line in old)
    if text is None:
        raise PatchConflict(change.path, None, "no longer exists")
    lines = text.splitlines(keepends=True)
    for start, old, new in reversed(change.hunks):
        at = _find(lines, new, min(start, len(lines)))
        if at is None:
            raise PatchConflict(change.path, start + 1, "changed since")
        lines[at : at + len(new)] = old
    restored = "".join(lines)
    if change.created:
        if restored:
            raise PatchConflict(change.path, None, "changed since it was created")
        return None
    return restored
