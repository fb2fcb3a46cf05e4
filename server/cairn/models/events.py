"""Events and results the engine reports to its listeners (the LSP server, the CLI).

Their `wire()` dumps are exactly the PROTOCOL.md shapes of the matching
notifications and responses.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from cairn.models.base import WireModel
from cairn.models.goals import GoalTree
from cairn.models.messages import CompactionKind
from cairn.models.session import FinishReason

TurnEventKind = Literal[
    "text", "reasoning", "toolStart", "toolEnd", "retry", "usage", "error", "end"
]


class TokenUsage(WireModel):
    input_tokens: int = 0
    output_tokens: int = 0
    # Dollars from litellm's price table; None for models it does not price.
    cost: float | None = None


class TurnEvent(WireModel):
    """`cairn/turnEvent`.

    `retry`: a model request failed and request number `attempt` follows after
    `waitS` seconds; `text` says why. `usage`: a model call ended; `usage` holds
    its tokens and cost, `model` the model, `attempt` the requests it took.
    """

    session_id: str
    turn_id: str
    kind: TurnEventKind
    text: str | None = None
    tool: str | None = None
    call_id: str | None = None
    ok: bool | None = None
    attempt: int | None = None
    wait_s: float | None = None
    model: str | None = None
    usage: TokenUsage | None = None


class CompactionEvent(WireModel):
    """`cairn/compaction`."""

    session_id: str
    stage: Literal["start", "done", "failed"]
    kind: CompactionKind
    tokens_before: int
    tokens_after: int | None = None
    error: str | None = None


class GoalTreeView(WireModel):
    """`cairn/goalTree` and `cairn/goal` results, and `cairn/goalTreeChanged`."""

    session_id: str
    tree: GoalTree
    rendered: str


class TurnResult(WireModel):
    """`cairn/turn` result."""

    session_id: str
    turn_id: str
    finish_reason: FinishReason
    text: str = ""
    usage: TokenUsage = Field(default_factory=TokenUsage)
    error: str | None = None


class CompactResult(WireModel):
    """`cairn/compact` result."""

    session_id: str
    tokens_before: int
    tokens_after: int
    kind: Literal["prune", "summary", "none"]


class SessionInfo(WireModel):
    """One row of `cairn/sessions`."""

    session_id: str
    title: str
    parent_id: str | None = None
    created_at: str
    updated_at: str
    turns: int


class SessionsResult(WireModel):
    """`cairn/sessions` result."""

    sessions: list[SessionInfo] = Field(default_factory=list)


class ForkResult(WireModel):
    """`cairn/fork` result: the new session."""

    session_id: str


class DeleteSessionResult(WireModel):
    """`cairn/deleteSession` result."""

    deleted: Literal[True] = True
