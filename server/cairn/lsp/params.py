"""Params models of every `cairn/*` method (PROTOCOL.md), validated strictly.

camelCase on the wire (snake_case also accepted), unknown keys rejected (a
typo like `sessionID` must not silently mean "the active session"), no type
coercion, and size limits so a hostile client cannot make the engine chew on
gigabytes.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.alias_generators import to_camel

from cairn.errors import GoalError
from cairn.goals import one_verb
from cairn.models.diagnostics import Diagnostic
from cairn.settings import Mode

# Limits on what a client may send in one request.
MAX_MESSAGE_CHARS = 1_000_000
MAX_GOAL_TEXT_CHARS = 20_000
MAX_ID_CHARS = 200
MAX_REFERENCES = 200
MAX_REFERENCE_CHARS = 4_096
MAX_DIAGNOSTICS_PER_DOCUMENT = 10_000

SessionId = Annotated[str, Field(min_length=1, max_length=MAX_ID_CHARS)]
ProgressToken = int | Annotated[str, Field(max_length=MAX_ID_CHARS)]


class CairnParams(BaseModel):
    """Base of the params models: strict, camelCase aliases, no unknown keys."""

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="forbid", strict=True
    )


P = TypeVar("P", bound=CairnParams)


class SessionParams(CairnParams):
    """`{sessionId?}`, the active session when omitted (contextStats, goalTree, compact...)."""

    session_id: SessionId | None = None


References = Annotated[
    list[Annotated[str, Field(min_length=1, max_length=MAX_REFERENCE_CHARS)]],
    Field(max_length=MAX_REFERENCES),
]


class TurnParams(SessionParams):
    message: Annotated[str, Field(max_length=MAX_MESSAGE_CHARS)]
    mode: Mode | None = None
    references: References = Field(default_factory=list)
    model: Annotated[str, Field(min_length=1, max_length=MAX_ID_CHARS)] | None = None
    work_done_token: ProgressToken | None = None


class ManifestParams(SessionParams):
    message: Annotated[str, Field(max_length=MAX_MESSAGE_CHARS)] | None = None
    uri: Annotated[str, Field(min_length=1, max_length=MAX_REFERENCE_CHARS)] | None = None
    references: References = Field(default_factory=list)


GoalText = Annotated[str, Field(max_length=MAX_GOAL_TEXT_CHARS)]


class GoalParams(SessionParams):
    """Exactly one verb."""

    add: GoalText | None = None
    done: GoalText | None = None
    abandon: GoalText | None = None
    focus: Annotated[str, Field(max_length=MAX_ID_CHARS)] | None = None

    @model_validator(mode="after")
    def _exactly_one_verb(self) -> GoalParams:
        try:
            one_verb(self.verbs())
        except GoalError as error:
            raise ValueError(str(error)) from None
        return self

    def verbs(self) -> dict[str, str | None]:
        return {"add": self.add, "done": self.done, "abandon": self.abandon, "focus": self.focus}


class McpServersParams(SessionParams):
    """`{sessionId?, start?}`: `start` starts the servers that are not started yet."""

    start: bool = False


class McpControlParams(SessionParams):
    """`{sessionId?, name, action}`: the user's action on one MCP server."""

    name: Annotated[str, Field(min_length=1, max_length=MAX_ID_CHARS)]
    action: Literal["restart", "disable", "enable"]


class NamedSessionParams(CairnParams):
    """`{sessionId}`, required: for methods that destroy or copy a session (deleteSession,
    fork), which never fall back to the active session — a client that drops the field
    must not delete or fork the wrong one."""

    session_id: SessionId

    @model_validator(mode="before")
    @classmethod
    def _session_named(cls, data: Any) -> Any:
        if isinstance(data, dict) and not {"sessionId", "session_id"} & data.keys():
            raise ValueError(
                "sessionId is required: this method never defaults to the active session"
            )
        return data


class ForkParams(NamedSessionParams):
    at_message_id: Annotated[str, Field(min_length=1, max_length=MAX_ID_CHARS)] | None = None


class EmptyParams(CairnParams):
    """`{}` (sessions, newSession, models)."""


TurnId = Annotated[str, Field(min_length=1, max_length=MAX_ID_CHARS)]


class RestoreParams(CairnParams):
    """`cairn/restore`: back to before a turn (its files, its conversation, or both)."""

    session_id: SessionId
    turn_id: TurnId
    files: bool = True
    conversation: bool = False


class ProfileParams(CairnParams):
    refresh: bool = False


class DiagnosticsParams(CairnParams):
    """`cairn/diagnostics`: the editor's diagnostics of one document (replaces the old set).

    Diagnostics are LSP `Diagnostic`s; fields Cairn does not use (tags, data,
    relatedInformation...) are accepted and dropped.
    """

    model_config = ConfigDict(strict=False)

    uri: Annotated[str, Field(min_length=1, max_length=MAX_REFERENCE_CHARS)]
    diagnostics: Annotated[list[Diagnostic], Field(max_length=MAX_DIAGNOSTICS_PER_DOCUMENT)]


class DebugParams(CairnParams):
    """`cairn/_debug` (test builds only): `{reset?, uri?, fail?}`."""

    reset: bool = False
    uri: str | None = None
    fail: bool = False


def wire_diagnostic(raw: Any) -> Diagnostic:
    """An LSP diagnostic (dict) as the core's `Diagnostic` (raises pydantic's ValidationError)."""
    return Diagnostic.model_validate(raw)
