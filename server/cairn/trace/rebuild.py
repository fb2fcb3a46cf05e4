"""Session metadata rebuilt from the records, and turns closed after their process died.

`meta_from_records` folds a trace's journal (`journal.jsonl`: the session's
origin, every turn's start and end record, usage outside turns, the commands
allowed for the session, the context limits providers reported, the model
setting each turn started under, the limits the user cleared) into the
`SessionMeta` that `meta.json` should hold; the messages fill in what an
older trace's journal lacks (a
turn's user message and start time, the title, the last update). It is what
a damaged or missing `meta.json` is replaced by. A journal older than some
record kinds simply leaves their fields empty.

`reconcile` brings a readable `meta.json` in line with the journal after a
crash between the two writes of a change (the journal is written first): a
turn's start or end, an allowed command, a context limit. `open_turns` /
`close_interrupted` find the turns that
started but never ended (the process was killed, or crashed) and end them
`interrupted`, at the time of the last record they left.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import NamedTuple

from cairn.models.messages import Message
from cairn.models.session import (
    AllowRecord,
    ForgetLimitsRecord,
    JournalRecord,
    LimitRecord,
    SessionMeta,
    SessionRecord,
    Turn,
    TurnRecord,
    Usage,
    UsageRecord,
    add_by_source,
    narrows_limit,
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


class _Recorded(NamedTuple):
    """What the journal says the session keeps besides its turns and usage."""

    configured_model: str | None
    context_limits: dict[str, int]
    allowed_commands: list[str]


def _recorded(origin: SessionRecord | None, journal: Sequence[JournalRecord]) -> _Recorded:
    """The origin's inherited values, then each later record in order: the latest model
    setting a turn started under, the smallest limit per model, each allowed command once."""
    configured = origin.configured_model if origin is not None else None
    limits = dict(origin.context_limits) if origin is not None else {}
    allowed = list(origin.allowed_commands) if origin is not None else []
    for record in journal:
        if isinstance(record, TurnRecord) and record.setting is not None:
            configured = record.setting.model
        elif isinstance(record, LimitRecord) and narrows_limit(limits, record.model, record.tokens):
            limits[record.model] = record.tokens
        elif isinstance(record, ForgetLimitsRecord):
            for model in record.models:
                limits.pop(model, None)
        elif isinstance(record, AllowRecord) and record.command not in allowed:
            allowed.append(record.command)
    return _Recorded(configured, limits, allowed)


def meta_from_records(
    session_id: str,
    journal: Sequence[JournalRecord],
    messages: Sequence[Message],
    fallback_created: datetime,
) -> SessionMeta:
    """The metadata the records describe (turns in start order, usage summed, the
    allowed commands, context limits and model setting recorded)."""
    turns = _turns_from_messages(messages)
    extra = Usage()
    for record in journal:
        if isinstance(record, TurnRecord):
            turns[record.turn.id] = record.turn
        elif isinstance(record, UsageRecord):
            extra = extra.add(record.usage)
    ordered = sorted(turns.values(), key=lambda t: t.started_at)
    usage = extra
    by_source: dict[str, int] = {}
    for turn in ordered:
        usage = usage.add(turn.usage)
        add_by_source(by_source, turn.input_by_source)
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
    recorded = _recorded(origin, journal)
    return SessionMeta(
        id=session_id,
        title=title,
        parent_id=origin.parent_id if origin is not None else None,
        fork_message_id=origin.fork_message_id if origin is not None else None,
        created_at=created,
        updated_at=max(times),
        model=latest_model or (origin.model if origin is not None else None),
        usage=usage,
        input_by_source=by_source,
        turns=ordered,
        configured_model=recorded.configured_model,
        context_limits=recorded.context_limits,
        allowed_commands=recorded.allowed_commands,
    )


@dataclass
class Reconciled:
    """What `reconcile` adopted from the journal: turn ids, allowed commands, models whose
    context limit it took."""

    turns: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    limits: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.turns or self.commands or self.limits)

    def describe(self) -> str:
        """E.g. "turn(s) t1; allowed command(s) make test"."""
        parts = [
            f"{what} {', '.join(items)}"
            for what, items in (
                ("turn(s)", self.turns),
                ("allowed command(s)", self.commands),
                ("the context limit(s) of", self.limits),
            )
            if items
        ]
        return "; ".join(parts)


def reconcile(meta: SessionMeta, rebuilt: SessionMeta) -> Reconciled:
    """Adopt (in place) what the records know and `meta` lacks: a turn whose start was
    recorded but not saved (with the model setting it started under), an end recorded
    but not saved, an allowed command, a smaller context limit.

    `rebuilt` is `meta_from_records` of a trace with a journal (only then are the
    records complete, usage included)."""
    adopted = Reconciled(turns=_reconcile_turns(meta, rebuilt))
    for command in rebuilt.allowed_commands:
        if command not in meta.allowed_commands:
            meta.allowed_commands.append(command)
            adopted.commands.append(command)
    for model, tokens in rebuilt.context_limits.items():
        if narrows_limit(meta.context_limits, model, tokens):
            meta.context_limits[model] = tokens
            adopted.limits.append(model)
    return adopted


def _reconcile_turns(meta: SessionMeta, rebuilt: SessionMeta) -> list[str]:
    """The turn part of `reconcile`; the ids of the turns adopted."""
    known = {turn.id: turn for turn in meta.turns}
    changed: list[str] = []
    started = False
    for turn in rebuilt.turns:
        mine = known.get(turn.id)
        if mine is None or (mine.finish_reason is None and turn.finish_reason is not None):
            known[turn.id] = turn
            changed.append(turn.id)
            started = started or (mine is None and turn.model is not None)
    if changed:
        meta.turns = sorted(known.values(), key=lambda t: t.started_at)
        meta.usage = rebuilt.usage
        meta.input_by_source = rebuilt.input_by_source
        meta.updated_at = max(meta.updated_at, rebuilt.updated_at)
        meta.model = rebuilt.model or meta.model
    if started:
        meta.configured_model = rebuilt.configured_model
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
