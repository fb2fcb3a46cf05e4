"""MCP server lifecycles with the real fixture server: transports, restarts, settings, stopping."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import mcp_types
import pytest

from cairn.errors import InvalidRequestError
from cairn.mcp import McpCallError, McpHub
from cairn.mcp import state as mcp_state
from cairn.settings import McpServerSettings, Settings, SettingsRef
from tests.fakes.mcp_fixture import FIXTURE_ARGS, fixture_server

# Seconds a fixture gets to listen, or a state to be reached (a limit, not a measurement).
HTTP_START_LIMIT_S = 60.0
WAIT_LIMIT_S = 60.0
POLL_S = 0.1
# The stop time given to a server that will not stop (well under the SDK's own 2 s grace).
HUNG_STOP_TIMEOUT_S = 0.5


def hub_for(root: Path, servers: dict[str, Any], **mcp: Any) -> McpHub:
    settings = Settings.model_validate({"mcp": {"servers": servers, **mcp}})
    return McpHub(SettingsRef(settings), root)


async def _now(value: bool) -> bool:
    return value


def text_of(result: mcp_types.CallToolResult) -> str:
    [block] = result.content
    assert isinstance(block, mcp_types.TextContent)
    return block.text


def pids(path: Path) -> list[int]:
    return [int(line) for line in path.read_text().split()] if path.exists() else []


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def eventually(check: Callable[[], Awaitable[bool]], what: str) -> None:
    """Wait until `check()` holds (polling; fails after `WAIT_LIMIT_S`, which it does not time)."""
    for _ in range(int(WAIT_LIMIT_S / POLL_S)):
        if await check():
            return
        await asyncio.sleep(POLL_S)
    raise AssertionError(f"never happened: {what}")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def http_server() -> Iterator[str]:
    """The fixture server over streamable HTTP on 127.0.0.1; yields its URL."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, *FIXTURE_ARGS, "--http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(int(HTTP_START_LIMIT_S / POLL_S)):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=POLL_S).close()
                break
            except OSError:
                assert process.poll() is None, "the HTTP fixture server exited"
                time.sleep(POLL_S)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=30)


async def test_a_streamable_http_server_gets_headers_from_the_environment(
    tmp_path: Path, http_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CAIRN_TEST_TOKEN", "secret-123")
    server = {"url": http_server, "headers": {"X-Cairn-Test": "Bearer ${CAIRN_TEST_TOKEN}"}}
    hub = hub_for(tmp_path, {"web": server})
    try:
        catalog = await hub.catalog()
        [status] = catalog.servers
        assert (status.state, status.transport, status.target) == ("ready", "http", http_server)
        header = next(s for s in catalog.tools if s.tool == "header")
        result = await catalog.call_tool(header, {"name": "X-Cairn-Test"})
        assert text_of(result) == "Bearer secret-123"
    finally:
        await hub.aclose()


async def test_a_server_that_exits_while_idle_is_restarted_without_a_call(tmp_path: Path) -> None:
    starts = tmp_path / "starts.txt"
    hub = hub_for(tmp_path, {"fx": fixture_server("--starts", str(starts))})
    try:
        catalog = await hub.catalog()
        by_tool = {s.tool: s for s in catalog.tools}
        await catalog.call_tool(by_tool["exit_later"], {})
        # Its exit is seen from its stderr pipe: it is started again before anything calls it.
        await eventually(lambda: _now(len(pids(starts)) == 2), "a second process starts")
        assert not alive(pids(starts)[0])
        result = await catalog.call_tool(by_tool["echo"], {"text": "back"})
        assert text_of(result) == "back"
        assert len(pids(starts)) == 2
    finally:
        await hub.aclose()


async def test_a_server_that_keeps_failing_is_given_up_with_its_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(mcp_state, "RESTART_BASE_S", 0.01)
    starts = tmp_path / "starts.txt"
    hub = hub_for(tmp_path, {"dies": fixture_server("--exit-at-start", "--starts", str(starts))})
    try:
        [status] = (await hub.catalog()).servers
        assert status.state == "restarting" and "cannot open its database" in (status.reason or "")
        await eventually(lambda: _now(hub.snapshot().servers[0].state == "failed"), "given up")
        status = hub.snapshot().servers[0]
        assert status.reason == (
            "exited with status 7 while starting (stderr: fixture: cannot open its database)"
            f" (gave up after {mcp_state.MAX_RESTARTS} restarts)"
        )
        assert (status.exit, status.restarts) == ("exited with status 7", mcp_state.MAX_RESTARTS)
        assert len(pids(starts)) == mcp_state.MAX_RESTARTS + 1
        with pytest.raises(McpCallError, match="is failed"):
            await hub.call_tool(None, "dies", "echo", {"text": "x"})
    finally:
        await hub.aclose()


async def test_a_settings_change_restarts_only_the_changed_server(tmp_path: Path) -> None:
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    servers = {"a": fixture_server("--starts", str(a)), "b": fixture_server("--starts", str(b))}
    config = SettingsRef(Settings.model_validate({"mcp": {"servers": servers}}))
    hub = McpHub(config, tmp_path)
    try:
        before = await hub.catalog()
        changed = {**servers, "b": fixture_server("--starts", str(b), "--generated", "1")}
        config.current = Settings.model_validate({"mcp": {"servers": changed}})
        after = await hub.catalog()
        assert len(pids(a)) == 1 and len(pids(b)) == 2
        tools = {s.name: {t.tool for t in s.tools} for s in after.servers}
        assert "gen_tool_00" in tools["b"] and "gen_tool_00" not in tools["a"]
        assert len(before.tools) + 1 == len(after.tools)
        config.current = Settings.model_validate({"mcp": {"servers": {"b": changed["b"]}}})
        assert [s.name for s in (await hub.catalog()).servers] == ["b"]
        await eventually(lambda: _now(not alive(pids(a)[0])), "the removed server stops")
    finally:
        await hub.aclose()


async def test_closing_the_hub_ends_every_server_process(tmp_path: Path) -> None:
    starts = tmp_path / "starts.txt"
    servers = {"one": fixture_server("--starts", str(starts))}
    hub = hub_for(tmp_path, servers)
    two = McpServerSettings.model_validate(fixture_server("--starts", str(starts)))
    hub.set_session_servers("s1", {"two": two})
    catalog = await hub.catalog("s1")
    assert [s.state for s in catalog.servers] == ["ready", "ready"]
    assert all(alive(pid) for pid in pids(starts))
    await hub.aclose()
    assert not any(alive(pid) for pid in pids(starts))


async def test_a_disabled_server_is_listed_but_never_started(tmp_path: Path) -> None:
    starts = tmp_path / "starts.txt"
    hub = hub_for(tmp_path, {"off": fixture_server("--starts", str(starts), enabled=False)})
    try:
        [status] = (await hub.catalog()).servers
        assert status.state == "disabled" and not status.tools
        assert (await hub.catalog()).unavailable == []  # not a problem to report per call
        assert not starts.exists()
    finally:
        await hub.aclose()


async def test_a_changed_tool_list_is_listed_again_for_the_next_turn(tmp_path: Path) -> None:
    hub = hub_for(tmp_path, {"fx": fixture_server()})
    try:
        catalog = await hub.catalog()
        grow = next(s for s in catalog.tools if s.tool == "grow")
        assert "grown" not in {s.tool for s in catalog.tools}
        await catalog.call_tool(grow, {})

        async def listed() -> bool:
            return "grown" in {s.tool for s in (await hub.catalog()).tools}

        await eventually(listed, "the new tool is listed")
        assert "mcp__fx__grown" in {s.name for s in hub.snapshot().tools}
    finally:
        await hub.aclose()


async def test_a_server_that_will_not_stop_is_killed_and_named_when_time_is_up(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    starts = tmp_path / "starts.txt"
    hub = hub_for(tmp_path, {"stuck": fixture_server("--starts", str(starts), "--hang-at-exit")})
    assert [s.state for s in (await hub.catalog()).servers] == ["ready"]
    [pid] = pids(starts)
    assert alive(pid)
    # Shorter than the SDK's grace before its own SIGTERM: only Cairn's kill can end it.
    await hub.aclose(timeout=HUNG_STOP_TIMEOUT_S)
    assert not alive(pid)
    told = [r.getMessage() for r in caplog.records if "did not stop" in r.getMessage()]
    assert told == [
        f"mcp stuck did not stop within {HUNG_STOP_TIMEOUT_S:g} s: killed process {pid}"
    ]


async def test_the_user_restarts_disables_and_enables_a_server(tmp_path: Path) -> None:
    starts = tmp_path / "starts.txt"
    hub = hub_for(tmp_path, {"fx": fixture_server("--starts", str(starts))})
    try:
        assert [s.state for s in (await hub.catalog()).servers] == ["ready"]
        await hub.control("fx", "restart")
        assert hub.snapshot().servers[0].state == "ready" and len(pids(starts)) == 2
        await eventually(lambda: _now(not alive(pids(starts)[0])), "the first process ends")
        await hub.control("fx", "disable")
        [status] = (await hub.catalog()).servers
        assert (status.state, status.reason) == ("disabled", mcp_state.DISABLED_HERE)
        await eventually(lambda: _now(not alive(pids(starts)[1])), "the disabled one ends")
        await hub.control("fx", "enable")
        assert hub.snapshot().servers[0].state == "ready" and len(pids(starts)) == 3
        with pytest.raises(InvalidRequestError, match="no MCP server named 'nope'"):
            await hub.control("nope", "restart")
    finally:
        await hub.aclose()
