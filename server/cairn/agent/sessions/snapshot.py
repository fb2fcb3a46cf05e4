"""What the workspace looked like when a turn started, and what the turn changed.

The start snapshot is git HEAD, a hash of the uncommitted state (`git diff
HEAD` and every untracked, not ignored file, by path and content; both None
outside a git repository) and the id of a snapshot tree of the whole
workspace (`cairn.trace.snapshots`: Cairn's own repository under `.cairn/`,
so it works outside git too), with the editor's unsaved buffers in place of
their files (at the end also the agent's edits an editor applied that the
server has seen neither in a buffer nor on disk: `EditLog.unseen`).

The turn's own changes are recorded apart (`EditLog.own_patch`): each
`edit_file` edit's diff, and each command's — the diff between snapshots
taken just before and just after a `run_command` (`TurnPatches.tree`,
`changes`) — so that a concurrent session's or the user's edit during the
turn is not among them; `cairn/restore` undoes only these.

The turn's patch is the unified diff from that tree to a snapshot taken when
the turn ends: every change to the workspace during the turn, whatever made
it (`edit_file`, a `run_command`, the user), untracked files included,
`.cairn/` and secret files never (the workspace's secret rules, the user's lists
included). It is stored as the turn's `patch`
artifact (git's format: `diff --git` headers, `/dev/null` for added and
deleted files, no renames; binary files as a `Binary files … differ` line,
their bytes in the start tree). Without git, the patch is the diff of the
files the agent edited (`EditLog`), from their text before the first edit to
their text after the last, written by `cairn.files.patches.file_patch` (the
one writer of a file's diff, in the same format). `cairn/restore` undoes
either kind of patch through `cairn.files.patches.undo_patch`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import xxhash

from cairn.files.git import run_git
from cairn.files.guard import secret_rule
from cairn.files.ignore import IgnoreRules, has_always_ignored_part
from cairn.files.patches import file_patch
from cairn.files.secrets import SECRET_DIR_NAMES, SECRET_EXEMPT_NAMES, SECRET_NAME_PATTERNS
from cairn.files.workspace import Workspace
from cairn.trace.snapshots import SnapshotError, Snapshots, exclude_lines

logger = logging.getLogger(__name__)

GIT_TIMEOUT_S = 10.0
# Untracked files larger than this enter the dirty hash by size and mtime, not content.
HASHED_FILE_MAX_BYTES = 8 * 1024 * 1024
# Excluded when the trace directory is outside the workspace (then nothing of it is inside).
TRACE_DIR_OUTSIDE = ".cairn"


@dataclass(frozen=True)
class StartSnapshot:
    head: str | None
    dirty_hash: str | None
    # The snapshot tree of the workspace (None when git is unavailable).
    tree: str | None = None


def _git(root: Path, *args: str) -> bytes | None:
    return run_git(root, *args, timeout=GIT_TIMEOUT_S)


def _file_token(path: Path) -> bytes:
    """What an untracked file contributes to the dirty hash: its content hash, or size+mtime."""
    try:
        stat = path.lstat()
        if stat.st_size > HASHED_FILE_MAX_BYTES or not path.is_file():
            return f"{stat.st_size}:{stat.st_mtime_ns}".encode()
        return xxhash.xxh3_64_hexdigest(path.read_bytes()).encode()
    except OSError:
        return b"unreadable"


def dirty_hash(root: Path) -> str | None:
    """A hash of the uncommitted state: `git diff HEAD` and the untracked, not ignored files."""
    diff = _git(root, "diff", "HEAD", "--binary", "--no-color", "--no-ext-diff")
    untracked = _git(root, "ls-files", "-z", "--others", "--exclude-standard")
    if diff is None or untracked is None:
        return None
    digest = xxhash.xxh3_64(diff)
    for name in sorted(filter(None, untracked.split(b"\0"))):
        digest.update(b"\0" + name + b"\0" + _file_token(root / name.decode("utf-8", "replace")))
    return digest.hexdigest()


def take_tree(snapshots: Snapshots | None, overlays: Mapping[str, bytes]) -> str | None:
    """A snapshot tree of the workspace, or None (logged) when git cannot make one."""
    if snapshots is None:
        return None
    try:
        return snapshots.take(overlays)
    except SnapshotError as exc:
        logger.warning("workspace snapshot skipped: %s", exc)
        return None


def take_snapshot(
    root: Path, snapshots: Snapshots | None = None, overlays: Mapping[str, bytes] | None = None
) -> StartSnapshot:
    """HEAD, the dirty hash (None outside git or without commits) and the snapshot tree."""
    tree = take_tree(snapshots, overlays or {})
    head = _git(root, "rev-parse", "HEAD")
    if head is None:
        return StartSnapshot(head=None, dirty_hash=None, tree=tree)
    return StartSnapshot(head=head.decode().strip(), dirty_hash=dirty_hash(root), tree=tree)


def buffer_overlays(workspace: Workspace, ignore: IgnoreRules) -> dict[str, bytes]:
    """The editor's open buffers inside the workspace root, by relative path, as UTF-8.

    Secret and ignored files are left out (a snapshot never holds them)."""
    overlays: dict[str, bytes] = {}
    root = workspace.root
    for path, buffer in workspace.buffers.items():
        try:
            relative = path.relative_to(root).as_posix()
        except ValueError:
            continue
        if has_always_ignored_part(relative) or ignore.is_ignored(path):
            continue
        if secret_rule(workspace, path) is not None:
            continue
        overlays[relative] = buffer.text.encode("utf-8")
    return overlays


def tree_patch(snapshots: Snapshots, before: str, after: str) -> str | None:
    """The unified diff between two snapshot trees, or None (logged) when git fails."""
    try:
        return snapshots.diff(before, after)
    except SnapshotError as exc:
        logger.warning("turn patch from snapshots failed: %s", exc)
        return None


class EditLog:
    """The first and latest text of every file edited during one turn (None: no file), and
    the turn's own changes in order: each edit's diff, and each command's (`add_patch`)."""

    def __init__(self) -> None:
        self._original: dict[str, str | None] = {}
        self._latest: dict[str, str | None] = {}
        self._steps: list[str] = []

    def record(self, path: str, before: str | None, after: str | None) -> None:
        self._original.setdefault(path, before)
        self._latest[path] = after
        self._steps.append(file_patch(path, before, after))

    def add_patch(self, patch: str) -> None:
        """A change the turn made other than by an edit (a command's, from snapshots)."""
        if patch:
            self._steps.append(patch if patch.endswith("\n") else patch + "\n")

    def own_patch(self) -> str:
        """The turn's own changes, oldest first: what `cairn/restore` undoes (newest first)."""
        return "".join(self._steps)

    @property
    def paths(self) -> list[str]:
        return list(self._latest)

    def patch(self) -> str:
        """The turn's patch: every edited file's diff, in first-edit order."""
        return "".join(file_patch(p, self._original[p], self._latest[p]) for p in self._latest)

    def unseen(self, root: Path) -> dict[str, str]:
        """Edited files whose disk still has their text from before the first edit: the
        edits went to an editor buffer the server was not told about (yet). Path → the
        latest text (a deletion is left out: an overlay cannot remove a file)."""
        found: dict[str, str] = {}
        for path, latest in self._latest.items():
            if latest is None or latest == self._original[path]:
                continue
            try:
                disk: str | None = (root / path).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                disk = None
            if disk == self._original[path]:
                found[path] = latest
        return found


@dataclass(frozen=True)
class TurnPatches:
    """Takes a turn's start snapshot and makes its patch (one per engine)."""

    workspace: Workspace
    ignore: IgnoreRules
    snapshots: Snapshots | None

    async def start(self, read_only: bool) -> StartSnapshot:
        """The start snapshot (none for a read-only turn: it changes nothing)."""
        if read_only:
            return StartSnapshot(head=None, dirty_hash=None)
        overlays = buffer_overlays(self.workspace, self.ignore)
        root = self.workspace.root
        return await asyncio.to_thread(take_snapshot, root, self.snapshots, overlays)

    def notices(self) -> list[str]:
        """What the snapshot store has to tell the user (once), e.g. a foreign store not used."""
        return [] if self.snapshots is None else self.snapshots.take_notices()

    def _end_overlays(self, edit_log: EditLog) -> dict[str, bytes]:
        """The buffers the server knows, and the agent's edits applied in an editor that the
        server has not seen in a buffer or on disk (what the editor holds after the turn)."""
        overlays = buffer_overlays(self.workspace, self.ignore)
        root = self.workspace.root
        for path, text in edit_log.unseen(root).items():
            full = root / path
            if path in overlays or has_always_ignored_part(path) or self.ignore.is_ignored(full):
                continue
            if secret_rule(self.workspace, full) is None:
                overlays[path] = text.encode("utf-8")
        return overlays

    async def tree(self, edit_log: EditLog) -> str | None:
        """A snapshot of the workspace now, as `patch` takes the end one (None without
        a snapshot store, or when git fails)."""
        if self.snapshots is None:
            return None
        overlays = self._end_overlays(edit_log)
        return await asyncio.to_thread(take_tree, self.snapshots, overlays)

    async def changes(self, before: str, after: str) -> str:
        """The diff between two snapshot trees ('' when equal or when git fails)."""
        if self.snapshots is None:
            return ""
        return await asyncio.to_thread(tree_patch, self.snapshots, before, after) or ""

    async def patch(self, start_tree: str | None, edit_log: EditLog) -> str:
        """The turn's patch: start tree → the workspace now, else the edited files' diff."""
        if start_tree is not None and self.snapshots is not None:
            overlays = self._end_overlays(edit_log)
            end = await asyncio.to_thread(take_tree, self.snapshots, overlays)
            if end is not None:
                patch = await asyncio.to_thread(tree_patch, self.snapshots, start_tree, end)
                if patch is not None:
                    return patch
        return edit_log.patch()


def workspace_snapshots(store_root: Path, workspace: Workspace) -> Snapshots:
    """The snapshot repository of a workspace, excluding its trace directory and secret files
    (the workspace's secret rules as they are at each snapshot: built-ins and the user's)."""
    root = workspace.root
    try:
        trace_dir = store_root.relative_to(root).as_posix()
    except ValueError:  # the traces live outside the workspace
        trace_dir = TRACE_DIR_OUTSIDE

    def excludes() -> list[str]:
        secrets = workspace.secrets
        return exclude_lines(
            trace_dir,
            SECRET_NAME_PATTERNS,
            SECRET_EXEMPT_NAMES,
            SECRET_DIR_NAMES,
            allow=secrets.allow,
            deny=secrets.deny,
        )

    return Snapshots(store_root, root, excludes)


def current_text(workspace: Workspace, path: Path) -> str | None:
    """The editor's or the disk's text of `path`; None for a file that does not exist yet."""
    if path in workspace.buffers or path.is_file():
        try:
            return workspace.read_text(path)
        except OSError:
            return ""
    return None
