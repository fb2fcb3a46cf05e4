"""The trace store: every session of a workspace under `<workspace>/<trace_dir>/`.

`<root>/.gitignore` ("*"), `<root>/traces/<session id>/` (one `Trace` each),
workspace-level JSON documents (`<root>/<name>`, e.g. `profile.json`) and
derived caches (`<root>/cache/<name>/`). Nothing is created until the first
write. Sessions are created (on disk at once, or `lazy`: written by their
first record, so a session nobody wrote to leaves nothing behind), listed,
opened (a unique id prefix is enough; `<id>/<branch>` opens an explore
branch), forked at or before a message and deleted.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import shutil
import time
import weakref
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from cairn.errors import InvalidRequestError, UnknownSessionError
from cairn.models.goals import GoalTree
from cairn.models.messages import Message
from cairn.models.session import SessionMeta, Usage
from cairn.trace import records
from cairn.trace.files import atomic_write, fsync_dir
from cairn.trace.layout import TEMP_DIR_PREFIX, Pending, create_atomically
from cairn.trace.locks import TraceLock
from cairn.trace.names import check_name, new_session_id
from cairn.trace.trace import BRANCH_ID_SEPARATOR, Trace

logger = logging.getLogger(__name__)

TRACES_DIR = "traces"
CACHE_DIR = "cache"
GITIGNORE = ".gitignore"
GITIGNORE_TEXT = "*\n"
DELETED_PREFIX = ".deleted-"
DELETED_RANDOM_BYTES = 4
STALE_TEMP_DIR_AGE_S = 3_600
RESERVED_DOC_NAMES = frozenset({TRACES_DIR, CACHE_DIR})
AMBIGUOUS_SHOWN = 5
CREATE_ATTEMPTS = 5


def _messages_up_to(
    parent: Trace, at_message_id: str | None, before_message_id: str | None
) -> list[Message]:
    """The parent's messages up to and including `at_message_id`, then up to, excluding,
    `before_message_id` (all of them when neither is given)."""
    messages = parent.messages()
    for wanted, keep in ((at_message_id, 1), (before_message_id, 0)):
        if wanted is None:
            continue
        index = next((i for i, m in enumerate(messages) if m.id == wanted), None)
        if index is None:
            raise InvalidRequestError(f"message {wanted!r} is not in session {parent.id}")
        messages = messages[: index + keep]
    return messages


class TraceStore:
    """All sessions of one workspace. `root` is `<workspace>/<settings.trace_dir>`."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.traces_dir = root / TRACES_DIR
        self._live: weakref.WeakValueDictionary[str, Trace] = weakref.WeakValueDictionary()

    def _ensure_root(self) -> None:
        self.traces_dir.mkdir(parents=True, exist_ok=True)
        gitignore = self.root / GITIGNORE
        if not gitignore.exists():
            atomic_write(gitignore, GITIGNORE_TEXT.encode("ascii"))

    def _remove_leftovers(self) -> None:
        """Remove what crashed creates, forks and deletes left behind.

        Half-deleted folders go at once; half-made ones only when older than
        `STALE_TEMP_DIR_AGE_S`, since another process may still be making one.
        """
        now = time.time()
        for entry in self.traces_dir.iterdir():
            try:
                age = now - entry.stat().st_mtime
            except FileNotFoundError:  # removed meanwhile by another process
                continue
            deleted = entry.name.startswith(DELETED_PREFIX)
            stale = entry.name.startswith(TEMP_DIR_PREFIX) and age > STALE_TEMP_DIR_AGE_S
            if entry.is_dir() and (deleted or stale):
                shutil.rmtree(entry, ignore_errors=True)

    def _session_ids(self) -> list[str]:
        """Every session folder: one with a `meta.json`, or a journal to rebuild it from."""
        if not self.traces_dir.is_dir():
            return []
        return [
            p.name
            for p in self.traces_dir.iterdir()
            if not p.name.startswith(".")
            and ((p / records.META_FILE).is_file() or (p / records.JOURNAL_FILE).is_file())
        ]

    def _trace(self, session_id: str) -> Trace:
        trace = self._live.get(session_id)
        if trace is None:
            trace = Trace(self.traces_dir / session_id, session_id)
            self._live[session_id] = trace
        return trace

    # -- sessions ------------------------------------------------------------

    def create(self, title: str = "", model: str | None = None, *, lazy: bool = False) -> Trace:
        """A new, empty session; `lazy`: its folder is made by its first write."""
        if lazy:
            session_id = new_session_id()
            meta = SessionMeta(id=session_id, title=title, model=model)
            trace = Trace(self.traces_dir / session_id, session_id, Pending(meta, self._prepare))
            self._live[session_id] = trace
            return trace
        self._prepare()
        for _ in range(CREATE_ATTEMPTS):
            session_id = new_session_id()
            target = self.traces_dir / session_id
            if target.exists():
                continue
            create_atomically(target, SessionMeta(id=session_id, title=title, model=model))
            return self._trace(session_id)
        raise InvalidRequestError(f"could not find a free session id in {self.traces_dir}")

    def _prepare(self) -> None:
        self._ensure_root()
        self._remove_leftovers()

    def list(self) -> list[SessionMeta]:
        """Every session's metadata, most recently updated first.

        `updated_at` is the later of the saved value and the last message append.
        A session whose `meta.json` cannot be read is listed with the metadata its
        records describe (logged; `cairn trace repair` writes it back).
        """
        metas: list[SessionMeta] = []
        for session_id in self._session_ids():
            folder = self.traces_dir / session_id
            try:
                meta = records.META_ADAPTER.validate_json((folder / records.META_FILE).read_bytes())
            except (OSError, ValidationError):
                meta = self._trace(session_id).meta()
            meta.updated_at = _aware(meta.updated_at)
            messages = folder / records.MESSAGES_FILE
            if messages.exists():
                appended = datetime.fromtimestamp(messages.stat().st_mtime, UTC)
                meta.updated_at = max(meta.updated_at, appended)
            metas.append(meta)
        metas.sort(key=lambda m: (m.updated_at, m.id), reverse=True)
        return metas

    def resolve_id(self, session_id: str) -> str:
        """The full id of a top-level session given its id or a unique prefix."""
        ids = self._session_ids()
        if session_id in ids:
            return session_id
        matches = sorted(i for i in ids if session_id and i.startswith(session_id))
        if not matches:
            raise UnknownSessionError(session_id)
        if len(matches) > 1:
            shown = ", ".join(matches[:AMBIGUOUS_SHOWN])
            more = "…" if len(matches) > AMBIGUOUS_SHOWN else ""
            raise InvalidRequestError(
                f"ambiguous session id {session_id!r}: matches {len(matches)} sessions "
                f"({shown}{more}); give more characters"
            )
        return matches[0]

    def open(self, session_id: str) -> Trace:
        """An existing session by id or unique prefix; `<id>/<branch>` opens a branch.

        In one store, opening the same session twice gives the same `Trace`.
        """
        top, *branch_names = session_id.split(BRANCH_ID_SEPARATOR)
        trace = self._trace(self.resolve_id(top))
        for name in branch_names:
            try:
                branch = trace.existing_branch(name)
            except InvalidRequestError:
                branch = None
            if branch is None:
                raise UnknownSessionError(session_id)
            trace = branch
        return trace

    def fork(
        self,
        session_id: str,
        at_message_id: str | None = None,
        *,
        before_message_id: str | None = None,
        title: str | None = None,
        goals: GoalTree | None = None,
    ) -> Trace:
        """A new session with the parent's messages up to and including `at_message_id`
        (or up to, excluding, `before_message_id`; all of them when neither is given),
        its artifacts, model, model setting, context limits and allowed commands (the same
        model and provider: what the parent learned holds for the fork too; recorded in the
        fork's journal) and the goal tree `goals`: the tree as it was at that point
        (`cairn.goals.replay_goals`), which a fork at or before a message must be given; a
        fork of the whole session takes the parent's current tree when None.
        Titled `title` (the parent's title when None). The parent is untouched."""
        if (at_message_id is not None or before_message_id is not None) and goals is None:
            raise InvalidRequestError(
                "a fork at a message needs the goal tree of that moment (replay_goals)"
            )
        parent = self.open(session_id)
        messages = _messages_up_to(parent, at_message_id, before_message_id)
        parent_meta = parent.meta()
        kept_ids = {m.id for m in messages}
        turns = [t for t in parent_meta.turns if t.user_message_id in kept_ids]
        usage = Usage()
        for turn in turns:
            usage = usage.add(turn.usage)
        child_id = new_session_id()
        meta = SessionMeta(
            id=child_id,
            title=parent_meta.title if title is None else title,
            parent_id=parent.id,
            fork_message_id=messages[-1].id if messages else None,
            model=parent_meta.model,
            usage=usage,
            turns=turns,
            configured_model=parent_meta.configured_model,
            context_limits=parent_meta.context_limits,
            allowed_commands=parent_meta.allowed_commands,
        )
        lines = b"".join(records.dump_message(m) + b"\n" for m in messages)
        goal_doc = records.dump_goals(goals if goals is not None else parent.goals())

        def populate(folder: Path) -> None:
            atomic_write(folder / records.GOAL_FILE, goal_doc)
            if lines:
                atomic_write(folder / records.MESSAGES_FILE, lines)
            _copy_artifacts(parent.dir / records.ARTIFACTS_DIR, folder / records.ARTIFACTS_DIR)

        self._ensure_root()
        create_atomically(self.traces_dir / child_id, meta, populate)
        return self._trace(child_id)

    def delete(self, session_id: str) -> None:
        """Remove one session's folder (messages, artifacts, manifests, branches).

        The exact id is required (no prefix). TraceLockedError if another process
        is writing it; a live `Trace` of this store for it is closed first.
        """
        if session_id not in self._session_ids():
            raise UnknownSessionError(session_id)
        live = self._live.pop(session_id, None)
        if live is not None:
            live.close()
        folder = self.traces_dir / session_id
        lock = TraceLock(folder / records.LOCK_FILE, session_id)
        lock.acquire()
        try:
            suffix = secrets.token_hex(DELETED_RANDOM_BYTES)
            graveyard = self.traces_dir / f"{DELETED_PREFIX}{session_id}-{suffix}"
            os.rename(folder, graveyard)
            fsync_dir(self.traces_dir)
        finally:
            lock.release()
        shutil.rmtree(graveyard)

    # -- workspace documents and caches --------------------------------------

    def read_doc(self, name: str) -> dict[str, Any] | None:
        """A workspace-level JSON document (e.g. "profile.json"), None when absent."""
        path = self.root / _doc_name(name)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise InvalidRequestError(f"{path}: not valid JSON: {exc}") from None
        if not isinstance(data, dict):
            raise InvalidRequestError(f"{path}: expected a JSON object")
        return data

    def write_doc(self, name: str, data: dict[str, Any]) -> None:
        """Replace a workspace-level JSON document atomically."""
        path = self.root / _doc_name(name)
        self._ensure_root()
        atomic_write(path, (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode())

    def cache_dir(self, name: str) -> Path:
        """`<root>/cache/<name>/`, created; writers there must write atomically."""
        path = self.root / CACHE_DIR / check_name(name, "cache")
        self._ensure_root()
        path.mkdir(parents=True, exist_ok=True)
        return path


def _aware(moment: datetime) -> datetime:
    """A hand-edited naive timestamp is taken as UTC (Cairn always writes UTC)."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _doc_name(name: str) -> str:
    check_name(name, "document")
    if name in RESERVED_DOC_NAMES:
        raise InvalidRequestError(f"invalid document name {name!r}: reserved")
    return name


def _copy_artifacts(source: Path, target: Path) -> None:
    """Hard-link (artifacts are immutable) or copy every artifact into `target`."""
    if not source.is_dir():
        return
    target.mkdir()
    for item in source.iterdir():
        if item.name.startswith(".") or not item.is_file():
            continue
        try:
            os.link(item, target / item.name)
        except OSError:
            shutil.copy2(item, target / item.name)
    fsync_dir(target)
