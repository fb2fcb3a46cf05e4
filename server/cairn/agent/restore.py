"""Checkpoints: back to before a turn (`cairn/restore`), for the files and/or the conversation.

Files: the recorded patches of the turn and of every later turn not undone
yet are reversed on the files' current text, newest first
(`cairn.files.patches.undo_patch`). Every file is computed before any is
written, so a file changed since (by the user, or outside the recorded
patches) stops the restore with an error naming it and nothing is written.
The files go back through the editor when one is attached (an edit whose
`CallSite.purpose` is "restore", so a review mode does not hold it), else to disk; a file the
turns created is deleted. The turns are then marked `reverted`, so their
patches are never undone twice.

Conversation: a fork of the session with the messages before the turn's
user message and the goal tree as it was when the turn started, replayed
from the goal operations of those messages (`cairn.agent.recovery.
fork_session`; no mission when the turn was the session's first: the
mission came from that prompt), titled after its parent.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path

from cairn.agent.api import CallSite, EditApplier
from cairn.agent.recorder import current_text
from cairn.agent.recovery import fork_session
from cairn.agent.session import Session
from cairn.errors import CairnError, InvalidRequestError
from cairn.files.patches import PatchConflict, parse_patch, undo_patch
from cairn.files.workspace import Workspace
from cairn.models.session import Turn
from cairn.trace import TraceStore
from cairn.trace.files import atomic_write

FORK_TITLE = "{title} (before turn {number})"
UNTITLED = "session"


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


def _undone_texts(
    session: Session, workspace: Workspace, turns: list[Turn]
) -> dict[str, str | None]:
    """Workspace-relative path → its text before `turns` (None: the file did not exist)."""
    texts: dict[str, str | None] = {}
    for turn in reversed(turns):
        assert turn.patch_artifact_id is not None
        patch = session.trace.read_artifact(turn.patch_artifact_id).decode("utf-8")
        for change in parse_patch(patch):
            if change.path not in texts:
                texts[change.path] = current_text(workspace, workspace.resolve(change.path))
            texts[change.path] = undo_patch(texts[change.path], change)
    return texts


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
    session: Session, point: Checkpoint, workspace: Workspace, apply: EditApplier | None
) -> list[str]:
    """Undo the file changes of the turn and of the later ones; the paths put back."""
    turns = session.meta().turns[point.number - 1 :]
    undo = [t for t in turns if t.patch_artifact_id is not None and not t.reverted]
    try:
        texts = _undone_texts(session, workspace, undo)
    except PatchConflict as conflict:
        raise CairnError(
            f"cannot restore the files to before turn {point.number}: {conflict}; nothing "
            f"was changed. Undo the later edits of {conflict.path} (or save it as Cairn left "
            "it), then restore again, or restore the conversation only."
        ) from None
    site = CallSite(session.id, purpose="restore")
    for rel, text in texts.items():
        await _write(site, workspace, workspace.resolve(rel), text, apply)
    meta = session.meta()
    undone = {t.id for t in undo}
    for turn in meta.turns:
        turn.reverted = turn.reverted or turn.id in undone
    session.trace.save_meta(meta)
    return sorted(texts)


def fork_before(store: TraceStore, session: Session, point: Checkpoint) -> str:
    """A new session with the conversation before the turn; its id."""
    title = FORK_TITLE.format(title=session.meta().title or UNTITLED, number=point.number)
    before = point.turn.user_message_id
    return fork_session(store, session.id, before_message_id=before, title=title).id
