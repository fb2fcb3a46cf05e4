"""What the workspace looked like when a turn started, and what a turn changed.

The start snapshot is git HEAD plus an xxhash of `git diff HEAD` (both None
outside a git repository). The patch of a turn is the unified diff of every
file edited in it, from its text before the first edit to its text after
the last one (`cairn.files.patches.file_patch`, so `cairn/restore` can undo
it exactly).
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

import xxhash

from cairn.files.patches import file_patch

GIT_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class StartSnapshot:
    head: str | None
    dirty_hash: str | None


def _git(root: Path, *args: str) -> bytes | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(root), *args],
            capture_output=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def take_snapshot(root: Path) -> StartSnapshot:
    """HEAD and the hash of the uncommitted diff; both None outside git (or without commits)."""
    head = _git(root, "rev-parse", "HEAD")
    if head is None:
        return StartSnapshot(head=None, dirty_hash=None)
    diff = _git(root, "diff", "HEAD")
    return StartSnapshot(
        head=head.decode().strip(),
        dirty_hash=xxhash.xxh3_64_hexdigest(diff) if diff is not None else None,
    )


class EditLog:
    """The first and latest text of every file edited during one turn (None: no file)."""

    def __init__(self) -> None:
        self._original: dict[str, str | None] = {}
        self._latest: dict[str, str | None] = {}

    def record(self, path: str, before: str | None, after: str | None) -> None:
        self._original.setdefault(path, before)
        self._latest[path] = after

    @property
    def paths(self) -> list[str]:
        return list(self._latest)

    def patch(self) -> str:
        """The turn's patch: every edited file's diff, in first-edit order."""
        return "".join(file_patch(p, self._original[p], self._latest[p]) for p in self._latest)
