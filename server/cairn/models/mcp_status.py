"""The MCP servers as the user sees them: `cairn mcp list --json` and the editor's `cairn/mcpStatus`.

One shape for both (`McpReport`; `McpStatusEvent` adds the server that
changed): each server's state and why, how its last
process ended, its last stderr lines, restarts and notes, its tools with
their schema tokens, the server's hints and whether the user allowed them;
then the total against the share of the model's input above which the
schemas are deferred behind `tool_search`; and the sentences both show
(`facts`, `summary`). Made by `cairn.mcp.view`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from cairn.models.base import WireModel


class McpToolView(WireModel):
    """One tool of a server: its name for the model, its schema tokens, hints and permission."""

    name: str
    tool: str
    tokens: int
    # The server's hints (`readOnlyHint`, `destructiveHint`, `openWorldHint`, spec defaults).
    read_only: bool
    destructive: bool
    open_world: bool
    # Runs without asking: the user listed it in `allowed_tools`.
    allowed: bool
    # In words, as `cairn mcp list` prints them: "allowed" or "asks first", then the hints.
    facts: list[str] = Field(default_factory=list)


class McpServerView(WireModel):
    """One server (a `cairn.mcp.ServerStatus` with its tools counted)."""

    name: str
    transport: Literal["stdio", "http"]
    target: str
    origin: Literal["settings", "session"]
    state: Literal[
        "not started", "starting", "ready", "restarting", "failed", "disabled", "stopped"
    ]
    reason: str | None = None
    session_id: str | None = None
    protocol: str | None = None
    pid: int | None = None
    exit: str | None = None
    stderr: list[str] = Field(default_factory=list)
    restarts: int = 0
    notes: list[str] = Field(default_factory=list)
    # What `cairn mcp list` prints of it: why it is not ready, its MCP revision, restarts,
    # how its last process ended, its notes.
    facts: list[str] = Field(default_factory=list)
    tools: list[McpToolView] = Field(default_factory=list)
    schema_tokens: int = 0


class McpReport(WireModel):
    """Every server, and whether their schemas are deferred for `model`."""

    model: str | None = None
    servers: list[McpServerView] = Field(default_factory=list)
    schema_tokens: int = 0
    # The model's input (its window less the reserved output); None when unknown.
    model_input: int | None = None
    tool_search_share: float
    deferred: bool = False
    # Why they are deferred (the manifest's reason), when they are.
    deferral: str | None = None
    # The total against the model's input, in words (the last line of `cairn mcp list`).
    summary: str = ""


class McpStatusEvent(WireModel):
    """`cairn/mcpStatus`: the server whose status changed (started, crashed, restarted,
    failed, stopped, its tools changed), and every server as they are now."""

    server: McpServerView
    report: McpReport
