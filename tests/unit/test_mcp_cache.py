"""MCP tools and the prompt cache, on the wire: the tools zone of a turn is the same bytes on
every call, and a server added or removed between turns is a recorded cache break.

A real turn through litellm's `openai/` provider and the local OpenAI-compatible
server (every request recorded as it arrived), with the fixture MCP server
(`tests/fakes/mcp_server.py`) over stdio.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cairn.agent.engine import Engine
from cairn.context.tool_schemas import tools_change
from cairn.models.manifest import ContextBlock
from cairn.settings import McpServerSettings, Settings
from tests.fakes.mcp_fixture import fixture_server
from tests.fakes.openai_server import OpenAIServer, RecordedRequest, Reply

MODEL = "openai/fixture-model"


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[OpenAIServer]:
    with OpenAIServer() as running:
        monkeypatch.setenv("OPENAI_API_BASE", running.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        yield running


def engine_on(root: Path, servers: dict[str, Any]) -> Engine:
    options: dict[str, Any] = {
        "model": MODEL,
        "context_window": 60_000,
        "max_output_tokens": 1_000,
        "allowed_commands": [],
        "mcp": {"servers": servers},
    }
    return Engine([root], Settings.model_validate(options))


def tools_bytes(request: RecordedRequest) -> str:
    """The request's tools array as sent (key order kept)."""
    return json.dumps(request.body.get("tools") or [], ensure_ascii=False)


def tool_names(request: RecordedRequest) -> list[str]:
    return [t["function"]["name"] for t in request.body.get("tools") or []]


def echo_twice() -> list[Reply]:
    """One turn's replies: two MCP tool calls, then an answer (three calls)."""
    echo = [
        Reply(tool_calls=[{"name": "mcp__fx__echo", "arguments": {"text": f"ping {i}"}}])
        for i in range(2)
    ]
    return [*echo, Reply(text="Done.")]


def scripted(server: OpenAIServer, replies: list[Reply]) -> None:
    """Answer the server's requests with `replies`, in order."""

    def responder(request: RecordedRequest) -> Reply:
        return replies.pop(0) if replies else Reply(text="Finished.")

    server.responder = responder


def test_the_tools_zone_is_the_same_bytes_on_every_call_of_a_turn(
    tmp_path: Path, server: OpenAIServer
) -> None:
    scripted(server, echo_twice())
    engine = engine_on(tmp_path, {"fx": fixture_server()})

    async def run() -> None:
        try:
            result = await engine.turn("echo twice")
            assert result.finish_reason == "stop", result.error
            calls = server.requests
            assert len(calls) == 3
            assert "mcp__fx__echo" in tool_names(calls[0])
            assert tools_bytes(calls[0]) == tools_bytes(calls[1]) == tools_bytes(calls[2])
            manifests = engine.session(result.session_id).trace.manifests()
            hashes = {m.cache.zone_hashes["tools"] for m in manifests}
            assert len(manifests) == 3 and len(hashes) == 1
            assert [m.cache_break for m in manifests] == [None, None, None]
        finally:
            await engine.aclose()

    asyncio.run(run())


def test_a_server_added_or_removed_between_turns_is_a_recorded_break(
    tmp_path: Path, server: OpenAIServer
) -> None:
    scripted(server, [*echo_twice(), *echo_twice(), Reply(text="Done.")])
    engine = engine_on(tmp_path, {"fx": fixture_server()})

    async def run() -> None:
        try:
            first = await engine.turn("echo twice")
            session = first.session_id
            count = len(server.requests)
            engine.set_mcp_servers(
                session, {"two": McpServerSettings.model_validate(fixture_server())}
            )
            second = await engine.turn("and again", session_id=session)
            assert second.finish_reason == "stop", second.error
            added = server.requests[count:]
            assert "mcp__two__echo" in tool_names(added[0])
            assert tools_bytes(added[0]) == tools_bytes(added[-1])
            [status] = [s for s in await engine.mcp_servers(session) if s.name == "two"]
            manifests = engine.session(session).trace.manifests()
            opening = manifests[3]
            assert opening.cache_break == f"tools: mcp:two added ({len(status.tools)} tools)"
            assert [m.cache_break for m in manifests[4:]] == [None, None]

            engine.set_mcp_servers(session, {})
            await engine.turn("once more", session_id=session)
            later = engine.session(session).trace.manifests()[6]
            assert later.cache_break == f"tools: mcp:two removed ({len(status.tools)} tools)"
        finally:
            await engine.aclose()

    asyncio.run(run())


def block(ref: str, version: str = "v1", reason: str | None = None) -> ContextBlock:
    return ContextBlock(
        source="tools", priority=0, text="", tokens=1, version=version, ref=ref, reason=reason
    )


def test_a_tools_change_names_what_changed() -> None:
    old = [("read_file", "v1"), ("mcp:a/x", "v1"), ("mcp:a/y", "v1")]
    same = [block("read_file"), block("mcp:a/x"), block("mcp:a/y")]
    assert tools_change(old, same) is None
    assert tools_change(None, same) is None
    changed = [block("read_file"), block("mcp:a/x", "v2"), block("mcp:b/z")]
    assert tools_change(old, changed) == "tools: mcp:a: 1 removed, 1 changed; mcp:b added (1 tool)"
    found = [*same, block("mcp:a/w", reason="found by tool_search")]
    assert tools_change(old, found) == "tools: tool_search found mcp:a/w"
    assert tools_change(old, list(reversed(same))) == "tools: order changed"
    assert tools_change(old, [block("read_file")]) == "tools: mcp:a removed (2 tools)"
