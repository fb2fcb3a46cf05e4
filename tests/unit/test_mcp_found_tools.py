"""Tools `tool_search` found, across turns: kept while the cache is warm, dropped when it is cold
and they were never called (a recorded reason), and not brought back by a later warm turn."""

from __future__ import annotations

from pathlib import Path

from cairn.context.tool_schemas import DROPPED_REASON, FOUND_REASON
from tests.fakes.mcp_fixture import fixture_server
from tests.unit.test_agent_support import call, reply
from tests.unit.test_mcp_turns import engine_for, tool_lines

HOUR_S = 3600.0
# A cache lifetime every pause between two turns outlasts: the next turn's cache is cold.
INSTANT_S = 0.001


async def test_a_cold_cache_drops_found_tools_that_were_never_called(tmp_path: Path) -> None:
    script = [
        reply("", call("tool_search", query="select:mcp__gen__gen_tool_11,mcp__gen__gen_tool_12")),
        reply("", call("mcp__gen__gen_tool_11", query="unpaid")),
        reply("Found the invoices."),
        reply("Still here, after a pause."),
        reply("And once more."),
    ]
    servers = {"gen": fixture_server("--generated", "60", allowed_tools=["*"])}
    engine = engine_for(tmp_path, script, servers, context_window=64_000, cache_lifetime_s=HOUR_S)
    try:
        first = await engine.turn("find unpaid invoices")
        engine.update_settings(engine.settings.model_copy(update={"cache_lifetime_s": INSTANT_S}))
        await engine.turn("anything else?", session_id=first.session_id)
        engine.update_settings(engine.settings.model_copy(update={"cache_lifetime_s": HOUR_S}))
        await engine.turn("and now?", session_id=first.session_id)
        manifests = engine.session(first.session_id).trace.manifests()
        assert len(manifests) == 5
        ended = {b.ref: b for b in tool_lines(manifests[2])}
        assert ended["mcp:gen/gen_tool_11"].included and ended["mcp:gen/gen_tool_12"].included

        cold = {b.ref: b for b in tool_lines(manifests[3])}
        called, unused = cold["mcp:gen/gen_tool_11"], cold["mcp:gen/gen_tool_12"]
        assert called.included and called.reason == FOUND_REASON
        assert not unused.included
        assert (unused.reason or "").startswith(f"{DROPPED_REASON} (cold cache (idle ")
        dropped = "tools: dropped mcp:gen/gen_tool_12 (found by tool_search, never called)"
        assert dropped in (manifests[3].cache_break or "")
        assert "cold cache (idle" in (manifests[3].cache_break or "")

        # A warm turn later offers what the last call sent: the dropped tool stays out.
        warm = {b.ref: b for b in tool_lines(manifests[4])}
        assert warm["mcp:gen/gen_tool_11"].included and not warm["mcp:gen/gen_tool_12"].included
        assert manifests[4].cache_break is None
    finally:
        await engine.aclose()
