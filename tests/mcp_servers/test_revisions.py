"""MCP revisions: servers of 2025-11-25 (initialize) and 2026-07-28 (server/discover) side by side;
tool listings in a deterministic order, read again when their `ttlMs` runs out, and kept when
they come back the same.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from cairn.mcp import ServerStatus
from tests.fakes.mcp_fixture import fixture_server
from tests.mcp_servers.conftest import git_server, time_server
from tests.unit.test_mcp_servers import hub_for, text_of

HOUR_MS = 3_600_000


def git_repository(root: Path) -> Path:
    repository = root / "repo"
    repository.mkdir()
    subprocess.run(["git", "init", "-q", str(repository)], check=True)
    (repository / "README.md").write_text("hello\n")
    return repository


def listings(path: Path) -> int:
    return len(path.read_text().split()) if path.exists() else 0


async def test_servers_of_both_revisions_serve_their_tools(
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
        protocols = {s.name: (s.state, s.protocol) for s in catalog.servers}
        assert protocols == {
            "every": ("ready", "2025-11-25"),
            "git": ("ready", "2026-07-28"),
            "time": ("ready", "2026-07-28"),
        }
        names = [s.name for s in catalog.tools]
        assert names == sorted(names)
        echoed = await hub.call_tool(None, "every", "echo", {"message": "old"})
        assert text_of(echoed) == "Echo: old"
        status = await hub.call_tool(
            None, "git", "git_status", {"repo_path": servers["git"]["args"][1]}
        )
        assert "README.md" in text_of(status)
        now = await hub.call_tool(None, "time", "get_current_time", {"timezone": "UTC"})
        assert '"timezone": "UTC"' in text_of(now)
    finally:
        await hub.aclose()


async def test_a_listing_in_another_order_keeps_the_tools_and_tells_nothing(tmp_path: Path) -> None:
    counted = tmp_path / "listings.txt"
    server = fixture_server("--rotate-list", "--list-ttl-ms", "0", "--listings", str(counted))
    hub = hub_for(tmp_path, {"fx": server})
    events: list[ServerStatus] = []
    hub.on_status = events.append
    try:
        [first] = (await hub.catalog()).servers
        told = len(events)
        [second] = (await hub.catalog()).servers
        [third] = (await hub.catalog()).servers
        # ttlMs 0: stale at once, listed again for each catalog, in a new order each time...
        assert listings(counted) == 3
        # ...and the same tools, in the same order, as the same specs: nothing to tell.
        assert second.tools is first.tools and third.tools is first.tools
        assert [s.name for s in first.tools] == sorted(s.name for s in first.tools)
        assert len(events) == told
    finally:
        await hub.aclose()


async def test_a_listing_is_read_again_only_when_its_ttl_ran_out(tmp_path: Path) -> None:
    stale, fresh = tmp_path / "stale.txt", tmp_path / "fresh.txt"
    servers = {
        "stale": fixture_server("--list-ttl-ms", "0", "--listings", str(stale)),
        "fresh": fixture_server("--list-ttl-ms", str(HOUR_MS), "--listings", str(fresh)),
    }
    hub = hub_for(tmp_path, servers)
    try:
        for _ in range(3):
            assert [s.state for s in (await hub.catalog()).servers] == ["ready", "ready"]
        assert (listings(stale), listings(fresh)) == (3, 1)
    finally:
        await hub.aclose()
