"""The editor and the MCP servers: `cairn/mcpStatus` on start, crash and restart; `cairn/mcpServers`,
`cairn/mcpControl`; the first context the editor asks for starts the servers (trusted folder).

The server is `mcp-server-time` (PyPI), configured in the workspace's `cairn.toml`.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcInvalidParams

from cairn.files.trust import grant
from tests.lsp.harness import CairnClient, start_client, write_workspace
from tests.mcp_servers.conftest import time_server

STATUS = "cairn/mcpStatus"
KILLED = "was killed by signal 9 (SIGKILL)"


def time_workspace(tmp_path: Path, *, trusted: bool = True) -> Path:
    """A workspace whose `cairn.toml` runs `mcp-server-time` as `time`."""
    root = write_workspace(
        tmp_path / "ws", script=[{"text": "Hello."}], mcp_servers={"time": time_server()}
    )
    if trusted:
        grant(root)  # the user trusts it: its cairn.toml may start the server
    return root


def server_is(state: str, restarts: int = 0) -> Any:
    def match(params: dict[str, Any]) -> bool:
        server = params["server"]
        return server["name"] == "time" and (server["state"], server["restarts"]) == (
            state,
            restarts,
        )

    return match


async def stopped(client: CairnClient) -> None:
    try:
        await client.shutdown_session()
    finally:
        await client.stop()


async def test_mcp_status_on_start_crash_and_restart(editor: str, tmp_path: Path) -> None:
    client = await start_client(editor, time_workspace(tmp_path))
    try:
        mark = client.log.mark()
        # The MCP tree opened before any turn: the servers start for it.
        report = await client.request("cairn/mcpServers", {"start": True})
        [server] = report["servers"]
        assert (server["state"], server["protocol"]) == ("ready", "2026-07-28")
        assert {t["tool"] for t in server["tools"]} == {"get_current_time", "convert_time"}
        assert all(t["tokens"] > 0 and t["readOnly"] for t in server["tools"])
        started = await client.log.wait_for(STATUS, mark, server_is("ready"))
        assert started["report"]["servers"][0]["schemaTokens"] == server["schemaTokens"]

        os.kill(server["pid"], signal.SIGKILL)
        crashed = await client.log.wait_for(STATUS, mark, server_is("restarting", 1))
        assert crashed["server"]["exit"] == KILLED
        assert crashed["server"]["reason"].startswith(f"{KILLED}; restarting in 0.5 s")
        again = await client.log.wait_for(STATUS, mark, server_is("ready", 1))
        assert again["server"]["pid"] not in (None, server["pid"])
    finally:
        await stopped(client)


async def test_the_editors_actions_and_first_context(editor: str, tmp_path: Path) -> None:
    client = await start_client(editor, time_workspace(tmp_path))
    try:
        # No turn yet: the first stats the editor asks for count the server's schemas.
        stats = await client.request("cairn/contextStats", {})
        report = await client.request("cairn/mcpServers", {})
        [server] = report["servers"]
        assert server["state"] == "ready"
        assert stats["bySource"]["tools"] == stats["toolSchemaTokens"] > server["schemaTokens"]

        mark = client.log.mark()
        disabled = await client.request("cairn/mcpControl", {"name": "time", "action": "disable"})
        assert disabled["servers"][0]["state"] == "disabled"
        await client.log.wait_for(STATUS, mark, server_is("stopped"))
        enabled = await client.request("cairn/mcpControl", {"name": "time", "action": "enable"})
        assert enabled["servers"][0]["state"] == "ready"
        restarted = await client.request("cairn/mcpControl", {"name": "time", "action": "restart"})
        assert restarted["servers"][0]["pid"] not in (None, enabled["servers"][0]["pid"])
        with pytest.raises(JsonRpcInvalidParams, match="no MCP server named 'nope'"):
            await client.request("cairn/mcpControl", {"name": "nope", "action": "restart"})
        with pytest.raises(JsonRpcInvalidParams, match="action"):
            await client.request("cairn/mcpControl", {"name": "time", "action": "kill"})
    finally:
        await stopped(client)


async def test_an_untrusted_folder_starts_no_server_for_the_editor(
    editor: str, tmp_path: Path
) -> None:
    client = await start_client(editor, time_workspace(tmp_path, trusted=False))
    try:
        await client.request("cairn/contextStats", {})
        report = await client.request("cairn/mcpServers", {"start": True})
        assert report["servers"] == [] and report["schemaTokens"] == 0
        assert client.log.since(0, STATUS) == []
    finally:
        await stopped(client)
