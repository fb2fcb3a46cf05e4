"""Session metadata rebuilt from the records, and turns closed after their process died.

`meta_from_records` folds a trace's journal (`journal.jsonl`: the session's
origin, every turn's start and end record, usage outside turns) into the
`SessionMeta` that `meta.json` should hold; the messages fill in what an
older trace's journal lacks (a turn's user message and start time, the title,
the last update). It is what a damaged or missing `meta.json` is replaced by.

`reconcile` brings a readable `meta.json` in line with the journal after a
crash between the two writes of a turn's start or end (the journal is
written first). `open_turns` / `close_interrupted` find the turns that
started but never ended (the process was killed, or crashed) and end them
`interrupted`, at the time of the last record they left.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from cairn.models.messages import Message
from cairn.models.session import (
    JournalRecord,
    SessionMeta,
    SessionRecord,
    Turn,
    TurnRecord,
    Usage,
    UsageRecord,
    title_of,
)

INTERRUPTED_ERROR = "the process ended before the turn did (killed or crashed)"


def _turns_from_messages(messages: Sequence[Message]) -> dict[str, Turn]:
    """A turn per turn id of the messages, started by its first user message."""
    turns: dict[str, Turn] = {}
    for message in messages:
        if message.turn_id is None or message.turn_id in turns or message.role != "user":
            continue
        turns[message.turn_id] = Turn(
            id=message.turn_id, user_message_id=message.id, started_at=message.created_at
        )
    return turns


def _session_record(session_id: str, journal: Sequence[JournalRecord]) -> SessionRecord | None:
    return next((r for r in journal if isinstance(r, SessionRecord) and r.id == session_id), None)


def meta_from_records(
    session_id: str,
    journal: Sequence[JournalRecord],
    messages: Sequence[Message],
    fallback_created: datetime,
) -> SessionMeta:
    """The metadata the records describe (turns in start order, usage summed)."""
    turns = _turns_from_messages(messages)
    extra = Usage()
    for record in journal:
        if isinstance(record, TurnRecord):
            turns[record.turn.id] = record.turn
        elif isinstance(record, UsageRecord):
            extra = extra.add(record.usage)
    ordered = sorted(turns.values(), key=lambda t: t.started_at)
    usage = extra
    for turn in ordered:
        usage = usage.add(turn.usage)
    origin = _session_record(session_id, journal)
    created = origin.created_at if origin is not None else fallback_created
    first_user = next((m for m in messages if m.role == "user" and m.turn_id is not None), None)
    title = origin.title if origin is not None and origin.title else ""
    if not title and first_user is not None:
        title = title_of(first_user.text())
    times = [
        created,
        *(m.created_at for m in messages),
        *(t.ended_at for t in ordered if t.ended_at),
    ]
    latest_model = next((t.model for t in reversed(ordered) if t.model), None)
    return SessionMeta(
        id=session_id,
        title=title,
        parent_id=origin.parent_id if origin is not None else None,
        fork_message_id=origin.fork_message_id if origin is not None else None,
        created_at=created,
        updated_at=max(times),
        model=latest_model or (origin.model if origin is not None else None),
        usage=usage,
        turns=ordered,
    )


def reconcile(meta: SessionMeta, rebuilt: SessionMeta) -> list[str]:
    """Adopt (in place) what the records know and `meta` lacks: a turn whose start was
    recorded but not saved, an end recorded but not saved; the turn ids changed.

    `rebuilt` is `meta_from_records` of a trace with a journal (only then are the
    records complete, usage included)."""
    known = {turn.id: turn for turn in meta.turns}
    changed: list[str] = []
    for turn in rebuilt.turns:
        mine = known.get(turn.id)
        if mine is None or (mine.finish_reason is None and turn.finish_reason is not None):
            known[turn.id] = turn
            changed.append(turn.id)
    if changed:
        meta.turns = sorted(known.values(), key=lambda t: t.started_at)
        meta.usage = rebuilt.usage
        meta.updated_at = max(meta.updated_at, rebuilt.updated_at)
        meta.model = rebuilt.model or meta.model
    return changed


def open_turns(meta: SessionMeta) -> list[Turn]:
    """The turns that started and never ended."""
    return [turn for turn in meta.turns if turn.finish_reason is None]


def last_record_time(turn: Turn, messages: Sequence[Message]) -> datetime:
    """When the turn last left a record: its latest message, else its start."""
    times = [m.created_at for m in messages if m.turn_id == turn.id]
    return max([turn.started_at, *times])


def close_interrupted(meta: SessionMeta, messages: Sequence[Message]) -> list[Turn]:
    """End every open turn of `meta` as `interrupted` (in place); the turns closed."""
    closed: list[Turn] = []
    for turn in open_turns(meta):
        turn.finish_reason = "interrupted"
        turn.ended_at = last_record_time(turn, messages)
        turn.error = turn.error or INTERRUPTED_ERROR
        closed.append(turn)
    return closed
