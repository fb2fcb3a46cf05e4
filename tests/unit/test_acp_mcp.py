"""ACP `mcpServers` entries as session MCP servers: transports, names, what is left out."""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn.acp.mcp_servers import MAX_SERVER_NAME_CHARS, server_name, session_servers
from cairn.acp.schema import McpServerEntry, NewSessionParams
from cairn.mcp import McpHub
from cairn.settings import McpServerSettings, Settings, SettingsRef
from tests.fakes.mcp_fixture import fixture_server


def entries(*raw: dict[str, object]) -> list[McpServerEntry]:
    params = NewSessionParams.model_validate({"cwd": "/", "mcpServers": list(raw)})
    return params.mcp_servers


def test_stdio_and_http_entries_become_server_tables() -> None:
    servers, notes = session_servers(
        entries(
            {
                "name": "files",
                "command": "/usr/bin/files-mcp",
                "args": ["--root", "/w"],
                "env": [{"name": "TOKEN", "value": "${NOT_A_VARIABLE}"}],
            },
            {
                "type": "http",
                "name": "docs",
                "url": "https://docs.example/mcp",
                "headers": [{"name": "Authorization", "value": "Bearer t"}],
            },
        )
    )
    assert notes == []
    assert servers["files"].command == "/usr/bin/files-mcp"
    assert servers["files"].args == ["--root", "/w"]
    assert servers["files"].env == {"TOKEN": "${NOT_A_VARIABLE}"}
    assert servers["docs"].transport == "http"
    assert servers["docs"].headers == {"Authorization": "Bearer t"}


def test_sse_and_unknown_types_are_left_out_and_said() -> None:
    servers, notes = session_servers(
        entries(
            {"type": "sse", "name": "legacy", "url": "http://x/sse", "headers": []},
            {"type": "acp", "name": "inline", "url": "acp:x"},
            {"name": "ok", "command": "ok-mcp", "args": None, "env": None},
        )
    )
    assert list(servers) == ["ok"]
    assert len(notes) == 2
    assert "'legacy' is left out" in notes[0] and "'sse'" in notes[0]
    assert "'inline' is left out" in notes[1] and "'acp'" in notes[1]


def test_names_are_made_safe_and_unique_and_the_change_is_said() -> None:
    servers, notes = session_servers(
        entries(
            {"name": "My Docs", "command": "a", "args": [], "env": []},
            {"name": "My Docs", "command": "b", "args": [], "env": []},
        )
    )
    assert list(servers) == ["My_Docs", "My_Docs_2"]
    assert servers["My_Docs_2"].command == "b"
    assert notes[0] == (
        "MCP server 'My Docs' is named 'My_Docs' here (its tools: mcp__My_Docs__<tool>)"
    )
    long = server_name("x" * 50, {"x" * MAX_SERVER_NAME_CHARS})
    assert len(long) == MAX_SERVER_NAME_CHARS and long.endswith("_2")
    assert server_name("  ", set()) == "server"


@pytest.mark.parametrize(
    ("entry", "problem"),
    [
        ({"name": "x", "args": [], "env": []}, "a stdio server needs `command`"),
        ({"type": "http", "name": "x", "headers": []}, "an http server needs `url`"),
        ({"command": "x"}, "name"),
    ],
)
def test_an_entry_without_its_address_is_invalid(entry: dict[str, object], problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        entries(entry)


async def test_a_sessions_servers_use_their_values_as_given(tmp_path: Path) -> None:
    # `${...}` in a session server's argument is a literal file name, not a variable.
    hub = McpHub(SettingsRef(Settings()), tmp_path)
    literal = "${CAIRN_TEST_UNSET_VARIABLE}"
    server = McpServerSettings.model_validate(fixture_server("--starts", literal))
    hub.set_session_servers("s1", {"given": server})
    try:
        [status] = (await hub.catalog("s1")).servers
        assert status.state == "ready", status.reason
        assert (tmp_path / literal).is_file()
        hub.set_session_servers("s1", {})
        assert (await hub.catalog("s1")).servers == ()
    finally:
        await hub.aclose()
