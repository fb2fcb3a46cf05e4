"""Checkpoints: back to before a turn (`cairn/restore`), for the files and/or the conversation.

Files: the own changes of the turn and of every later turn not undone yet —
each edit's and each command's recorded diff (`Turn.own_patch_artifact_id`),
never what a concurrent session or the user changed meanwhile — are
reversed on the files' current text, newest first
(`cairn.files.patches.undo_patch`); a turn recorded before own changes were
has its whole patch reversed instead. Every file is computed before any is
written, so a hunk that no longer applies (the user changed those lines
since) stops the restore with an error naming the file, and nothing is
written.
The files go back through the editor when one is attached (an edit whose
`CallSite.purpose` is "restore", so a review mode does not hold it), else to disk; a file the
turns created is deleted. A binary file (a `Binary files … differ` line in
git's patch) goes back to its bytes in the turn's start tree
(`cairn.trace.snapshots`), when it is still the blob the patch's `index`
line names. The turns are then marked `reverted`, so their
patches are never undone twice.

Conversation: a fork of the session with the messages before the turn's
user message and the goal tree as it was when the turn started, replayed
from the goal operations of those messages (`cairn.agent.sessions.recovery.
fork_session`; no mission when the turn was the session's first: the
mission came from that prompt), titled after its parent.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path

from cairn.agent.api import CallSite, EditApplier
from cairn.agent.sessions.recovery import fork_session
from cairn.agent.sessions.session import Session
from cairn.agent.sessions.snapshot import current_text
from cairn.errors import CairnError, InvalidRequestError
from cairn.files.patches import (
    FileChange,
    PatchConflict,
    is_missing_blob,
    parse_patch,
    undo_patch,
)
from cairn.files.workspace import Workspace
from cairn.models.events import RestoreResult
from cairn.models.session import Turn
from cairn.trace import TraceStore
from cairn.trace.files import atomic_write
from cairn.trace.snapshots import Snapshots

FORK_TITLE = "{title} (before turn {number})"
UNTITLED = "session"
RUNNING_TURN = "a turn is running in session {session}; stop it first"


@dataclass(frozen=True)
class Checkpoint:
    """The turn to go back before, and its position (1-based) in the session."""

    turn: Turn
    number: int


def checkpoint(session: Session, turn_id: str) -> Checkpoint:
    """The turn `turn_id` of `session`; InvalidRequestError naming it when there is none."""
    for index, turn in enumerate(session.meta().turns):
        if turn.id == turn_id:
            return Checkpoint(turn, index + 1)
    raise InvalidRequestError(f"turn {turn_id!r} is not in session {session.id}")


@dataclass
class _Undone:
    """Workspace-relative path → its content before the turns (None: the file did not exist):
    text files by undoing their patches, binary files from the turns' start trees."""

    texts: dict[str, str | None] = field(default_factory=dict)
    binaries: dict[str, bytes | None] = field(default_factory=dict)


def _undo_binary(
    undone: _Undone,
    workspace: Workspace,
    turn: Turn,
    change: FileChange,
    snapshots: Snapshots | None,
) -> None:
    """A binary file back to its bytes in the turn's start tree, if it is as the turn left it."""
    if snapshots is None or turn.start_tree is None or change.blobs is None:
        raise PatchConflict(change.path, None, "a binary change cannot be undone from its patch")
    if change.path in undone.texts:
        raise PatchConflict(change.path, None, "changed between text and binary")
    if change.path not in undone.binaries:
        path = workspace.resolve(change.path)
        undone.binaries[change.path] = path.read_bytes() if path.is_file() else None
    now = undone.binaries[change.path]
    old, new = change.blobs
    same = (
        now is None
        if is_missing_blob(new)
        else now is not None and snapshots.blob_id(now).startswith(new)
    )
    if not same:
        raise PatchConflict(change.path, None, "changed since")
    before = None if is_missing_blob(old) else snapshots.blob(turn.start_tree, change.path)
    if before is not None and not snapshots.blob_id(before).startswith(old):
        # A command changed it after an earlier change of the turn: those bytes are gone.
        raise PatchConflict(change.path, None, "its earlier bytes are not in the turn's start")
    undone.binaries[change.path] = before


def own_patch_id(turn: Turn) -> str | None:
    """The artifact of the changes `cairn/restore` undoes for `turn`: its own, or its whole
    patch when it was recorded before its own changes were (None: nothing to undo)."""
    return turn.own_patch_artifact_id if turn.own_changes_recorded else turn.patch_artifact_id


def _undone(
    session: Session, workspace: Workspace, turns: list[Turn], snapshots: Snapshots | None
) -> _Undone:
    """Every file the turns changed, as it was before them (newest change undone first)."""
    undone = _Undone()
    texts = undone.texts
    for turn in reversed(turns):
        artifact = own_patch_id(turn)
        assert artifact is not None
        patch = session.trace.read_artifact(artifact).decode("utf-8", "replace")
        for change in reversed(parse_patch(patch)):
            if change.binary:
                _undo_binary(undone, workspace, turn, change, snapshots)
                continue
            if change.path in undone.binaries:
                raise PatchConflict(change.path, None, "changed between binary and text")
            if change.path not in texts:
                texts[change.path] = current_text(workspace, workspace.resolve(change.path))
            texts[change.path] = undo_patch(texts[change.path], change)
    return undone


def _write_bytes(path: Path, data: bytes | None) -> None:
    if data is None:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, data)


async def _write(
    site: CallSite, workspace: Workspace, path: Path, text: str | None, apply: EditApplier | None
) -> None:
    if text is None:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        return
    if current_text(workspace, path) == text:
        return
    if apply is None or not await apply(site, path, text):
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, text.encode("utf-8"))


async def restore_files(
    session: Session,
    point: Checkpoint,
    workspace: Workspace,
    apply: EditApplier | None,
    snapshots: Snapshots | None = None,
) -> list[str]:
    """Undo the file changes of the turn and of the later ones; the paths put back.

    `snapshots`: the workspace's snapshot repository, which holds binary files' bytes."""
    turns = session.meta().turns[point.number - 1 :]
    undo = [t for t in turns if own_patch_id(t) is not None and not t.reverted]
    try:
        undone = _undone(session, workspace, undo, snapshots)
    except PatchConflict as conflict:
        raise CairnError(
            f"cannot restore the files to before turn {point.number}: {conflict}; nothing "
            f"was changed. Undo the later edits of {conflict.path} (or save it as Cairn left "
            "it), then restore again, or restore the conversation only."
        ) from None
    site = CallSite(session.id, purpose="restore")
    for rel, text in undone.texts.items():
        await _write(site, workspace, workspace.resolve(rel), text, apply)
    for rel, data in undone.binaries.items():
        _write_bytes(workspace.resolve(rel), data)
    meta = session.meta()
    reverted = {t.id for t in undo}
    for turn in meta.turns:
        turn.reverted = turn.reverted or turn.id in reverted
    session.trace.save_meta(meta)
    return sorted([*undone.texts, *undone.binaries])


def fork_before(store: TraceStore, session: Session, point: Checkpoint) -> str:
    """A new session with the conversation before the turn; its id."""
    title = FORK_TITLE.format(title=session.meta().title or UNTITLED, number=point.number)
    before = point.turn.user_message_id
    return fork_session(store, session.id, before_message_id=before, title=title).id


async def restore_turn(
    store: TraceStore,
    session: Session,
    turn_id: str,
    *,
    files: bool,
    conversation: bool,
    workspace: Workspace,
    apply_edit: EditApplier | None,
    snapshots: Snapshots | None,
) -> RestoreResult:
    """`cairn/restore`: back to before a turn, its files and/or its conversation (a fork)."""
    if not files and not conversation:
        raise InvalidRequestError("nothing to restore: set files and/or conversation")
    if session.turn_lock.locked():
        raise InvalidRequestError(RUNNING_TURN.format(session=session.id))
    point = checkpoint(session, turn_id)
    restored: list[str] = []
    if files:
        restored = await restore_files(session, point, workspace, apply_edit, snapshots)
    target = fork_before(store, session, point) if conversation else session.id
    return RestoreResult(session_id=target, restored_files=restored)
