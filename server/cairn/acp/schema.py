"""The part of the ACP v1 schema Cairn reads: request params, prompt content, client answers.

Written from the protocol's JSON schema (`schema/v1/schema.json` of the spec
repository, as shipped in `@agentclientprotocol/sdk` 2.4.0). The PyPI
package `agent-client-protocol` 0.12.1 carries an older schema (v1.19: no
`compaction_update`, no notices) and a connection that drops malformed lines
unanswered, so Cairn keeps its own models of the few shapes it reads; what
it sends is built as plain JSON in `updates.py`, `plan.py` and the handlers.

As ACP asks, unknown fields are ignored (peers add fields in minor versions)
and `_meta` is kept; missing required fields and wrong types are Invalid
params naming the field. Paths must be absolute (ACP's rule for every path).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic.alias_generators import to_camel

logger = logging.getLogger(__name__)

PROTOCOL_VERSION = 1
# Longest id Cairn accepts from a client (session ids, option ids).
MAX_ID_CHARS = 200


class AcpModel(BaseModel):
    """camelCase on the wire, unknown fields ignored, `_meta` kept."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")

    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


def absolute(value: str) -> str:
    """`value` when it is an absolute path; else a ValueError saying so."""
    if not Path(value).is_absolute():
        raise ValueError(f"must be an absolute path, got {value!r}")
    return value


SessionId = Annotated[str, Field(min_length=1, max_length=MAX_ID_CHARS)]


# -- initialize -----------------------------------------------------------------
class FileSystemCapability(AcpModel):
    read_text_file: bool = False
    write_text_file: bool = False


class ClientSessionCapabilities(AcpModel):
    compaction: dict[str, Any] | None = None
    notices: dict[str, Any] | None = None


class ElicitationCapability(AcpModel):
    """Which questions the client shows (`{}`: it does; absent or null: it does not)."""

    form: dict[str, Any] | None = None
    url: dict[str, Any] | None = None


class ClientCapabilities(AcpModel):
    fs: FileSystemCapability = Field(default_factory=FileSystemCapability)
    terminal: bool = False
    session: ClientSessionCapabilities | None = None
    elicitation: ElicitationCapability | None = None
    # Unstable: the client renders `plan_update` (markdown plans).
    plan: dict[str, Any] | None = None

    @property
    def compaction_updates(self) -> bool:
        return self.session is not None and self.session.compaction is not None

    @property
    def elicits(self) -> bool:
        """Whether the client shows an MCP server's questions (form or URL)."""
        shown = self.elicitation
        return shown is not None and (shown.form is not None or shown.url is not None)

    @property
    def notices(self) -> bool:
        return self.session is not None and self.session.notices is not None

    @property
    def current_schema(self) -> bool:
        """Whether the client follows the current v1 schema (ACP 1.7 and later).

        `$/cancel_request` and a tool call's `name` have no capability of their own,
        and clients of older schemas fail on them (the Python SDK 0.12, schema v1.19,
        logs an error for each); the protocol version is 1 for both. A client that
        declares `session.notices` or `session.compaction`, which no older schema
        has, follows the schema that added them, so it takes both."""
        return self.notices or self.compaction_updates


class Implementation(AcpModel):
    name: str = ""
    title: str | None = None
    version: str | None = None


class InitializeParams(AcpModel):
    protocol_version: int
    client_capabilities: ClientCapabilities = Field(default_factory=ClientCapabilities)
    client_info: Implementation | None = None


# -- sessions -------------------------------------------------------------------
class NameValue(AcpModel):
    """An environment variable of a stdio MCP server, or an HTTP header of a URL one."""

    name: str
    value: str


class McpServerEntry(AcpModel):
    """One entry of `mcpServers`: stdio (no `type`), `http` or `sse` (any other type is kept,
    to be reported as unsupported rather than failing the request)."""

    type: str = "stdio"
    name: str
    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: list[NameValue] = Field(default_factory=list)
    url: str | None = None
    headers: list[NameValue] = Field(default_factory=list)

    @field_validator("args", "env", "headers", mode="before")
    @classmethod
    def _null_is_empty(cls, value: Any) -> Any:
        return [] if value is None else value

    @model_validator(mode="after")
    def _address(self) -> McpServerEntry:
        if self.type == "stdio" and not self.command:
            raise ValueError(f"MCP server {self.name!r}: a stdio server needs `command`")
        if self.type in ("http", "sse") and not self.url:
            raise ValueError(f"MCP server {self.name!r}: an {self.type} server needs `url`")
        return self


class WorkspaceParams(AcpModel):
    """What session/new, load, resume and fork share: the folders and the MCP servers."""

    cwd: str
    additional_directories: list[str] = Field(default_factory=list)
    mcp_servers: list[McpServerEntry] = Field(default_factory=list)

    @field_validator("cwd")
    @classmethod
    def _cwd(cls, value: str) -> str:
        return absolute(value)

    @field_validator("additional_directories")
    @classmethod
    def _directories(cls, value: list[str]) -> list[str]:
        return [absolute(item) for item in value]


class NewSessionParams(WorkspaceParams):
    pass


class SessionWorkspaceParams(WorkspaceParams):
    """session/load, session/resume, session/fork."""

    session_id: SessionId


class SessionParams(AcpModel):
    """session/cancel, session/delete, session/close."""

    session_id: SessionId


class ListSessionsParams(AcpModel):
    cwd: str | None = None
    cursor: str | None = None

    @field_validator("cwd")
    @classmethod
    def _cwd(cls, value: str | None) -> str | None:
        return None if value is None else absolute(value)


class SetModeParams(AcpModel):
    session_id: SessionId
    mode_id: str


# -- prompt content ---------------------------------------------------------------
class TextBlock(AcpModel):
    type: Literal["text"]
    text: str


class ImageBlock(AcpModel):
    type: Literal["image"]
    mime_type: str = ""
    uri: str | None = None


class AudioBlock(AcpModel):
    type: Literal["audio"]
    mime_type: str = ""


class ResourceLinkBlock(AcpModel):
    type: Literal["resource_link"]
    uri: str
    name: str = ""
    title: str | None = None
    mime_type: str | None = None


class TextResource(AcpModel):
    uri: str
    text: str
    mime_type: str | None = None


class BlobResource(AcpModel):
    uri: str
    blob: str
    mime_type: str | None = None


class EmbeddedResourceBlock(AcpModel):
    type: Literal["resource"]
    resource: TextResource | BlobResource


ContentBlock = Annotated[
    TextBlock | ImageBlock | AudioBlock | ResourceLinkBlock | EmbeddedResourceBlock,
    Field(discriminator="type"),
]


class PromptParams(AcpModel):
    session_id: SessionId
    prompt: list[ContentBlock]


# -- answers from the client --------------------------------------------------------
class PermissionOutcome(AcpModel):
    outcome: Literal["cancelled", "selected"]
    option_id: str | None = None


class PermissionAnswer(AcpModel):
    outcome: PermissionOutcome


def selected_option(answer: Any) -> str | None:
    """The option id a `session/request_permission` answer selected; None when it was
    cancelled, selected nothing or cannot be read."""
    try:
        outcome = PermissionAnswer.model_validate(answer).outcome
    except ValueError:
        logger.warning("unreadable answer to session/request_permission %r", answer)
        return None
    return outcome.option_id if outcome.outcome == "selected" else None


class ReadTextFileAnswer(AcpModel):
    content: str


class CreateTerminalAnswer(AcpModel):
    terminal_id: str


class TerminalExitStatus(AcpModel):
    exit_code: int | None = None
    signal: str | None = None


class TerminalOutputAnswer(AcpModel):
    output: str = ""
    truncated: bool = False
    exit_status: TerminalExitStatus | None = None
