"""A session's transcript for the editor's chat, rebuilt from its trace (`cairn/transcript`).

Each turn record gives the turn (its user message, mode, how it ended, its
usage and patch); the steps of the turn's messages (`replay.py`, the walk
the ACP replay and `cairn trace show` translate too) give its events, in the shapes
and with the texts the chat receives live: text and reasoning as recorded,
tool calls as `toolStart` (arguments as JSON) and `toolEnd` (first line and
whole output), then the turn's error and its `end`. The per-call `retry`
and `usage` events are live only (the turn's usage is its record's sum). Compaction markers
appear where they were recorded; one recorded between turns (a Compact Now,
a goal the user finished) goes to the end of the turn before it.
"""

from __future__ import annotations

from collections.abc import Sequence

from cairn.agent.sessions.event_text import arguments_text, event_detail, first_line
from cairn.agent.sessions.replay import (
    Answered,
    Called,
    Compacted,
    Said,
    Step,
    Thought,
    Unanswered,
    replay_steps,
)
from cairn.agent.sessions.session import Session
from cairn.errors import CairnError
from cairn.files.patches import parse_patch
from cairn.models.events import CompactionEvent, TokenUsage, TurnEvent
from cairn.models.messages import CompactionPart, FilePart, Message
from cairn.models.session import Turn
from cairn.models.transcript import Transcript, TranscriptCompaction, TranscriptTurn


class _TurnBuilder:
    """Collects one turn's events and compactions."""

    def __init__(self, session_id: str, turn: Turn) -> None:
        self.session_id = session_id
        self.turn = turn
        self.events: list[TurnEvent] = []
        self.compactions: list[TranscriptCompaction] = []

    def event(self, kind: str, **fields: object) -> None:
        self.events.append(
            TurnEvent.model_validate(
                {"session_id": self.session_id, "turn_id": self.turn.id, "kind": kind, **fields}
            )
        )

    def compaction(self, part: CompactionPart) -> None:
        event = CompactionEvent(
            session_id=self.session_id,
            stage="done",
            kind=part.kind,
            tokens_before=part.tokens_before,
            tokens_after=part.tokens_after,
        )
        self.compactions.append(TranscriptCompaction(at=len(self.events), event=event))

    def step(self, step: Step) -> None:
        """The events of one step of the turn (text is the agent's: the user's message is
        the turn's own)."""
        if isinstance(step, Thought):
            self.event("reasoning", text=step.part.text)
        elif isinstance(step, Said) and step.message.role == "assistant":
            self.event("text", text=step.part.text)
        elif isinstance(step, Called):
            text = arguments_text(step.part.arguments)
            self.event("toolStart", tool=step.part.name, call_id=step.part.call_id, text=text)
        elif isinstance(step, Answered):
            result = step.part
            self.event(
                "toolEnd",
                tool=result.name,
                call_id=result.call_id,
                ok=result.ok,
                text=first_line(result.output),
                detail=event_detail(result.output),
            )
        elif isinstance(step, Compacted):
            self.compaction(step.part)

    def finish(self) -> None:
        turn = self.turn
        if turn.error is not None and turn.finish_reason not in (None, "cancelled"):
            self.event("error", text=turn.error)
        if turn.finish_reason is not None:
            self.event("end", text=turn.finish_reason)


def _user_text(message: Message | None) -> tuple[str, list[str]]:
    if message is None:
        return "", []
    refs = [part.path for part in message.parts if isinstance(part, FilePart)]
    return message.text(), refs


def _changed_files(session: Session, turn: Turn) -> list[str]:
    if turn.patch_artifact_id is None:
        return []
    try:
        patch = session.trace.read_artifact(turn.patch_artifact_id).decode("utf-8")
        return [change.path for change in parse_patch(patch)]
    except (CairnError, UnicodeDecodeError):  # only the list is lost; the transcript loads
        return []


def _turn(session: Session, builder: _TurnBuilder, user: Message | None) -> TranscriptTurn:
    turn = builder.turn
    text, refs = _user_text(user)
    return TranscriptTurn(
        turn_id=turn.id,
        message=text,
        references=refs,
        mode=turn.mode,
        started_at=turn.started_at.isoformat(),
        finish_reason=turn.finish_reason,
        error=turn.error,
        usage=TokenUsage(
            input_tokens=turn.usage.input_tokens, output_tokens=turn.usage.output_tokens
        ),
        events=builder.events,
        compactions=builder.compactions,
        changed_files=_changed_files(session, turn),
        reverted=turn.reverted,
    )


def build_transcript(session: Session, messages: Sequence[Message] | None = None) -> Transcript:
    """The transcript of `session` (see the module docstring)."""
    meta = session.meta()
    records = list(messages if messages is not None else session.messages())
    by_id = {message.id: message for message in records}
    builders = {turn.id: _TurnBuilder(session.id, turn) for turn in meta.turns}
    order = [turn.id for turn in meta.turns]
    previous: _TurnBuilder | None = None
    for step in replay_steps(records):
        if isinstance(step, Unanswered):
            continue  # the turn's `end` says it was cancelled
        builder = builders.get(step.message.turn_id or "")
        if builder is None:
            # Between turns: only compaction markers are shown, after the turn before.
            target = previous or (builders[order[0]] if order else None)
            if target is not None and isinstance(step, Compacted):
                target.compaction(step.part)
            continue
        previous = builder
        if step.message.id != builder.turn.user_message_id:
            builder.step(step)
    turns = []
    for turn_id in order:
        builder = builders[turn_id]
        builder.finish()
        turns.append(_turn(session, builder, by_id.get(builder.turn.user_message_id)))
    return Transcript(
        session_id=session.id, title=meta.title, parent_id=meta.parent_id, turns=turns
    )
