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

    `text` is the streamed text (text, reasoning), the call's arguments as JSON
    (toolStart), the first line of its output (toolEnd), the problem (error) or
    the finish reason (end). `detail` is a toolEnd's whole output (shortened when
    very long).

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
    detail: str | None = None


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
    """`cairn/turn` result; `changed_files`: the workspace-relative paths its patch changed."""

    session_id: str
    turn_id: str
    finish_reason: FinishReason
    text: str = ""
    usage: TokenUsage = Field(default_factory=TokenUsage)
    error: str | None = None
    changed_files: list[str] = Field(default_factory=list)


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


class NewSessionResult(WireModel):
    """`cairn/newSession` result: the new session (written on its first message)."""

    session_id: str


class RestoreResult(WireModel):
    """`cairn/restore` result: the session to continue in (the fork, when one was made)
    and the workspace-relative paths of the files put back."""

    session_id: str
    restored_files: list[str] = Field(default_factory=list)


# The user's answer to a command outside the allowlist: run it this once, run it and allow
# it for the rest of the session, or refuse it.
ApprovalDecision = Literal["once", "always", "reject"]


class ApprovalParams(WireModel):
    """`cairn/approval`: the user is asked whether a tool call may run `command`."""

    session_id: str
    turn_id: str
    call_id: str
    tool: str
    command: str
    reason: str = ""
    """Why an allowlisted command still asks (an argument pointing outside the
    workspace), else empty."""
    sandbox: str = ""
    """The sentence saying whether the command would run in a sandbox and which (empty
    for an MCP tool call)."""


class ApprovalResult(WireModel):
    """The user's answer to `cairn/approval`: run once, always allow it in this
    session, or reject it."""

    decision: ApprovalDecision
