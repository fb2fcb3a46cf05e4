"""The engine's sessions: the active one, those opened from the trace, fork and delete.

A `SessionBook` keeps each session of one trace store open once. The active
session is created on first use (or by `new`), in memory until its first
record; any other is opened from its trace when first asked for, which also
recovers it (`cairn.agent.sessions.recovery`: turns left open by a dead process closed
as interrupted, damaged documents rebuilt), with a log line per repair. Forks
are titled after their parent; deleting a session cancels its background
work and closes its trace. `close` closes every open session.
"""

from __future__ import annotations

from collections.abc import Callable

from cairn.agent.sessions.recovery import fork_session, recover
from cairn.agent.sessions.session import Session
from cairn.models.base import utc_now
from cairn.models.events import SessionInfo
from cairn.trace.rebuild import open_turns
from cairn.trace.store import TraceStore

FORK_TITLE = "{title} (fork)"
CANCELLED_AT_ONCE = "cancelled by the user (exited at once)"


class SessionBook:
    """The open sessions of one trace store, and which one is active."""

    def __init__(
        self, store: TraceStore, model: Callable[[], str | None], log: Callable[[str], None]
    ) -> None:
        self.store = store
        # The configured model a new session records (read when the session is made).
        self._model = model
        self._log = log
        self._sessions: dict[str, Session] = {}
        self._active: str | None = None

    @property
    def has_active(self) -> bool:
        return self._active is not None

    @property
    def active_id(self) -> str:
        if self._active is None:
            self._active = self.new()
        return self._active

    def new(self) -> str:
        """A new session, now the active one; on disk from its first record."""
        session = Session(self.store.create(model=self._model() or None, lazy=True))
        self._sessions[session.id] = session
        self._active = session.id
        return session.id

    def get(self, session_id: str | None = None) -> Session:
        """The session `session_id` (the active one when None), opened from its trace once."""
        wanted = session_id or self.active_id
        session = self._sessions.get(wanted)
        if session is None:
            trace = self.store.open(wanted)
            session = self._sessions.get(trace.id)
            if session is None:
                for note in recover(trace):
                    self._log(f"warning: {note}")
                session = Session(trace)
            self._sessions[trace.id] = session
        return session

    def infos(self) -> list[SessionInfo]:
        return [
            SessionInfo(
                session_id=meta.id,
                title=meta.title,
                parent_id=meta.parent_id,
                created_at=meta.created_at.isoformat(),
                updated_at=meta.updated_at.isoformat(),
                turns=len(meta.turns),
            )
            for meta in self.store.list()
        ]

    def fork(self, session_id: str, at_message_id: str | None = None) -> str:
        source = self.get(session_id)
        title = FORK_TITLE.format(title=source.meta().title) if source.meta().title else ""
        return fork_session(self.store, source.id, at_message_id, title=title).id

    def record_cancelled(self, session_id: str) -> None:
        """End the session's open turns `cancelled` now, for a front end exiting at once
        (the turn's own cancellation did not get to run). No-op when none is open."""
        session = self.get(session_id)
        for turn in open_turns(session.meta()):
            turn.ended_at = utc_now()
            turn.finish_reason = "cancelled"
            turn.error = CANCELLED_AT_ONCE
            session.save_turn(turn)

    def delete(self, session_id: str) -> str | None:
        """Delete the session; the id it had on disk (None when it was never written)."""
        pending = self._sessions.get(session_id)
        if pending is not None and not pending.trace.written:
            del self._sessions[session_id]  # never written: nothing on disk to remove
            self._active = None if self._active == session_id else self._active
            return None
        resolved = self.store.resolve_id(session_id)
        session = self._sessions.pop(resolved, None)
        if session is not None:
            if session.background is not None:
                session.background.cancel()
            session.trace.close()
        self.store.delete(resolved)
        if self._active == resolved:
            self._active = None
        return resolved

    def close(self) -> None:
        for session in self._sessions.values():
            if session.background is not None and not session.background.done():
                session.background.cancel()
            session.trace.close()
