"""The `[mcp]` settings table: the MCP servers to start, and when their schemas are deferred.

`McpServerSettings` is one `[mcp.servers.NAME]` table — a `command` run over
stdio (with `args`, `env`, `cwd`) or a streamable HTTP `url` (with
`headers`); `McpSettings` holds the servers by name and how `tool_search`
works: `tool_search_share` (when schemas are deferred), `tool_search_limit`
(how many tools one search reveals at most) and `tool_search_threshold` (how
close to the best match a tool must score). Both are fields of
`cairn.settings.Settings` (which re-exports them) and validate the same way: camelCase aliases for the
editor, unknown keys refused, attribute docstrings as the settings'
descriptions (`SETTINGS_MODEL_CONFIG`, the one configuration of every
settings model).
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic.alias_generators import to_camel

# MCP: the share of the model's input above which MCP tool schemas wait behind `tool_search`.
DEFAULT_TOOL_SEARCH_SHARE = 0.1
# tool_search: tools one search reveals at most, and the share of the best match's score a
# tool needs to be revealed.
DEFAULT_TOOL_SEARCH_LIMIT = 5
MAX_TOOL_SEARCH_LIMIT = 20
DEFAULT_TOOL_SEARCH_THRESHOLD = 0.25
DEFAULT_MCP_STARTUP_TIMEOUT_S = 30.0
DEFAULT_MCP_TOOL_TIMEOUT_S = 120.0
# A server name becomes part of tool names (`mcp__NAME__tool`), which providers restrict.
MCP_SERVER_NAME = re.compile(r"^[A-Za-z0-9_-]{1,32}$")

SETTINGS_MODEL_CONFIG = ConfigDict(
    alias_generator=to_camel,
    populate_by_name=True,
    extra="forbid",
    validate_assignment=True,
    use_attribute_docstrings=True,
)


class McpServerSettings(BaseModel):
    """One MCP server: a command run over stdio, or a streamable HTTP `url`.

    String values may use `${VAR}` (or `${VAR:-default}`) for environment
    variables, so tokens stay out of the file. A stdio server gets a minimal
    environment (PATH, HOME, USER, SHELL, TERM, LOGNAME) plus `env`; `cwd` is
    relative to the workspace root (the default). Tools in `allowed_tools`
    (the server's own tool names, or "*") run without asking even when the
    server does not mark them read-only.
    """

    model_config = SETTINGS_MODEL_CONFIG

    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    enabled: bool = True
    allowed_tools: list[str] = Field(default_factory=list)
    startup_timeout_s: float = Field(default=DEFAULT_MCP_STARTUP_TIMEOUT_S, gt=0)
    timeout_s: float = Field(default=DEFAULT_MCP_TOOL_TIMEOUT_S, gt=0)

    @model_validator(mode="after")
    def _one_transport(self) -> McpServerSettings:
        if (self.command is None) == (self.url is None):
            raise ValueError(
                "give either `command` (a server started over stdio) or `url` (streamable HTTP)"
            )
        if self.url is None and self.headers:
            raise ValueError("`headers` are for `url` servers; a stdio server takes `env`")
        if self.command is None and (self.args or self.env or self.cwd):
            raise ValueError("`args`, `env` and `cwd` are for `command` servers")
        return self

    @property
    def transport(self) -> Literal["stdio", "http"]:
        return "stdio" if self.command is not None else "http"


class McpSettings(BaseModel):
    """The `[mcp]` table: the servers, when their tool schemas are deferred, and what a
    `tool_search` reveals."""

    model_config = SETTINGS_MODEL_CONFIG

    servers: dict[str, McpServerSettings] = Field(default_factory=dict)
    tool_search_share: float = Field(default=DEFAULT_TOOL_SEARCH_SHARE, gt=0, le=1)
    """Share of the model's input above which MCP tool schemas wait behind `tool_search`."""
    tool_search_limit: int = Field(
        default=DEFAULT_TOOL_SEARCH_LIMIT, ge=1, le=MAX_TOOL_SEARCH_LIMIT
    )
    """Tools one `tool_search` reveals at most (the model may ask for fewer)."""
    tool_search_threshold: float = Field(default=DEFAULT_TOOL_SEARCH_THRESHOLD, gt=0, le=1)
    """A keyword match is revealed only when it scores at least this share of the best one."""

    @field_validator("servers")
    @classmethod
    def _names(cls, servers: dict[str, McpServerSettings]) -> dict[str, McpServerSettings]:
        for name in servers:
            if not MCP_SERVER_NAME.match(name):
                raise ValueError(f"server name {name!r}: use 1-32 letters, digits, '-' or '_'")
        return servers


def merge_mcp(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    """The `[mcp]` table of `base` with `override` on top: servers joined by name (an
    overriding server replaces the base's whole entry), other keys replaced."""
    servers = {**base.get("servers", {}), **override.get("servers", {})}
    return {**base, **override, "servers": servers}
