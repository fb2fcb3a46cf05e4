"""The compaction events a scope's listener is told: `start`, `done` and `failed`, with
the context's tokens before and after (and the reason a step failed or stalled)."""

from __future__ import annotations

from typing import Literal

from cairn.agent.scope.turn_scope import TurnScope
from cairn.models.events import CompactionEvent
from cairn.models.messages import CompactionKind

Stage = Literal["start", "done", "failed"]


def tell(
    scope: TurnScope,
    stage: Stage,
    kind: CompactionKind,
    before: int,
    after: int | None = None,
    error: str | None = None,
) -> None:
    """Tell the scope's listener one compaction event of its session."""
    scope.listener.on_compaction(
        CompactionEvent(
            session_id=scope.session.id,
            stage=stage,
            kind=kind,
            tokens_before=before,
            tokens_after=after,
            error=error,
        )
    )
