"""`cairn mcp list` and `cairn context` with MCP servers, run as a user runs them (subprocesses).

The workspaces are trusted by the user (`grant`): an untrusted one starts none
(tests/unit/test_workspace_trust.py).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cairn.agent.engine import Engine
from cairn.files.trust import grant, workspace_settings
from tests.fakes.mcp_fixture import FIXTURE_ARGS

TIMEOUT_S = 240


def cairn(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cairn", *args, "--workspace", str(root)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "cairn.toml").write_text(
        f"""
# The scripted model chosen explicitly (there is no default model; no call is made).
model = "scripted/script.jsonl"

[mcp.servers.fixture]
command = {json.dumps(sys.executable)}
args = {json.dumps(list(FIXTURE_ARGS))}

[mcp.servers.broken]
command = "no-such-mcp-server-command"

[mcp.servers.silent]
command = "sleep"
args = ["600"]
startup_timeout_s = 1
"""
    )
    grant(tmp_path)  # the user trusts it: its cairn.toml may start these servers
    return tmp_path


def test_mcp_list_shows_servers_states_tools_and_schema_tokens(workspace: Path) -> None:
    done = cairn(workspace, "mcp", "list", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    servers = {s["name"]: s for s in data["servers"]}
    assert servers["broken"]["state"] == "failed"
    assert "cannot start 'no-such-mcp-server-command'" in servers["broken"]["reason"]
    silent = servers["silent"]
    assert (silent["state"], silent["reason"]) == (
        "failed",
        "no answer within 1 s (startup_timeout_s)",
    )
    fixture = servers["fixture"]
    assert fixture["protocol"] == "2026-07-28" and fixture["restarts"] == 0
    assert fixture["state"] == "ready" and fixture["transport"] == "stdio"
    tools = {t["tool"]: t for t in fixture["tools"]}
    assert tools["echo"]["readOnly"] and not tools["write_note"]["readOnly"]
    assert not tools["echo"]["allowed"] and tools["write_note"]["destructive"]
    assert all(t["tokens"] > 0 for t in tools.values())
    assert fixture["schemaTokens"] == sum(t["tokens"] for t in tools.values())
    assert data["schemaTokens"] == fixture["schemaTokens"] and data["deferred"] is False

    table = cairn(workspace, "mcp", "list")
    assert table.returncode == 0, table.stderr
    lines = table.stdout.splitlines()
    assert lines[0].split() == ["SERVER", "TRANSPORT", "STATE", "TOOLS", "TOKENS", "TARGET"]
    assert any(line.split()[:3] == ["fixture", "stdio", "ready"] for line in lines)
    assert any("mcp__fixture__write_note" in line and "asks first" in line for line in lines)
    [echo] = [line for line in lines if "mcp__fixture__echo" in line]
    assert echo.endswith("asks first  read-only, open-world")
    assert "  silent: no answer within 1 s (startup_timeout_s)" in lines
    assert "  fixture: MCP 2026-07-28" in lines
    assert "did not stop" not in table.stderr
    assert lines[-1].startswith(f"MCP tool schemas: {data['schemaTokens']} tokens")


def test_mcp_list_without_servers_says_how_to_add_one(tmp_path: Path) -> None:
    done = cairn(tmp_path, "mcp", "list")
    assert done.returncode == 1
    assert "no MCP servers configured: add [mcp.servers.NAME] to cairn.toml" in done.stderr


def test_mcp_list_without_a_model_counts_with_the_default_tokenizer(tmp_path: Path) -> None:
    (tmp_path / "cairn.toml").write_text('[mcp.servers.broken]\ncommand = "no-such-mcp-command"\n')
    grant(tmp_path)
    done = cairn(tmp_path, "mcp", "list")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert any(line.split()[:3] == ["broken", "stdio", "failed"] for line in lines)
    assert lines[-1].startswith("MCP tool schemas: 0 tokens (o200k_base; no model set")


def test_a_dry_run_starts_no_server_and_says_their_tools_are_unknown(workspace: Path) -> None:
    done = cairn(workspace, "context", "--message", "hi", "--json")
    assert done.returncode == 0, done.stderr
    blocks = {b["ref"]: b for b in json.loads(done.stdout)["blocks"] if b["source"] == "tools"}
    assert not any(ref.startswith("mcp:fixture/") for ref in blocks)
    for name in ("fixture", "broken"):
        block = blocks[f"mcp:{name}"]
        assert not block["included"]
        assert block["reason"] == "server not started: in a dry run, so its tools are unknown"
    # Still a dry run: nothing but the repository map's cache is written under .cairn/.
    written = [p for p in (workspace / ".cairn").rglob("*") if p.is_file()]
    kept = {".gitignore"}
    assert [p for p in written if p.name not in kept and "repomap" not in p.parts] == []


def test_importing_the_engine_does_not_import_the_mcp_sdk(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from cairn.agent.engine import Engine\n"
        "from cairn.settings import Settings\n"
        "engine = Engine([Path.cwd()], Settings(model='scripted/script.jsonl'))\n"
        "engine.context_stats()\n"
        "engine.close()\n"
        "sys.exit(3 if 'mcp' in sys.modules or 'mcp_types' in sys.modules else 0)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, timeout=TIMEOUT_S
    )
    assert done.returncode == 0, done.stderr.decode()


def _without_pids(report: dict[str, Any]) -> dict[str, Any]:
    """The report less what differs between two starts of the same servers: their pids."""
    return {**report, "servers": [{**s, "pid": None} for s in report["servers"]]}


async def test_mcp_list_and_the_editors_report_state_the_same_facts(workspace: Path) -> None:
    listed = cairn(workspace, "mcp", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    data = json.loads(listed.stdout)
    assert data.pop("notes") == []
    engine = Engine([workspace], workspace_settings(workspace))
    try:
        await engine.mcp_servers()  # what the editor's `cairn/mcpServers {start: true}` does
        report = engine.mcp_report().wire()
    finally:
        await engine.aclose()
    assert _without_pids(report) == _without_pids(data)

    # The text prints the report's own sentences: each server's facts, each tool's, the summary.
    lines = cairn(workspace, "mcp", "list").stdout.splitlines()
    servers = {s["name"]: s for s in report["servers"]}
    assert servers["silent"]["facts"] == ["no answer within 1 s (startup_timeout_s)"]
    assert servers["fixture"]["facts"] == ["MCP 2026-07-28"]
    for server in servers.values():
        if server["facts"]:
            assert f"  {server['name']}: {'; '.join(server['facts'])}" in lines
        for tool in server["tools"]:
            [row] = [line.split() for line in lines if line.split()[:1] == [tool["name"]]]
            assert row[2:] == " ".join([tool["facts"][0], ", ".join(tool["facts"][1:])]).split()
    assert lines[-1] == report["summary"] and report["summary"].startswith("MCP tool schemas: ")
