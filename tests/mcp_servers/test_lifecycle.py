"""MCP server lifecycles with third-party servers: a start that never answers, a banner on stdout,
SIGKILL between calls and during one; each told as it happens (status events, a terminal line).
"""

from __future__ import annotations

import asyncio
import io
import logging
import os
import signal
from pathlib import Path
from typing import Any

import pytest

from cairn.agent.listener import SafeListener
from cairn.commands.run import TerminalListener
from cairn.mcp import McpCallError, McpHub, ServerStatus
from cairn.mcp.state import status_sentence
from tests.mcp_servers.conftest import behind_shell, time_server
from tests.unit.test_mcp_servers import alive, eventually, hub_for, pids, text_of

KILLED = "was killed by signal 9 (SIGKILL)"
# A long call of server-everything (seconds): it is killed long before it ends.
LONG_CALL_S = 60
# How long the test lets a long call run before killing the server (the call fails either way).
CALL_RUNNING_S = 1.0


def stderr_lines_about_it(records: list[logging.LogRecord]) -> list[str]:
    """Log records a banner must not cause: a traceback, the SDK's parse failure."""
    return [
        r.getMessage()
        for r in records
        if r.exc_info or r.name.startswith("mcp.") or "JSONRPC" in r.getMessage()
    ]


def never_answers(starts: Path, **options: Any) -> dict[str, Any]:
    """A real server behind a wrapper that hangs before starting it (writes its pid first)."""
    return behind_shell(time_server(), f"echo $$ >> '{starts}'; sleep 600", **options)


def watched(root: Path, servers: dict[str, Any]) -> tuple[McpHub, list[ServerStatus]]:
    events: list[ServerStatus] = []
    hub = hub_for(root, servers)
    hub.on_status = events.append
    return hub, events


async def _now(value: bool) -> bool:
    return value


async def test_a_server_that_never_answers_fails_with_its_reason_at_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    starts = tmp_path / "starts.txt"
    hub, events = watched(tmp_path, {"slow": never_answers(starts, startup_timeout_s=1)})
    try:
        [status] = (await hub.catalog()).servers
        assert (status.state, status.reason) == (
            "failed",
            "no answer within 1 s (startup_timeout_s)",
        )
        # Failed, not retried: a server that did not answer in that time will not the next.
        assert [e.state for e in events] == ["starting", "failed"]
        assert status.restarts == 0 and status.exit is None  # Cairn's own kill is no crash
        [pid] = pids(starts)
        await eventually(lambda: _now(not alive(pid)), "the hung wrapper is gone")
    finally:
        await hub.aclose()
    assert not [r for r in caplog.records if "did not stop" in r.getMessage()]


async def test_stopping_a_server_still_starting_is_immediate_and_quiet(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    starts = tmp_path / "starts.txt"
    hub, events = watched(tmp_path, {"slow": never_answers(starts, startup_timeout_s=600)})
    starting = asyncio.ensure_future(hub.catalog())
    await eventually(lambda: _now(len(pids(starts)) == 1), "the wrapper runs")
    await hub.aclose()
    [status] = (await starting).servers
    assert status.state == "stopped"
    assert not alive(pids(starts)[0])
    assert [e.state for e in events] == ["starting", "stopped"]
    assert not [r for r in caplog.records if "did not stop" in r.getMessage()]


async def test_a_banner_on_stdout_is_one_counted_note_and_no_traceback(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    banner = "echo 'Starting the time server'; echo 'listening on stdio'"
    hub, events = watched(tmp_path, {"time": behind_shell(time_server(), banner)})
    try:
        catalog = await hub.catalog()
        [status] = catalog.servers
        note = (
            "server time printed 2 non-protocol lines on stdout (first: 'Starting the time server')"
        )
        assert status.state == "ready" and status.notes == (note,)
        [ready] = [e for e in events if e.state == "ready"]
        assert (status_sentence(ready) or "").endswith(f"; {note}")
        now = next(s for s in catalog.tools if s.tool == "get_current_time")
        result = await catalog.call_tool(now, {"timezone": "UTC"})
        assert '"timezone": "UTC"' in text_of(result)
        assert stderr_lines_about_it(caplog.records) == []
    finally:
        await hub.aclose()


async def test_a_server_killed_between_calls_is_told_and_restarted(tmp_path: Path) -> None:
    hub, events = watched(tmp_path, {"time": time_server()})
    terminal = io.StringIO()
    told = SafeListener(TerminalListener(io.StringIO(), terminal))
    hub.on_status = lambda status: (events.append(status), told.on_mcp_status(status))[0]
    try:
        [status] = (await hub.catalog()).servers
        assert status.state == "ready" and status.pid is not None
        os.kill(status.pid, signal.SIGKILL)

        async def restarted() -> bool:
            [now] = hub.snapshot().servers
            return now.state == "ready" and now.restarts == 1

        await eventually(restarted, "restarted")
        crashed = next(e for e in events if e.state == "restarting")
        assert crashed.exit == KILLED and crashed.restarts == 1
        assert (crashed.reason or "").startswith(f"{KILLED}; restarting in 0.5 s (restart 1 of")
        again = hub.snapshot().servers[0]
        assert again.restarts == 1 and again.pid not in (None, status.pid)
        result = await hub.call_tool(None, "time", "get_current_time", {"timezone": "UTC"})
        assert '"timezone": "UTC"' in text_of(result)
        assert f"MCP server time restarting: {KILLED}; restarting in" in terminal.getvalue()
    finally:
        await hub.aclose()


async def test_a_call_the_server_dies_in_names_the_signal_not_its_banner(
    tmp_path: Path, everything: dict[str, Any]
) -> None:
    hub, events = watched(tmp_path, {"every": everything})
    try:
        [status] = (await hub.catalog()).servers
        assert status.state == "ready" and status.pid is not None
        assert status.stderr  # it says it is starting on stderr: not the call's error
        arguments = {"duration": LONG_CALL_S, "steps": LONG_CALL_S}
        call = asyncio.ensure_future(
            hub.call_tool(None, "every", "trigger-long-running-operation", arguments)
        )
        await asyncio.sleep(CALL_RUNNING_S)
        os.kill(status.pid, signal.SIGKILL)
        with pytest.raises(McpCallError) as failed:
            await call
        message = str(failed.value)
        assert f"the MCP server every {KILLED} during the call;" in message
        assert "call the tool again" in message
        assert not any(line in message for line in status.stderr)
        result = await hub.call_tool(None, "every", "echo", {"message": "back"})
        assert text_of(result) == "Echo: back"
        assert [e.state for e in events].count("restarting") == 1
        assert hub.snapshot().servers[0].restarts == 1
    finally:
        await hub.aclose()
