"""MCP tools in real turns: the fixture server over stdio, the scripted model, the manifest."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from cairn.agent.api import Approval, ApprovalRequest
from cairn.agent.engine import Engine
from cairn.agent.scope.inputs import TurnInputs
from cairn.context.tool_schemas import schema_text
from cairn.models.manifest import Manifest, ManifestBlock
from cairn.models.messages import CompactionPart, ToolResultPart
from cairn.settings import McpServerSettings, Settings
from cairn.tokens.counter import count_tokens
from tests.fakes.mcp_fixture import fixture_server
from tests.unit.test_agent_support import Recorder, call, reply, write_script

BUILTIN_REFS = [
    "read_file",
    "list_dir",
    "glob",
    "grep",
    "find_code",
    "diagnostics",
    "edit_file",
    "run_command",
    "goal",
    "explore",
]


def engine_for(
    root: Path,
    lines: list[dict[str, Any]],
    servers: dict[str, Any],
    approve: bool | None = None,
    recorder: Recorder | None = None,
    **settings: Any,
) -> Engine:
    """An engine on `root` with the scripted `lines` and these MCP servers."""
    model = write_script(root, lines)
    options = {"model": model, "allowed_commands": [], "mcp": {"servers": servers}, **settings}

    async def approver(request: ApprovalRequest) -> Approval:
        return "once" if approve else "reject"

    return Engine(
        [root],
        Settings.model_validate(options),
        approver=None if approve is None else approver,
        listener=recorder,
    )


def main_model(engine: Engine) -> str:
    model = engine.settings.model
    assert model is not None
    return model


def tool_lines(manifest: Manifest) -> list[ManifestBlock]:
    return [b for b in manifest.blocks if b.source == "tools"]


def results(engine: Engine, session_id: str) -> list[ToolResultPart]:
    messages = engine.store.open(session_id).messages()
    return [p for m in messages for p in m.parts if isinstance(p, ToolResultPart)]


async def test_the_servers_tools_are_offered_with_counted_schemas(tmp_path: Path) -> None:
    engine = engine_for(tmp_path, [reply("Hello.")], {"fx": fixture_server()})
    try:
        result = await engine.turn("hi")
        assert result.finish_reason == "stop"
        manifest = engine.session(result.session_id).trace.manifests()[-1]
        [status] = await engine.mcp_servers(result.session_id)
        specs = {s.ref: s for s in status.tools}
        lines = {b.ref: b for b in tool_lines(manifest)}
        assert set(specs) == {
            "mcp:fx/big_output",
            "mcp:fx/crash",
            "mcp:fx/echo",
            "mcp:fx/exit_later",
            "mcp:fx/find_note",
            "mcp:fx/grow",
            "mcp:fx/header",
            "mcp:fx/picture",
            "mcp:fx/write_note",
        }
        for ref, spec in specs.items():
            assert lines[ref].included
            assert lines[ref].tokens == count_tokens(schema_text(spec.schema()), main_model(engine))
        assert "tool_search" not in lines  # a few tools are offered directly
        stats = await engine.context_stats(result.session_id)
        assert stats.tool_schema_tokens == sum(b.tokens for b in lines.values() if b.included)
        assert stats.by_source["tools"] == stats.tool_schema_tokens
    finally:
        await engine.aclose()


async def test_a_tool_call_round_trip_with_the_scripted_model(tmp_path: Path) -> None:
    script = [
        reply("Echoing.", call("mcp__fx__echo", text="hello from the model")),
        reply("The server said it back."),
    ]
    engine = engine_for(tmp_path, script, {"fx": fixture_server(allowed_tools=["*"])})
    try:
        result = await engine.turn("say hello")
        assert result.finish_reason == "stop"
        assert result.text == "The server said it back."
        [part] = results(engine, result.session_id)
        assert part.ok and part.name == "mcp__fx__echo"
        assert part.output == "hello from the model"
        assert part.data == {"mcp_tool": "mcp:fx/echo"}
    finally:
        await engine.aclose()


async def test_a_large_result_becomes_an_artifact_with_an_excerpt(tmp_path: Path) -> None:
    lines = 3_000
    script = [reply("", call("mcp__fx__big_output", lines=lines)), reply("Done.")]
    engine = engine_for(tmp_path, script, {"fx": fixture_server(allowed_tools=["*"])})
    try:
        result = await engine.turn("print a lot")
        [part] = results(engine, result.session_id)
        assert part.ok and part.artifact_id is not None
        assert part.output.startswith("line 00001 of the big output")
        assert part.output.rstrip().endswith(f"line {lines:05d} of the big output")
        assert f"artifact:{part.artifact_id}" in part.output  # how to read the rest
        assert "characters omitted" in part.output
        full = engine.session(result.session_id).trace.read_artifact(part.artifact_id).decode()
        assert full.count("\n") == lines - 1 and len(full) > len(part.output)
    finally:
        await engine.aclose()


async def test_a_server_that_crashes_mid_call_gives_a_tool_error_and_restarts(
    tmp_path: Path,
) -> None:
    starts = tmp_path / "starts.txt"
    script = [
        reply("", call("mcp__fx__crash")),
        reply("", call("mcp__fx__echo", text="still there?")),
        reply("Recovered."),
    ]
    server = fixture_server("--starts", str(starts), allowed_tools=["crash", "echo"])
    engine = engine_for(tmp_path, script, {"fx": server})
    try:
        result = await engine.turn("crash it")
        assert result.finish_reason == "stop" and result.text == "Recovered."
        crashed, echoed = results(engine, result.session_id)
        assert not crashed.ok
        # Its exit status, and what it wrote on stderr since it was ready.
        assert "fx exited with status 3 during the call" in crashed.output
        assert "(stderr: crashing on purpose)" in crashed.output
        assert echoed.ok and echoed.output == "still there?"
        assert len(starts.read_text().splitlines()) == 2  # restarted once
    finally:
        await engine.aclose()


async def test_sixty_tools_are_deferred_and_tool_search_loads_one(tmp_path: Path) -> None:
    script = [
        reply("", call("tool_search", query="invoice records shard 11")),
        reply("", call("mcp__gen__gen_tool_11", query="unpaid")),
        reply("Found the invoices."),
    ]
    servers = {"gen": fixture_server("--generated", "60", allowed_tools=["*"])}
    engine = engine_for(tmp_path, script, servers, context_window=64_000)
    try:
        result = await engine.turn("find unpaid invoices")
        assert result.finish_reason == "stop"
        searched, called = results(engine, result.session_id)
        assert searched.ok and searched.data is not None
        assert searched.data["found"][0] == "mcp__gen__gen_tool_11"
        assert '"name": "mcp__gen__gen_tool_11"' in searched.output  # the full schema
        assert called.ok and called.output.startswith("gen_tool_11: unpaid")

        first, second, third = engine.session(result.session_id).trace.manifests()
        before = {b.ref: b for b in tool_lines(first)}
        assert before["tool_search"].included
        deferred = [b for b in before.values() if (b.ref or "").startswith("mcp:gen/")]
        [status] = await engine.mcp_servers(result.session_id)
        assert len(deferred) == len(status.tools) > 60
        assert not any(b.included for b in deferred)
        assert all((b.reason or "").startswith("deferred behind tool_search") for b in deferred)
        after = {b.ref: b for b in tool_lines(second)}
        assert after["mcp:gen/gen_tool_11"].included
        assert after["mcp:gen/gen_tool_11"].reason == "found by tool_search"
        assert not after["mcp:gen/gen_tool_12"].included
        # The reveal is the one change of the tools zone in the turn, and a recorded break.
        assert first.cache_break is None and third.cache_break is None
        revealed = ", ".join(sorted(f"mcp:gen/{n.split('__')[-1]}" for n in searched.data["found"]))
        assert second.cache_break == f"tools: tool_search found {revealed}"
        assert third.cache.zone_hashes["tools"] == second.cache.zone_hashes["tools"]
        assert second.cache.zone_hashes["tools"] != first.cache.zone_hashes["tools"]
    finally:
        await engine.aclose()


async def test_a_tool_found_in_one_turn_is_offered_in_the_next_without_a_search(
    tmp_path: Path,
) -> None:
    script = [
        reply("", call("tool_search", query="select:mcp__gen__gen_tool_11")),
        reply("", call("mcp__gen__gen_tool_11", query="unpaid")),
        reply("Found the invoices."),
        reply("", call("mcp__gen__gen_tool_11", query="paid")),
        reply("And the paid ones."),
    ]
    servers = {"gen": fixture_server("--generated", "60", allowed_tools=["*"])}
    engine = engine_for(tmp_path, script, servers, context_window=64_000)
    try:
        first = await engine.turn("find unpaid invoices")
        second = await engine.turn("and the paid ones?", session_id=first.session_id)
        assert second.finish_reason == "stop"
        called = results(engine, first.session_id)[-1]
        assert called.ok and called.output.startswith("gen_tool_11: paid")
        manifests = engine.session(first.session_id).trace.manifests()
        assert len(manifests) == 5
        opening = {b.ref: b for b in tool_lines(manifests[3])}
        assert opening["mcp:gen/gen_tool_11"].included
        assert opening["mcp:gen/gen_tool_11"].reason == "found by tool_search"
        assert not opening["mcp:gen/gen_tool_12"].included
        # The tools zone is the one the first turn ended with: no break at the new turn.
        hashes = [m.cache.zone_hashes["tools"] for m in manifests]
        assert hashes[1] == hashes[2] == hashes[3] == hashes[4] != hashes[0]
        assert not (manifests[3].cache_break or "").startswith("tools")
    finally:
        await engine.aclose()


async def test_plan_mode_refuses_a_write_tool_and_offers_read_only_ones(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    script = [
        reply("", call("mcp__fx__write_note", title="plan", body="x")),
        reply("", call("mcp__fx__echo", text="reading is fine")),
        reply("Planned."),
    ]
    server = fixture_server("--notes", str(notes))
    engine = engine_for(tmp_path, script, {"fx": server}, approve=True)
    try:
        result = await engine.turn("plan it", mode="plan")
        refused, echoed = results(engine, result.session_id)
        assert not refused.ok and "not marked read-only" in refused.output
        assert "plan mode offers read-only tools only" in refused.output
        assert echoed.ok
        assert not notes.exists()
        manifest = engine.session(result.session_id).trace.manifests()[0]
        lines = {b.ref: b for b in tool_lines(manifest)}
        assert lines["mcp:fx/echo"].included
        assert not lines["mcp:fx/write_note"].included
    finally:
        await engine.aclose()


@pytest.mark.parametrize(
    ("approve", "allowed", "written"),
    [(None, [], False), (False, [], False), (True, [], True), (None, ["write_note"], True)],
)
async def test_a_write_tool_needs_approval_unless_allowed(
    tmp_path: Path, approve: bool | None, allowed: list[str], written: bool
) -> None:
    notes = tmp_path / "notes.txt"
    script = [reply("", call("mcp__fx__write_note", title="t", body="b")), reply("Done.")]
    server = fixture_server("--notes", str(notes), allowed_tools=allowed)
    engine = engine_for(tmp_path, script, {"fx": server}, approve=approve)
    try:
        result = await engine.turn("write a note")
        [part] = results(engine, result.session_id)
        assert part.ok is written
        assert notes.exists() is written
        if not written:
            reason = "not allowed without approval" if approve is None else "not approved"
            assert reason in part.output
    finally:
        await engine.aclose()


async def test_the_schemas_order_is_identical_across_calls_and_turns(tmp_path: Path) -> None:
    script = [
        reply("", call("mcp__fx__echo", text="one")),
        reply("First."),
        reply("Second."),
    ]
    engine = engine_for(tmp_path, script, {"fx": fixture_server()})
    try:
        first = await engine.turn("one")
        await engine.turn("two", session_id=first.session_id)
        manifests = engine.session(first.session_id).trace.manifests()
        orders = [[(b.ref or "", b.version) for b in tool_lines(m)] for m in manifests]
        assert len(orders) == 3 and orders[0] == orders[1] == orders[2]
        refs = [ref for ref, _ in orders[0]]
        mcp_refs = [r for r in refs if r.startswith("mcp:")]
        assert refs[: len(BUILTIN_REFS)] == BUILTIN_REFS
        assert mcp_refs == sorted(mcp_refs)  # the server lists write_note first
    finally:
        await engine.aclose()


async def test_a_server_that_cannot_start_is_excluded_and_the_turn_runs(tmp_path: Path) -> None:
    servers = {
        "missing": {"command": "no-such-mcp-server-command"},
        "dies": fixture_server("--exit-at-start"),
        "fx": fixture_server(),
    }
    script = [reply("", call("mcp__fx__echo", text="ok")), reply("Worked anyway.")]
    recorder = Recorder()
    engine = engine_for(tmp_path, script, servers, recorder=recorder)
    try:
        result = await engine.turn("go")
        assert result.finish_reason == "stop" and result.text == "Worked anyway."
        manifest = engine.session(result.session_id).trace.manifests()[0]
        lines = {b.ref: b for b in tool_lines(manifest)}
        missing, dies = lines["mcp:missing"], lines["mcp:dies"]
        assert not missing.included and not dies.included
        assert "cannot start 'no-such-mcp-server-command'" in (missing.reason or "")
        assert "server failed" in (missing.reason or "")
        assert "cannot open its database" in (dies.reason or "")  # its stderr
        assert lines["mcp:fx/echo"].included
        told = [log for log in recorder.logs if log.startswith("MCP server ")]
        assert any(log.startswith("MCP server missing failed: cannot start") for log in told)
        assert any(log.startswith("MCP server fx ready (") for log in told)
    finally:
        await engine.aclose()


async def test_images_are_noted_by_size_and_resource_links_are_readable(tmp_path: Path) -> None:
    script = [
        reply("", call("mcp__fx__picture")),
        reply("", call("mcp__fx__find_note", key="readme")),
        reply("", call("read_file", path="mcp:fx/notes://readme")),
        reply("Seen."),
    ]
    engine = engine_for(tmp_path, script, {"fx": fixture_server(allowed_tools=["*"])})
    try:
        result = await engine.turn("look")
        picture, link, note = results(engine, result.session_id)
        noted = re.fullmatch(
            r"a picture follows\n\[image image/png, (\d+) B, kept as artifact (\S+);"
            r" not shown to the model\]",
            picture.output,
        )
        assert noted is not None, picture.output
        stored = engine.session(result.session_id).trace.read_artifact(noted.group(2))
        assert stored.startswith(b"\x89PNG") and len(stored) == int(noted.group(1))
        assert "read_file(path='mcp:fx/notes://readme')" in link.output
        assert note.ok and "The fixture's notes live here." in note.output
        assert note.data is not None and note.data["mcp_resource"] == "mcp:fx/notes://readme"
    finally:
        await engine.aclose()


async def test_servers_added_for_a_session_are_that_sessions_only(tmp_path: Path) -> None:
    script = [reply("", call("mcp__mine__echo", text="mine")), reply("Done.")]
    engine = engine_for(tmp_path, script, {})
    try:
        session = engine.active_session_id
        engine.set_mcp_servers(
            session, {"mine": McpServerSettings.model_validate(fixture_server(allowed_tools=["*"]))}
        )
        result = await engine.turn("use my server", session_id=session)
        [part] = results(engine, result.session_id)
        assert part.ok and part.output == "mine"
        other = engine.fork(session)
        refs = {b.ref for b in (await engine.context_manifest(other, message="x")).blocks}
        assert "mcp:mine/echo" not in refs
        assert "mcp:mine/echo" in {
            b.ref for b in (await engine.context_manifest(session, message="x")).blocks
        }
        engine.delete_session(session)
        assert await engine.mcp_servers(other) == []
    finally:
        await engine.aclose()


async def test_the_editors_first_context_starts_the_servers_and_counts_them(
    tmp_path: Path,
) -> None:
    engine = engine_for(tmp_path, [], {"fx": fixture_server()})
    try:
        assert [s.state for s in engine.mcp.snapshot().servers] == ["not started"]
        manifest = await engine.context_manifest(message="hi")
        lines = [b for b in tool_lines(manifest) if (b.ref or "").startswith("mcp:fx/")]
        assert lines and all(b.included and b.tokens > 0 for b in lines)
        stats = await engine.context_stats()
        mcp_tokens = sum(b.tokens for b in lines)
        assert stats.tool_schema_tokens >= mcp_tokens
        report = engine.mcp_report()
        [server] = report.servers
        assert server.state == "ready" and server.schema_tokens > 0
    finally:
        await engine.aclose()


async def test_old_mcp_outputs_are_pruned_like_any_other(tmp_path: Path) -> None:
    script: list[dict[str, Any]] = []
    for word in ("alpha", "beta", "gamma", "delta"):
        script += [reply("", call("mcp__fx__echo", text=f"{word} " * 200)), reply(f"said {word}")]
    server = {"fx": fixture_server(allowed_tools=["*"])}
    engine = engine_for(tmp_path, script, server, prune_minimum=200, prune_protect=300)
    try:
        sid = (await engine.turn("say alpha")).session_id
        for word in ("beta", "gamma", "delta"):
            await engine.turn(f"say {word}", session_id=sid)
        session = engine.session(sid)
        markers = [p for m in session.messages() for p in m.parts if isinstance(p, CompactionPart)]
        pruned = {c for p in markers if p.kind == "prune" for c in p.pruned_call_ids}
        echoed = {p.call_id: p for p in results(engine, sid)}
        assert pruned and all(echoed[c].name == "mcp__fx__echo" for c in pruned)
        inputs = TurnInputs(model=main_model(engine), mode="build")
        built = engine.contexts.build(engine.scope(session, inputs))
        context = "\n".join(str(m.get("content") or "") for m in built.messages)
        assert "[output pruned:" in context
        assert "alpha alpha" not in context and "delta delta" in context
    finally:
        await engine.aclose()
