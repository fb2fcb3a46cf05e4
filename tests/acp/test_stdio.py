"""`cairn acp` over its real stdio: framing errors, the session lifecycle, Cairn's methods,
optional client capabilities (markdown plans, compaction updates) and their fallbacks."""

from __future__ import annotations

import signal
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from cairn.models.session import Turn
from cairn.trace.store import TraceStore
from tests.acp.raw_client import RawAcpClient, RpcFailure
from tests.lsp.harness import write_workspace

LONG_REPLY = {"text": "Read everything. " * 40}
COMPACTION_REPLY = {"agent": "compaction", "text": "Objective: read everything."}


async def started(root: Path, **capabilities: Any) -> RawAcpClient:
    client = await RawAcpClient.start(root)
    await client.initialize(**capabilities)
    return client


async def new_session(client: RawAcpClient, root: Path, **extra: Any) -> str:
    answer = await client.call("session/new", {"cwd": str(root), "mcpServers": [], **extra})
    return answer["sessionId"]


async def failure(client: RawAcpClient, method: str, params: Any = None) -> RpcFailure:
    with pytest.raises(RpcFailure) as raised:
        await client.call(method, params)
    return raised.value


async def test_malformed_messages_get_json_rpc_errors_and_serving_goes_on(tmp_path: Path) -> None:
    root = write_workspace(tmp_path / "ws")
    client = await RawAcpClient.start(root)
    early = await failure(client, "session/new", {"cwd": str(root), "mcpServers": []})
    assert early.code == -32600 and "initialize first" in early.message
    mark = client.mark()
    client.write_line("this is not json")
    client.write([{"jsonrpc": "2.0", "id": 1, "method": "initialize"}])
    client.write({"jsonrpc": "1.0", "id": 41, "method": "initialize"})
    client.write({"jsonrpc": "2.0", "id": {"no": 1}, "method": "initialize"})
    client.write({"jsonrpc": "2.0", "method": "_cairn/unknownNotification", "params": {}})
    client.write({"jsonrpc": "2.0", "id": 999, "result": {}})
    parse = await client.wait(lambda m: m.get("error", {}).get("code") == -32700, mark)
    batch = await client.wait(lambda m: "batches" in m.get("error", {}).get("message", ""), mark)
    version = await client.wait(lambda m: m.get("id") == 41, mark)
    assert parse["id"] is None and batch["id"] is None
    assert version["error"]["code"] == -32600
    await client.initialize()
    assert (await failure(client, "session/nope", {})).code == -32601
    assert (await failure(client, "session/new", [1, 2])).code == -32602
    relative = await failure(client, "session/new", {"cwd": "ws", "mcpServers": []})
    assert relative.code == -32602 and "absolute" in relative.message
    missing = await failure(client, "session/new", {"cwd": str(root / "nope"), "mcpServers": []})
    assert missing.code == -32602 and "not a folder" in missing.message
    assert (await failure(client, "session/prompt", {"sessionId": "x"})).code == -32602
    # An unknown session is Invalid params in both front ends (was -32002): one error map,
    # and -32002 means ServerNotInitialized to LSP clients (cairn.frontends.error_map).
    unknown = await failure(client, "session/set_mode", {"sessionId": "x", "modeId": "plan"})
    assert unknown.code == -32602 and "unknown session" in unknown.message
    assert await new_session(client, root)
    no_stray = [m for m in client.messages[mark:] if m.get("id") == 999 or m.get("method")]
    assert all(m.get("method") == "session/update" for m in no_stray)
    await client.close()


async def test_sessions_fork_list_resume_close_and_delete(tmp_path: Path) -> None:
    script = [{"text": "First answer."}, {"text": "Planned."}]
    root = write_workspace(tmp_path / "ws", script=script)
    client = await started(root)
    mcp = [{"name": "files", "command": "/bin/true", "args": [], "env": []}]
    session = await new_session(client, root, mcpServers=mcp)
    await client.call(
        "session/prompt", {"sessionId": session, "prompt": [{"type": "text", "text": "hello"}]}
    )
    bad_mode = await failure(client, "session/set_mode", {"sessionId": session, "modeId": "yolo"})
    assert bad_mode.code == -32602 and "build, plan, review" in bad_mode.message
    await client.call("session/set_mode", {"sessionId": session, "modeId": "plan"})
    await client.call(
        "session/prompt", {"sessionId": session, "prompt": [{"type": "text", "text": "plan it"}]}
    )
    manifest = await client.call("_cairn/contextManifest", {"sessionId": session})
    assert [b["ref"] for b in manifest["blocks"] if b["source"] == "mode"] == ["plan"]
    # A server that exits at once is an excluded source with its reason, never a failed turn.
    [files] = [b for b in manifest["blocks"] if b["ref"] == "mcp:files"]
    assert not files["included"] and files["reason"]

    fork = await client.call(
        "session/fork", {"sessionId": session, "cwd": str(root), "mcpServers": []}
    )
    child = fork["sessionId"]
    assert child != session and fork["modes"]["currentModeId"] == "build"
    listed = await client.call("session/list", {"cwd": str(root)})
    rows = {row["sessionId"]: row for row in listed["sessions"]}
    assert set(rows) == {session, child} and "nextCursor" not in listed
    assert rows[child]["_meta"]["cairn"]["parentId"] == session
    assert rows[session]["title"] == "hello" and rows[session]["cwd"] == str(root)
    assert (await failure(client, "session/list", {"cursor": "garbage"})).code == -32602

    await client.call("session/close", {"sessionId": child})
    closed = await failure(client, "session/prompt", {"sessionId": child, "prompt": []})
    assert closed.code == -32602  # unknown session: Invalid params (the shared error map)
    mark = client.mark()
    resumed = await client.call(
        "session/resume", {"sessionId": child, "cwd": str(root), "mcpServers": []}
    )
    assert resumed["modes"]["currentModeId"] == "build"
    assert not [u for u in client.updates(child, mark) if "message_chunk" in u["sessionUpdate"]]
    # Unknown session: Invalid params, as in the language server (was -32002).
    assert (await failure(client, "session/close", {"sessionId": "never"})).code == -32602
    assert await client.call("session/delete", {"sessionId": child}) == {}
    assert await client.call("session/delete", {"sessionId": child}) == {}
    listed = await client.call("session/list", {})
    assert [row["sessionId"] for row in listed["sessions"]] == [session]
    await client.close()


async def test_cairn_methods_and_a_client_without_fs_or_terminal(tmp_path: Path) -> None:
    script = [
        {"toolCalls": [{"name": "edit_file", "arguments": {"path": "a.txt", "new": "written\n"}}]},
        {"toolCalls": [{"name": "run_command", "arguments": {"command": "echo ran > ran.txt"}}]},
        {"text": "ok"},
    ]
    root = write_workspace(tmp_path / "ws", script=script)
    client = await started(root)
    client.handlers["session/request_permission"] = lambda params: {
        "outcome": {"outcome": "selected", "optionId": "allow-always"}
    }
    session = await new_session(client, root)
    mark = client.mark()
    tree = await client.call("_cairn/goal", {"sessionId": session, "add": "first, second"})
    assert [g["id"] for g in tree["tree"]["goals"]] == ["1", "2"]
    plan = await client.wait(
        lambda m: m.get("params", {}).get("update", {}).get("sessionUpdate") == "plan", mark
    )
    assert [e["content"] for e in plan["params"]["update"]["entries"]] == ["1 first", "2 second"]
    two_verbs = await failure(
        client, "_cairn/goal", {"sessionId": session, "add": "x", "focus": "1"}
    )
    assert two_verbs.code == -32602
    assert (
        await failure(client, "_cairn/goal", {"sessionId": session, "focus": "9"})
    ).code == -32602
    assert (await client.call("_cairn/goalTree", {"sessionId": session}))["tree"] == tree["tree"]
    stats = await client.call("_cairn/contextStats", {"sessionId": session})
    assert stats["sessionId"] == session and stats["contextWindow"] > 0
    profile = await client.call("_cairn/projectProfile", {"sessionId": session})
    assert set(profile) >= {"languages", "testSuites"}
    compacted = await client.call("_cairn/compact", {"sessionId": session})
    assert compacted["kind"] in {"prune", "summary", "none"}
    dry = await client.call("_cairn/contextManifest", {"sessionId": session, "message": "next?"})
    assert dry["callId"] is None

    answer = await client.call(
        "session/prompt", {"sessionId": session, "prompt": [{"type": "text", "text": "go"}]}
    )
    assert answer["stopReason"] == "end_turn"
    assert (root / "a.txt").read_text() == "written\n" and (root / "ran.txt").exists()
    asked = [r for r in client.requests if r["method"] == "session/request_permission"]
    assert len(asked) == 1 and not [
        r for r in client.requests if r["method"].startswith(("fs/", "terminal/"))
    ]
    meta = (root / ".cairn" / "traces" / session / "meta.json").read_text()
    assert "echo ran > ran.txt" in meta  # "always" joined the session's allowlist
    await client.close()


async def test_markdown_plans_and_compaction_updates_for_clients_that_take_them(
    tmp_path: Path,
) -> None:
    settings = {"context_window": 9_000, "max_output_tokens": 500, "safety_margin": 200}
    root = write_workspace(
        tmp_path / "ws", script=[LONG_REPLY, COMPACTION_REPLY], settings=settings
    )
    client = await started(root, plan={}, session={"compaction": {}})
    session = await new_session(client, root)
    mark = client.mark()
    await client.call("_cairn/goal", {"sessionId": session, "add": "read, summarise"})
    await client.call(
        "session/prompt",
        {"sessionId": session, "prompt": [{"type": "text", "text": "read it all"}]},
    )
    result = await client.call("_cairn/compact", {"sessionId": session})
    updates = client.updates(session, mark)
    plans = [u for u in updates if u["sessionUpdate"] == "plan_update"]
    assert plans and plans[-1]["plan"]["type"] == "markdown"
    assert "- [ ] 1 read" in plans[-1]["plan"]["content"]
    assert not [u for u in updates if u["sessionUpdate"] == "plan"]
    compactions = [u for u in updates if u["sessionUpdate"] == "compaction_update"]
    assert result["kind"] in {"prune", "summary", "none"}
    assert [c["status"] for c in compactions][:1] == ["in_progress"]
    assert compactions[-1]["status"] in {"completed", "failed"}
    assert len({c["compactionId"] for c in compactions}) == 1
    assert not [u for u in updates if "Compacting" in str(u.get("content", ""))]
    await client.close()


async def test_without_compaction_updates_compaction_is_an_agent_message(tmp_path: Path) -> None:
    settings = {"context_window": 9_000, "max_output_tokens": 500, "safety_margin": 200}
    root = write_workspace(
        tmp_path / "ws", script=[LONG_REPLY, COMPACTION_REPLY], settings=settings
    )
    client = await started(root)
    session = await new_session(client, root)
    await client.call(
        "session/prompt",
        {"sessionId": session, "prompt": [{"type": "text", "text": "read it all"}]},
    )
    mark = client.mark()
    result = await client.call("_cairn/compact", {"sessionId": session})
    texts = [
        u["content"]["text"]
        for u in client.updates(session, mark)
        if u["sessionUpdate"] == "agent_message_chunk"
    ]
    assert result["kind"] in {"prune", "summary", "none"}
    assert any("Compacting the context (summary" in t for t in texts)
    assert any("Context compacted" in t or "failed" in t for t in texts)
    await client.close()


async def test_invalid_settings_fall_back_to_defaults_and_are_told(tmp_path: Path) -> None:
    root = write_workspace(
        tmp_path / "ws", script=[{"text": "hi"}], settings={"step_limit": "many"}
    )
    client = await started(root)
    mark = client.mark()
    session = await new_session(client, root)
    told = await client.wait(
        lambda m: "Cairn settings" in str(m.get("params", {}).get("update", {}).get("content", "")),
        mark,
    )
    assert "step_limit" in told["params"]["update"]["content"]["text"]
    assert session
    await client.close()


@dataclass(frozen=True)
class Prompting:
    """A slow prompt under way: its client, workspace, session, request id and the mark
    before it was sent."""

    client: RawAcpClient
    root: Path
    session: str
    request: int
    mark: int

    def turn(self) -> Turn:
        """The session's one turn as recorded."""
        [turn] = TraceStore(self.root / ".cairn").open(self.session).meta().turns
        return turn


async def prompting(tmp_path: Path) -> Prompting:
    """A prompt whose reply streams slowly, once its first chunk has arrived."""
    slow = {"text": "word " * 4000, "chunkDelay": 0.02}
    root = write_workspace(tmp_path / "ws", script=[slow])
    client = await started(root)
    session = await new_session(client, root)
    mark = client.mark()
    request = client.send(
        "session/prompt", {"sessionId": session, "prompt": [{"type": "text", "text": "go"}]}
    )
    await client.wait(
        lambda m: (
            m.get("method") == "session/update"
            and m["params"]["update"]["sessionUpdate"] == "agent_message_chunk"
        ),
        mark,
    )
    return Prompting(client, root, session, request, mark)


async def test_a_client_that_goes_away_mid_prompt_leaves_the_turn_recorded_cancelled(
    tmp_path: Path,
) -> None:
    run = await prompting(tmp_path)
    stderr = await run.client.close()
    assert run.client.process.returncode == 0, stderr
    assert "did not stop in time" not in stderr
    turn = run.turn()
    assert turn.finish_reason == "cancelled" and turn.ended_at is not None


async def test_sigterm_mid_prompt_leaves_the_turn_recorded_cancelled_and_exits_143(
    tmp_path: Path,
) -> None:
    run = await prompting(tmp_path)
    run.client.process.send_signal(signal.SIGTERM)
    answer = await run.client.response(run.request, run.mark)
    assert answer.get("result", {}).get("stopReason") == "cancelled", answer
    stderr = await run.client.close()
    assert run.client.process.returncode == 128 + signal.SIGTERM, stderr
    assert "SIGTERM received: stopping" in stderr
    turn = run.turn()
    assert turn.finish_reason == "cancelled" and turn.ended_at is not None
