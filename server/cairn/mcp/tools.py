"""MCP tools as the model sees them: namespaced names, schemas and the read-only flag.

A server's tool `search` of server `docs` is offered as `mcp__docs__search`
(providers accept `[A-Za-z0-9_-]{1,64}` in a tool name: other characters
become `_`, and a name that is too long or collides keeps a short hash).
Its schema is the server's `inputSchema` under that name, with the
description cut at `MAX_DESCRIPTION_CHARS`. A tool is read-only when the
server says so (`annotations.readOnlyHint`); only read-only tools are offered
in plan and review modes and to explore branches, and only they (and the
configured `allowed_tools`) run without the user's approval.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import xxhash

if TYPE_CHECKING:
    import mcp_types

    from cairn.settings import McpServerSettings

MCP_TOOL_PREFIX = "mcp__"
NAME_SEPARATOR = "__"
MCP_REF_PREFIX = "mcp:"
MAX_TOOL_NAME_CHARS = 64
NAME_HASH_CHARS = 8
# Longest tool description handed to the model (Claude Code cuts at 2 KB too).
MAX_DESCRIPTION_CHARS = 2_048
ALL_TOOLS = "*"
_UNSAFE_NAME_CHARS = re.compile(r"[^A-Za-z0-9_-]")


@dataclass(frozen=True, eq=False)
class McpToolSpec:
    """One tool of one MCP server, ready to offer: see the module docstring."""

    server: str
    tool: str
    name: str
    description: str
    input_schema: dict[str, Any]
    read_only: bool
    # Runs without asking: read-only, or listed in the server's `allowed_tools`.
    allowed: bool

    @property
    def ref(self) -> str:
        """How the manifest names it: `mcp:server/tool`."""
        return f"{MCP_REF_PREFIX}{self.server}/{self.tool}"

    def schema(self) -> dict[str, Any]:
        """The OpenAI function-tool schema the model receives."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.input_schema,
            },
        }


def is_mcp_tool(name: str) -> bool:
    return name.startswith(MCP_TOOL_PREFIX)


def qualified_name(server: str, tool: str, taken: Iterable[str] = ()) -> str:
    """`mcp__server__tool`, made safe for providers and unique among `taken`."""
    name = _UNSAFE_NAME_CHARS.sub("_", f"{MCP_TOOL_PREFIX}{server}{NAME_SEPARATOR}{tool}")
    used = set(taken)
    if len(name) <= MAX_TOOL_NAME_CHARS and name not in used:
        return name
    digest = xxhash.xxh3_64_hexdigest(f"{server}/{tool}".encode())[:NAME_HASH_CHARS]
    return f"{name[: MAX_TOOL_NAME_CHARS - NAME_HASH_CHARS - 1]}_{digest}"


def object_schema(schema: dict[str, Any] | None) -> dict[str, Any]:
    """The tool's input schema as a function's parameters (always an object schema)."""
    parameters = dict(schema or {})
    parameters.setdefault("type", "object")
    if parameters.get("type") == "object":
        parameters.setdefault("properties", {})
    return parameters


def describe(server: str, tool: mcp_types.Tool) -> str:
    """The tool's description for the model (its title when it has no description)."""
    text = (tool.description or "").strip()
    if not text:
        title = tool.title or (tool.annotations.title if tool.annotations else None)
        text = title or f"Tool {tool.name} of the MCP server {server}."
    if len(text) > MAX_DESCRIPTION_CHARS:
        text = text[: MAX_DESCRIPTION_CHARS - 1] + "…"
    return text


def is_read_only(tool: mcp_types.Tool) -> bool:
    """Whether the server marks the tool read-only (`annotations.readOnlyHint`)."""
    return bool(tool.annotations is not None and tool.annotations.read_only_hint)


def runs_without_asking(tool: str, read_only: bool, allowed_tools: Sequence[str]) -> bool:
    """Read-only tools, and those the user allowed (`allowed_tools`, "*" for all)."""
    return read_only or ALL_TOOLS in allowed_tools or tool in allowed_tools


def tool_specs(
    server: str, tools: Sequence[mcp_types.Tool], settings: McpServerSettings
) -> list[McpToolSpec]:
    """The specs of one server's tools, sorted by their namespaced name."""
    specs: list[McpToolSpec] = []
    taken: set[str] = set()
    for tool in sorted(tools, key=lambda t: t.name):
        name = qualified_name(server, tool.name, taken)
        taken.add(name)
        read_only = is_read_only(tool)
        specs.append(
            McpToolSpec(
                server=server,
                tool=tool.name,
                name=name,
                description=describe(server, tool),
                input_schema=object_schema(tool.input_schema),
                read_only=read_only,
                allowed=runs_without_asking(tool.name, read_only, settings.allowed_tools),
            )
        )
    return sorted(specs, key=lambda s: s.name)
