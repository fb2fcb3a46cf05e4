"""The `mcpServers` of session/new, load, resume and fork as the session's own MCP servers.

ACP gives each server as `{name, command, args, env: [{name, value}]}`
(stdio) or `{type: "http", name, url, headers: [{name, value}]}`; Cairn
reaches both (`mcpCapabilities.http`). An `sse` server, or a type this
version does not know, is left out and reported, never a failed request.
A server's name becomes part of its tools' names (`mcp__NAME__tool`), so
characters other than letters, digits, `-` and `_` become `_`, it is cut to
`MAX_SERVER_NAME_CHARS`, and a name given twice gets `_2`, `_3`, …; the
report says when a name was changed. Values are used as given (the client
resolved them; no `${VAR}` expansion). The servers run in the workspace
root, beside those of `cairn.toml`, for that session only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pydantic import ValidationError

from cairn.acp.schema import McpServerEntry
from cairn.settings import McpServerSettings

MAX_SERVER_NAME_CHARS = 32
FALLBACK_SERVER_NAME = "server"
SUPPORTED_TYPES = frozenset({"stdio", "http"})
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def server_name(name: str, taken: set[str]) -> str:
    """`name` made safe for tool names and unique among `taken`."""
    base = _UNSAFE.sub("_", name.strip())[:MAX_SERVER_NAME_CHARS] or FALLBACK_SERVER_NAME
    candidate, number = base, 1
    while candidate in taken:
        number += 1
        suffix = f"_{number}"
        candidate = base[: MAX_SERVER_NAME_CHARS - len(suffix)] + suffix
    return candidate


def server_settings(entry: McpServerEntry) -> McpServerSettings:
    """The `[mcp.servers.NAME]` table of one supported entry."""
    if entry.type == "http":
        return McpServerSettings(url=entry.url, headers={h.name: h.value for h in entry.headers})
    return McpServerSettings(
        command=entry.command, args=list(entry.args), env={e.name: e.value for e in entry.env}
    )


def unsupported(entry: McpServerEntry) -> str:
    return (
        f"MCP server {entry.name!r} is left out: Cairn reaches MCP servers over stdio and"
        f' streamable HTTP (`type: "http"`), not {entry.type!r}'
    )


def session_servers(
    entries: Sequence[McpServerEntry],
) -> tuple[dict[str, McpServerSettings], list[str]]:
    """The servers to run for the session, by name, and what to tell the user about the rest."""
    servers: dict[str, McpServerSettings] = {}
    notes: list[str] = []
    for entry in entries:
        if entry.type not in SUPPORTED_TYPES:
            notes.append(unsupported(entry))
            continue
        name = server_name(entry.name, set(servers))
        try:
            servers[name] = server_settings(entry)
        except ValidationError as error:
            problem = "; ".join(e["msg"] for e in error.errors())
            notes.append(f"MCP server {entry.name!r} is left out: {problem}")
            continue
        if name != entry.name:
            notes.append(
                f"MCP server {entry.name!r} is named {name!r} here (its tools: mcp__{name}__<tool>)"
            )
    return servers, notes
