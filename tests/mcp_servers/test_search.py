"""`tool_search` over the tool lists real servers publish: a query reveals the tools it is about,
not the others that share one of its words."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cairn.mcp.search import search_tools
from tests.mcp_servers.conftest import git_server, time_server
from tests.mcp_servers.test_revisions import git_repository
from tests.unit.test_mcp_servers import hub_for

# Each query, the tool it is about (the best match), and the server every match must be of:
# a query about the time reveals no git tool and no tool of server-everything.
QUERIES = {
    "current time timezone": ("time/get_current_time", "time"),
    "convert a time between timezones": ("time/convert_time", "time"),
    "commit changes to the repository": ("git/git_commit", "git"),
    "show the commit log": ("git/git_log", "git"),
    "echo a message back": ("every/echo", "every"),
    "sum of two numbers": ("every/get-sum", "every"),
    "a tiny image": ("every/get-tiny-image", "every"),
}


async def test_a_query_reveals_what_it_is_about_among_real_tool_lists(
    tmp_path: Path, everything: dict[str, Any]
) -> None:
    servers = {
        "every": everything,
        "git": git_server(git_repository(tmp_path)),
        "time": time_server(),
    }
    hub = hub_for(tmp_path, servers)
    try:
        catalog = await hub.catalog()
        assert [s.state for s in catalog.servers] == ["ready"] * 3
        specs = catalog.tools
        assert len(specs) > 20
        found = {query: search_tools(query, specs) for query in QUERIES}
        best = {
            query: (f"{s[0].server}/{s[0].tool}", {t.server for t in s})
            for query, s in found.items()
        }
        assert best == {query: (tool, {server}) for query, (tool, server) in QUERIES.items()}
        assert (
            found["current time timezone"]
            == [s for s in specs if s.tool in ("get_current_time", "convert_time")][::-1]
        )
    finally:
        await hub.aclose()
