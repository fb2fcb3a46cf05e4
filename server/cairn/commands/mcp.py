"""`cairn mcp list`: the workspace's MCP servers, their state, their tools and schema tokens.

Starts every enabled server of the settings (`[mcp.servers.NAME]` in
`cairn.toml`), waits for each one's first attempt (at most its startup
timeout), prints one line per server (transport, state, tools, the tokens
of its tool schemas, what it runs or where it is), then what else is known
of it (why it is not ready, its MCP revision, restarts, how its last process
ended, lines it printed on stdout that are not the protocol), then each tool
with its tokens, whether it runs without asking (`allowed_tools`) and the
server's hints about it; last, the total against the share of the model's input above which
the schemas are deferred behind `tool_search`. The servers are stopped
before the command returns. No model is called; tokens are counted with
the tokenizer of `--model` (default: the settings' model; with neither, the
default tokenizer, and no window to compare with). `--json` prints the same
as data (`cairn.mcp.view`: the shape the editor's `cairn/mcpStatus` carries). In a folder that is not trusted its `cairn.toml`'s servers are
not started: the one-line notice says so (`cairn.files.trust`), and with no
other server it is the error.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import typer

from cairn.agent.scope.offer import model_input_tokens
from cairn.errors import InvalidRequestError
from cairn.files.trust import trust_notes, workspace_settings
from cairn.mcp import McpHub, ServerStatus
from cairn.mcp.tools import hint_words
from cairn.mcp.view import mcp_report
from cairn.settings import Settings, SettingsRef
from cairn.tokens.counter import FALLBACK_ENCODING

COLUMNS = ("SERVER", "TRANSPORT", "STATE", "TOOLS", "TOKENS", "TARGET")
NO_SERVERS = (
    "no MCP servers configured: add [mcp.servers.NAME] to cairn.toml"
    " (command/args/env/cwd for stdio, url/headers for HTTP; see docs/MCP.md)"
)


async def server_statuses(workspace: Path, settings: Settings) -> list[ServerStatus]:
    """Every configured server after its first start attempt (then stopped again)."""
    hub = McpHub(SettingsRef(settings), workspace)
    try:
        return list((await hub.catalog()).servers)
    finally:
        await hub.aclose()


def report(statuses: list[ServerStatus], settings: Settings, model: str | None) -> dict[str, Any]:
    """The data `cairn mcp list` prints (also its `--json` output: the editor's
    `cairn/mcpStatus` shape)."""
    window = model_input_tokens(model, settings) if model is not None else None
    return mcp_report(statuses, model, settings, window).wire()


def _table(rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    return [
        "  ".join([*(c.ljust(w) for c, w in zip(row[:-1], widths, strict=True)), row[-1]]).rstrip()
        for row in rows
    ]


def format_report(data: dict[str, Any]) -> str:
    servers = data["servers"]
    rows: list[tuple[str, ...]] = [COLUMNS]
    rows += [
        (
            s["name"],
            s["transport"],
            s["state"],
            str(len(s["tools"])),
            str(s["schemaTokens"]),
            s["target"],
        )
        for s in servers
    ]
    lines = _table(rows)
    lines += [f"  {s['name']}: {'; '.join(facts)}" for s in servers if (facts := server_facts(s))]
    for server in servers:
        if server["tools"]:
            lines += ["", f"{server['name']}:"]
            tool_rows = [
                (t["name"], str(t["tokens"]), permission_of(t), ", ".join(hints_of(t)))
                for t in server["tools"]
            ]
            lines += ["  " + line for line in _table(tool_rows)]
    lines += ["", summary(data)]
    return "\n".join(lines)


def server_facts(server: dict[str, Any]) -> list[str]:
    """Why it is not ready, its MCP revision, restarts, how it last ended, its notes."""
    facts = [server["reason"]] if server["state"] != "ready" and server["reason"] else []
    if server["protocol"]:
        facts.append(f"MCP {server['protocol']}")
    if server["restarts"]:
        facts.append(f"{server['restarts']} restart{'s' if server['restarts'] != 1 else ''}")
    if server["exit"]:
        facts.append(f"its last process {server['exit']}")
    return facts + server["notes"]


def permission_of(tool: dict[str, Any]) -> str:
    """`allowed` (the user's `allowed_tools`) or `asks first`: hints never decide it."""
    return "allowed" if tool["allowed"] else "asks first"


def hints_of(tool: dict[str, Any]) -> list[str]:
    """The server's hints about the tool, in words."""
    return hint_words(tool["readOnly"], tool["destructive"], tool["openWorld"])


def summary(data: dict[str, Any]) -> str:
    total, window, share = data["schemaTokens"], data["modelInput"], data["toolSearchShare"]
    if data["model"] is None:
        return (
            f"MCP tool schemas: {total} tokens ({FALLBACK_ENCODING}; no model set, so no window"
            " to compare with: pass --model or set `model`)"
        )
    if window is None:
        return f"MCP tool schemas: {total} tokens (model {data['model']}: window unknown)"
    threshold = int(share * window)
    verdict = "deferred behind tool_search" if data["deferred"] else "offered directly"
    return (
        f"MCP tool schemas: {total} tokens, {total / window:.1%} of the input of {data['model']}"
        f" ({window}); {verdict} (above {share:.0%} = {threshold} tokens they are deferred)"
    )


def list_servers(workspace: Path, model: str | None, as_json: bool) -> None:
    """Print the servers of `workspace` (see the module docstring)."""
    if not workspace.is_dir():
        raise InvalidRequestError(f"workspace not found: {workspace}")
    settings = workspace_settings(workspace)
    notes = trust_notes(settings, workspace)
    if not settings.mcp.servers:
        raise InvalidRequestError(notes[0] if notes else NO_SERVERS)
    statuses = asyncio.run(server_statuses(workspace, settings))
    data = report(statuses, settings, model or settings.model)
    if as_json:
        typer.echo(json.dumps({**data, "notes": notes}, indent=2, ensure_ascii=False))
    else:
        typer.echo("\n".join([*notes, format_report(data)]))
