"""One recorded session (or explore branch): its folder, records and write lock.

Layout of a trace folder: `meta.json`, `goal.json` and small named documents such as
the scripted model's `script.json` (atomic documents), `messages.jsonl`,
`manifests.jsonl`, `journal.jsonl` (fsynced appends; the journal holds the records
`meta.json` is rebuilt from), `artifacts/<id>` (content-addressed, written atomically),
`branches/<name>/` (child traces with the same layout) and `lock`. Reads need no lock;
the first write takes the trace's lock and `close()` releases it (a later write takes it
again). Messages, manifests and the journal are kept in memory after their first load
(`iter_messages` streams the messages instead). A trace made with a `Pending` record
has no folder yet: it reads as an empty session and its folder is created, atomically,
by its first write.

A `meta.json` that cannot be read is rebuilt from the journal and the messages
(`cairn.trace.rebuild`), logged, and listed in `damaged`; it is written again by the
next `save_meta` (or `cairn trace repair`). An unreadable `goal.json` raises
`DamagedRecordError`: the goal tree is rebuilt from the messages one layer up
(`cairn.goals.replay_goals`).
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from types import TracebackType
from typing import Any

import xxhash

from cairn.errors import InvalidRequestError, UnknownSessionError
from cairn.models.goals import GoalTree
from cairn.models.manifest import Manifest
from cairn.models.messages import MESSAGE_ADAPTER, Message
from cairn.models.session import JournalRecord, SessionMeta
from cairn.trace import records
from cairn.trace.files import (
    AppendLog,
    LineReport,
    LoadReport,
    atomic_write,
    iter_jsonl,
    read_jsonl,
    remove_stale_temps,
)
from cairn.trace.layout import Pending, create_atomically, folder_created_at
from cairn.trace.locks import TraceLock
from cairn.trace.names import check_artifact_id, check_artifact_kind, check_name
from cairn.trace.rebuild import meta_from_records

logger = logging.getLogger(__name__)

BRANCH_ID_SEPARATOR = "/"


class Trace:
    """A trace folder. Use `TraceStore` to create, open, fork and delete traces."""

    def __init__(self, directory: Path, session_id: str, pending: Pending | None = None) -> None:
        self.id = session_id
        self.dir = directory
        self._pending = pending
        self._lock = TraceLock(directory / records.LOCK_FILE, session_id)
        self._mutex = threading.RLock()
        self._messages_log = AppendLog(directory / records.MESSAGES_FILE)
        self._manifests_log = AppendLog(directory / records.MANIFESTS_FILE)
        self._journal_log = AppendLog(directory / records.JOURNAL_FILE)
        self._journal: list[JournalRecord] | None = None
        # Documents found unreadable (file name → why), rebuilt in memory until saved.
        self.damaged: dict[str, str] = {}
        self._messages: list[Message] | None = None
        # What is kept in memory of each message loaded (`cairn trace show` keeps a bounded
        # copy; a read-only view only: a trace that keeps less must never be written).
        self.keep_message: Callable[[Message], Message] | None = None
        self._message_ids: set[str] = set()
        self._messages_report = LineReport(file=records.MESSAGES_FILE)
        self._manifests: list[Manifest] | None = None
        self._manifests_report = LineReport(file=records.MANIFESTS_FILE)
        self._meta: SessionMeta | None = None
        self._goals: GoalTree | None = None
        self._branches: dict[str, Trace] = {}

    def __repr__(self) -> str:
        return f"Trace({self.id!r}, {str(self.dir)!r})"

    # -- locking -------------------------------------------------------------

    @property
    def written(self) -> bool:
        """False while the session exists only in memory (nothing recorded yet)."""
        return self._pending is None

    def _materialize(self) -> None:
        pending, self._pending = self._pending, None
        if pending is not None and not (self.dir / records.META_FILE).is_file():
            pending.prepare()
            create_atomically(self.dir, pending.meta)

    def _begin_write(self) -> None:
        self._materialize()
        if not self._lock.held:
            self._lock.acquire()
            remove_stale_temps(self.dir)
            remove_stale_temps(self.dir / records.ARTIFACTS_DIR)

    def close(self) -> None:
        """Release the write lock and close open files (the object stays usable)."""
        with self._mutex:
            for branch in self._branches.values():
                branch.close()
            self._messages_log.close()
            self._manifests_log.close()
            self._journal_log.close()
            self._lock.release()

    def __enter__(self) -> Trace:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- messages ------------------------------------------------------------

    def _unique_messages(self, seen: set[str], report: LineReport) -> Iterator[Message]:
        """The recorded messages read from disk one line at a time, ids in `seen` skipped
        (counted and logged as duplicates); each id yielded is added to `seen`."""
        for message in iter_jsonl(self.dir / records.MESSAGES_FILE, MESSAGE_ADAPTER, report):
            if message.id in seen:
                report.duplicates += 1
                logger.warning("%s: duplicate message id %r skipped", self.dir, message.id)
                continue
            seen.add(message.id)
            yield message

    def _load_messages(self) -> list[Message]:
        if self._messages is None:
            report = LineReport(file=records.MESSAGES_FILE)
            keep = self.keep_message
            unique = [
                message if keep is None else keep(message)
                for message in self._unique_messages(self._message_ids, report)
            ]
            report.loaded = len(unique)
            self._messages, self._messages_report = unique, report
        return self._messages

    def messages(self) -> list[Message]:
        """Every message, in append order (a copy of the in-memory list)."""
        with self._mutex:
            return list(self._load_messages())

    def iter_messages(self) -> Iterator[Message]:
        """Every recorded message, whole, read from disk one line at a time (nothing kept;
        duplicate ids skipped as `messages` skips them)."""
        yield from self._unique_messages(set(), LineReport(file=records.MESSAGES_FILE))

    def append_message(self, message: Message) -> None:
        """Append one message durably; InvalidRequestError if its id is already used."""
        with self._mutex:
            messages = self._load_messages()
            if message.id in self._message_ids:
                raise InvalidRequestError(
                    f"message id {message.id!r} already exists in session {self.id}"
                )
            self._begin_write()
            self._messages_log.append(records.dump_message(message))
            messages.append(message)
            self._message_ids.add(message.id)

    # -- manifests -----------------------------------------------------------

    def _load_manifests(self) -> list[Manifest]:
        if self._manifests is None:
            path = self.dir / records.MANIFESTS_FILE
            self._manifests, self._manifests_report = read_jsonl(path, records.MANIFEST_ADAPTER)
        return self._manifests

    def manifests(self) -> list[Manifest]:
        """Every manifest (one per model call), in order."""
        with self._mutex:
            return list(self._load_manifests())

    def append_manifest(self, manifest: Manifest) -> None:
        """Append one manifest durably."""
        with self._mutex:
            manifests = self._load_manifests()
            self._begin_write()
            self._manifests_log.append(records.dump_manifest(manifest))
            manifests.append(manifest)

    # -- journal -------------------------------------------------------------

    def _load_journal(self) -> list[JournalRecord]:
        if self._journal is None:
            path = self.dir / records.JOURNAL_FILE
            self._journal, _ = read_jsonl(path, records.JOURNAL_ADAPTER)
        return self._journal

    def journal(self) -> list[JournalRecord]:
        """Every journal record (origin, turn starts and ends, usage, allowed commands, context
        limits), in order."""
        with self._mutex:
            return list(self._load_journal())

    def append_record(self, record: JournalRecord) -> None:
        """Append one journal record durably."""
        with self._mutex:
            journal = self._load_journal()
            self._begin_write()
            self._journal_log.append(records.dump_record(record))
            journal.append(record)

    @property
    def load_report(self) -> LoadReport:
        """What loading messages and manifests skipped (corrupt, torn, duplicate lines)."""
        with self._mutex:
            self._load_messages()
            self._load_manifests()
            return LoadReport(messages=self._messages_report, manifests=self._manifests_report)

    # -- documents -----------------------------------------------------------

    def meta(self) -> SessionMeta:
        """The session metadata (`meta.json`; rebuilt from the records when it is damaged)."""
        with self._mutex:
            if self._meta is None and self._pending is not None:
                return self._pending.meta.model_copy(deep=True)
            if self._meta is None:
                self._meta = self._read_meta()
            return self._meta.model_copy(deep=True)

    def _read_meta(self) -> SessionMeta:
        path = self.dir / records.META_FILE
        try:
            meta = records.load_document(path, records.META_ADAPTER)
        except records.DamagedRecordError as exc:
            meta, reason = None, exc.reason
        else:
            reason = "missing"
            if meta is not None:
                return meta
        if not self.dir.is_dir() or not (
            path.exists() or (self.dir / records.JOURNAL_FILE).exists()
        ):
            raise UnknownSessionError(self.id)
        logger.warning("%s: %s (%s); rebuilt from the records", path, "unreadable", reason)
        self.damaged[records.META_FILE] = reason
        return self.rebuilt_meta()

    def rebuilt_meta(self) -> SessionMeta:
        """The metadata the journal and the messages describe (what `meta.json` should say)."""
        with self._mutex:
            created = folder_created_at(self.dir)
            return meta_from_records(self.id, self._load_journal(), self._load_messages(), created)

    def save_meta(self, meta: SessionMeta) -> None:
        """Replace `meta.json` atomically; the meta's id must be this trace's."""
        if meta.id != self.id:
            raise InvalidRequestError(f"meta id {meta.id!r} does not match session {self.id}")
        with self._mutex:
            self._begin_write()
            atomic_write(self.dir / records.META_FILE, records.dump_meta(meta))
            self._meta = meta.model_copy(deep=True)
            self.damaged.pop(records.META_FILE, None)

    def goals(self) -> GoalTree:
        """The goal tree (`goal.json`), empty when none was saved; `DamagedRecordError`
        when it cannot be read (rebuild it from the messages with `replay_goals`)."""
        with self._mutex:
            if self._goals is None:
                path = self.dir / records.GOAL_FILE
                self._goals = records.load_document(path, records.GOALS_ADAPTER) or GoalTree()
            return self._goals.model_copy(deep=True)

    def save_goals(self, tree: GoalTree) -> None:
        """Replace `goal.json` atomically."""
        with self._mutex:
            self._begin_write()
            atomic_write(self.dir / records.GOAL_FILE, records.dump_goals(tree))
            self._goals = tree.model_copy(deep=True)
            self.damaged.pop(records.GOAL_FILE, None)

    def writer_pid(self) -> str | None:
        """The pid of another process holding this trace's write lock, None when none does."""
        if self._lock.held:
            return None
        return self._lock.holder()

    def read_doc(self, name: str) -> dict[str, Any] | None:
        """A small JSON document of this trace (e.g. "script.json"), None when absent or unreadable.

        An unreadable document is logged and treated as absent: these documents are
        run-time state, rewritten whole on the next save."""
        path = self.dir / records.check_doc_name(name)
        try:
            data = json.loads(path.read_bytes())
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            logger.warning("%s: unreadable document ignored: %s", path, exc)
            return None
        return data if isinstance(data, dict) else None

    def write_doc(self, name: str, data: dict[str, Any]) -> None:
        """Replace a small JSON document of this trace atomically."""
        path = self.dir / records.check_doc_name(name)
        payload = (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
        with self._mutex:
            self._begin_write()
            atomic_write(path, payload)

    # -- artifacts -----------------------------------------------------------

    def write_artifact(self, content: str | bytes, kind: str = "text") -> str:
        """Store content (large outputs, patches, logs); returns its content-addressed id:
        `<kind>-` and the xxh3-64 of the bytes in hex. The model reads these ids in every
        stub and ledger line, so they are kept short; 64 bits leave an accidental collision
        among a session's artifacts out of reach."""
        data = content.encode("utf-8") if isinstance(content, str) else content
        artifact_id = f"{check_artifact_kind(kind)}-{xxhash.xxh3_64_hexdigest(data)}"
        with self._mutex:
            self._begin_write()
            folder = self.dir / records.ARTIFACTS_DIR
            folder.mkdir(exist_ok=True)
            target = folder / artifact_id
            if not target.exists():
                atomic_write(target, data)
        return artifact_id

    def read_artifact(self, artifact_id: str) -> bytes:
        """An artifact's bytes; InvalidRequestError naming the id when unknown."""
        path = self.dir / records.ARTIFACTS_DIR / check_artifact_id(artifact_id)
        try:
            return path.read_bytes()
        except FileNotFoundError:
            raise InvalidRequestError(
                f"unknown artifact {artifact_id!r} in session {self.id}"
            ) from None

    def artifact_ids(self) -> list[str]:
        """The ids of every stored artifact, sorted."""
        folder = self.dir / records.ARTIFACTS_DIR
        if not folder.is_dir():
            return []
        return sorted(p.name for p in folder.iterdir() if not p.name.startswith("."))

    # -- branches ------------------------------------------------------------

    def branch(self, name: str) -> Trace:
        """The child trace `<dir>/branches/<name>/`, created on first use."""
        check_name(name, "branch")
        with self._mutex:
            existing = self.existing_branch(name)
            if existing is not None:
                return existing
            self._begin_write()
            folder = self.dir / records.BRANCHES_DIR
            folder.mkdir(exist_ok=True)
            branch_id = f"{self.id}{BRANCH_ID_SEPARATOR}{name}"
            meta = SessionMeta(id=branch_id, title=name, parent_id=self.id, model=self.meta().model)
            create_atomically(folder / name, meta)
            return self._cached_branch(name)

    def existing_branch(self, name: str) -> Trace | None:
        """The branch `name` if it exists, else None."""
        check_name(name, "branch")
        with self._mutex:
            if name in self._branches:
                return self._branches[name]
            if not (self.dir / records.BRANCHES_DIR / name / records.META_FILE).is_file():
                return None
            return self._cached_branch(name)

    def _cached_branch(self, name: str) -> Trace:
        branch = Trace(self.dir / records.BRANCHES_DIR / name, f"{self.id}/{name}")
        self._branches[name] = branch
        return branch

    def branches(self) -> list[str]:
        """The names of this trace's branches, sorted."""
        folder = self.dir / records.BRANCHES_DIR
        if not folder.is_dir():
            return []
        return sorted(
            p.name
            for p in folder.iterdir()
            if not p.name.startswith(".") and (p / records.META_FILE).is_file()
        )
