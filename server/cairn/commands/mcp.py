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
as data (`cairn.mcp.view`: the shape, and the sentences, of the editor's
`cairn/mcpServers` and `cairn/mcpStatus`). In a folder that is not trusted
its `cairn.toml`'s servers are not started: the one-line notice says so
(`cairn.files.trust`), and with no other server it is the error.
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
from cairn.mcp.view import mcp_report
from cairn.settings import Settings, SettingsRef

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
    `McpReport`)."""
    window = model_input_tokens(model, settings) if model is not None else None
    return mcp_report(statuses, model, settings, window).wire()


def _table(rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    return [
        "  ".join([*(c.ljust(w) for c, w in zip(row[:-1], widths, strict=True)), row[-1]]).rstrip()
        for row in rows
    ]


def format_report(data: dict[str, Any]) -> str:
    """The report as text: a table of the servers, their facts, their tools, the summary
    (the sentences are `cairn.mcp.view`'s, the ones the editor's tree shows)."""
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
    lines += [f"  {s['name']}: {'; '.join(s['facts'])}" for s in servers if s["facts"]]
    for server in servers:
        if server["tools"]:
            lines += ["", f"{server['name']}:"]
            tool_rows = [
                (t["name"], str(t["tokens"]), t["facts"][0], ", ".join(t["facts"][1:]))
                for t in server["tools"]
            ]
            lines += ["  " + line for line in _table(tool_rows)]
    lines += ["", data["summary"]]
    return "\n".join(lines)


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
