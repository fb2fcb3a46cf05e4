"""MCP tools as the model sees them: namespaced names, schemas and the read-only flag.

A server's tool `search` of server `docs` is offered as `mcp__docs__search`
(providers accept `[A-Za-z0-9_-]{1,64}` in a tool name: other characters
become `_`, and a name that is too long or collides keeps a short hash).
Its schema is the server's `inputSchema` under that name, with the
description cut at `MAX_DESCRIPTION_CHARS`, in name order whatever order
the server lists them in.

The server's annotations are hints, read as the MCP spec documents them
(`ToolAnnotations`): `readOnlyHint` (default false: the tool may change its
environment), `destructiveHint` (meaningful only when not read-only; default
true: an update may destroy data) and `openWorldHint` (default true: it may
reach entities outside, such as the web). They come from a server Cairn does
not trust, so they may narrow what runs but never loosen it: only tools
marked read-only are offered in plan and review modes and to explore
branches, yet a call runs without the user's approval only when the user
allowed the tool (`allowed_tools`, or "always" for the session), read-only
or not. The hints are shown where the user decides (`hint_words`).
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
    # The server's hints (see the module docstring), with the spec's defaults.
    read_only: bool
    # Runs without asking: listed in the server's `allowed_tools` (by the user).
    allowed: bool
    destructive: bool = True
    open_world: bool = True

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


def hints(tool: mcp_types.Tool) -> tuple[bool, bool, bool]:
    """Read-only, destructive, open-world, with the spec's defaults for unset hints
    (false, true, true); a read-only tool is never destructive."""
    notes = tool.annotations
    read_only = is_read_only(tool)
    destructive = notes is None or notes.destructive_hint is None or notes.destructive_hint
    open_world = notes is None or notes.open_world_hint is None or notes.open_world_hint
    return read_only, bool(destructive) and not read_only, bool(open_world)


def hint_words(read_only: bool, destructive: bool, open_world: bool) -> list[str]:
    """What a server's hints say of a tool, in words (`read-only`, `destructive`,
    `open-world`)."""
    words = ["read-only"] if read_only else []
    words += ["destructive"] if destructive else []
    return words + (["open-world"] if open_world else [])


def runs_without_asking(tool: str, allowed_tools: Sequence[str]) -> bool:
    """The tools the user allowed (`allowed_tools`, "*" for all): a server's hints never
    decide it."""
    return ALL_TOOLS in allowed_tools or tool in allowed_tools


def tool_specs(
    server: str, tools: Sequence[mcp_types.Tool], settings: McpServerSettings
) -> list[McpToolSpec]:
    """The specs of one server's tools, sorted by their namespaced name (two tools of one
    name by their whole listing, so the order never depends on the server's)."""
    specs: list[McpToolSpec] = []
    taken: set[str] = set()
    for tool in sorted(tools, key=lambda t: (t.name, t.model_dump_json())):
        name = qualified_name(server, tool.name, taken)
        taken.add(name)
        read_only, destructive, open_world = hints(tool)
        specs.append(
            McpToolSpec(
                server=server,
                tool=tool.name,
                name=name,
                description=describe(server, tool),
                input_schema=object_schema(tool.input_schema),
                read_only=read_only,
                allowed=runs_without_asking(tool.name, settings.allowed_tools),
                destructive=destructive,
                open_world=open_world,
            )
        )
    return sorted(specs, key=lambda s: s.name)
