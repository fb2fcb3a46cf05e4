"""A session's transcript as the editor's chat shows it (`cairn/transcript`).

Rebuilt from the trace (messages and turn records), in the same event shapes
the chat receives live (`TurnEvent`, `CompactionEvent`), so a reloaded chat
renders a session exactly like one it watched.
"""

from __future__ import annotations

from pydantic import Field

from cairn.models.base import WireModel
from cairn.models.events import CompactionEvent, TokenUsage, TurnEvent
from cairn.models.session import Mode, TurnEnd


class TranscriptCompaction(WireModel):
    """A compaction recorded during a turn; `at` is the number of the turn's events before it."""

    at: int
    event: CompactionEvent


class TranscriptTurn(WireModel):
    """One turn: the user's message, what happened, how it ended and what it changed."""

    turn_id: str
    message: str
    references: list[str] = Field(default_factory=list)
    mode: Mode | None = None
    started_at: str
    finish_reason: TurnEnd | None = None
    error: str | None = None
    usage: TokenUsage = Field(default_factory=TokenUsage)
    events: list[TurnEvent] = Field(default_factory=list)
    compactions: list[TranscriptCompaction] = Field(default_factory=list)
    # Workspace-relative paths the turn's recorded patch changed.
    changed_files: list[str] = Field(default_factory=list)
    # Its file changes were undone by `cairn/restore`.
    reverted: bool = False


class Transcript(WireModel):
    """`cairn/transcript` result."""

    session_id: str
    title: str
    parent_id: str | None = None
    turns: list[TranscriptTurn] = Field(default_factory=list)
