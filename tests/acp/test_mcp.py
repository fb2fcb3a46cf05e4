"""`cairn acp` with the MCP servers a client passes in session/new: a real fixture server."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from tests.acp.raw_client import RawAcpClient
from tests.fakes.mcp_fixture import FIXTURE_ARGS
from tests.lsp.harness import write_workspace
from tests.unit.test_mcp_servers import alive, eventually, pids

ECHO = {"toolCalls": [{"name": "mcp__fixture__echo", "arguments": {"text": "via acp"}}]}
WRITE = {"toolCalls": [{"name": "mcp__fixture__write_note", "arguments": {"title": "t"}}]}
ALLOW_ALWAYS = {"outcome": {"outcome": "selected", "optionId": "allow-always"}}
# A port nothing listens on (connections are refused at once).
CLOSED_PORT_URL = "http://127.0.0.1:9/mcp"


def tool_refs(manifest: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {b["ref"]: b for b in manifest["blocks"] if b["source"] == "tools"}


def agent_text(client: RawAcpClient, session: str, mark: int) -> str:
    return "".join(
        u["content"]["text"]
        for u in client.updates(session, mark)
        if u["sessionUpdate"] == "agent_message_chunk"
    )


async def test_a_clients_mcp_servers_serve_its_session_and_stop_with_it(tmp_path: Path) -> None:
    root = write_workspace(
        tmp_path / "ws", script=[ECHO, {"text": "Echoed."}, WRITE, {"text": "Wrote."}]
    )
    starts = tmp_path / "starts.txt"
    client = await RawAcpClient.start(root)
    answer = await client.initialize()
    assert answer["agentCapabilities"]["mcpCapabilities"] == {"http": True, "sse": False}
    servers = [
        {
            "name": "fixture",
            "command": sys.executable,
            "args": [*FIXTURE_ARGS, "--starts", str(starts)],
            "env": [],
        },
        {"type": "sse", "name": "legacy", "url": "http://127.0.0.1:9/sse", "headers": []},
        {"type": "http", "name": "my docs", "url": CLOSED_PORT_URL, "headers": []},
    ]
    mark = client.mark()
    new = await client.call("session/new", {"cwd": str(root), "mcpServers": servers})
    session = new["sessionId"]
    await client.wait(lambda m: "usage_update" in str(m), mark)
    told = agent_text(client, session, mark)
    assert "Cairn MCP: MCP server 'legacy' is left out" in told
    assert "'my docs' is named 'my_docs'" in told

    # Every call asks, read-only by the server's hint or not: a hint loosens nothing.
    client.handlers["session/request_permission"] = lambda params: ALLOW_ALWAYS
    mark = client.mark()
    prompt = {"sessionId": session, "prompt": [{"type": "text", "text": "echo it"}]}
    assert (await client.call("session/prompt", prompt))["stopReason"] == "end_turn"
    [asked] = [r["params"] for r in client.requests if r["method"] == "session/request_permission"]
    assert asked["toolCall"]["title"].startswith("Call MCP tool fixture/echo {")
    assert "(the server's hints: read-only, open-world)" in asked["toolCall"]["title"]
    [done] = [
        u
        for u in client.updates(session, mark)
        if u["sessionUpdate"] == "tool_call_update" and u.get("status") == "completed"
    ]
    assert done["rawOutput"]["mcp_tool"] == "mcp:fixture/echo"
    assert "via acp" in str(done["content"])
    refs = tool_refs(await client.call("_cairn/contextManifest", {"sessionId": session}))
    assert refs["mcp:fixture/echo"]["included"]
    assert not refs["mcp:my_docs"]["included"] and refs["mcp:my_docs"]["reason"]
    assert not any(ref.startswith("mcp:legacy") for ref in refs)

    # A tool not marked read-only asks through session/request_permission, as an MCP call.
    mark = client.mark()
    prompt = {"sessionId": session, "prompt": [{"type": "text", "text": "write it"}]}
    assert (await client.call("session/prompt", prompt))["stopReason"] == "end_turn"
    asked = [r["params"] for r in client.requests if r["method"] == "session/request_permission"][1]
    assert asked["toolCall"]["title"].startswith("Call MCP tool fixture/write_note {")
    assert "(the server's hints: destructive, open-world)" in asked["toolCall"]["title"]
    assert asked["toolCall"]["kind"] == "other"
    assert "Always allow `mcp:fixture/write_note`" in [o["name"] for o in asked["options"]]
    wrote = [u for u in client.updates(session, mark) if u.get("status") == "completed"]
    assert [u["rawOutput"]["mcp_tool"] for u in wrote] == ["mcp:fixture/write_note"]

    other = await client.call("session/new", {"cwd": str(root), "mcpServers": []})
    others = tool_refs(
        await client.call("_cairn/contextManifest", {"sessionId": other["sessionId"]})
    )
    assert not any(ref.startswith("mcp:") for ref in others)

    [pid] = pids(starts)
    assert alive(pid)
    await client.call("session/close", {"sessionId": session})

    async def stopped() -> bool:
        return not alive(pid)

    await eventually(stopped, "the closed session's MCP server stops")
    await client.close()
