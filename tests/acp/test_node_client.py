"""`cairn acp` driven by an ACP client nobody here wrote: the official TypeScript SDK.

`tests/acp/node/client.mjs` uses `@agentclientprotocol/sdk` (pinned in
`tests/acp/node/package-lock.json`, installed with `npm ci` by CI or on
first use, see `conftest.py`) as an editor would: it serves `fs/read_text_file` (with an unsaved
buffer), `fs/write_text_file`, `session/request_permission` (reject, then
allow once) and `terminal/*`. One process runs a new session's prompts
(goals, a read, an edit, a refused and an allowed command, a cancelled turn,
embedded and linked files from two folders, bad input); a second process
loads the session and receives its history. The SDK validates every message
against the ACP schema, so an update it did not accept would be missing here.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cairn.files.text import content_hash
from cairn.files.trust import untrusted_notice
from cairn.sandbox.choice import choose_sandbox
from tests.fakes.mcp_fixture import fixture_server
from tests.lsp.harness import write_workspace

CLIENT = Path(__file__).parent / "node" / "client.mjs"
RUN_TIMEOUT_S = 300
COMMAND = "echo checked"
EMBEDDED = "x = 3  # typed, not saved\n"


def goal(**verb: str) -> dict[str, Any]:
    return {"name": "goal", "arguments": verb}


SCRIPT: list[dict[str, Any]] = [
    {"toolCalls": [goal(add="read the app, fix x, check it"), goal(focus="1")]},
    {"toolCalls": [{"name": "read_file", "arguments": {"path": "app.py"}}]},
    {
        "toolCalls": [
            goal(done="x is 1 in the editor"),
            goal(focus="2"),
            {
                "name": "edit_file",
                "arguments": {"path": "app.py", "old": "x = 1  # unsaved", "new": "x = 2"},
            },
        ]
    },
    {
        "toolCalls": [
            goal(done="x is 2"),
            goal(focus="3"),
            {"name": "run_command", "arguments": {"command": COMMAND}},
        ]
    },
    {"toolCalls": [{"name": "run_command", "arguments": {"command": COMMAND}}]},
    {"toolCalls": [goal(abandon="the echo is check enough")]},
    {"text": "All done: x is 2."},
    {"text": " ".join("abcdefghijklmnopqrstuvwxyz"), "chunkDelay": 1.0},
    {"text": "Still here."},
]


def run_client(node: str, root: Path, extra: Path, phase: str, **env: str) -> dict[str, Any]:
    done = subprocess.run(
        [node, str(CLIENT)],
        env={
            **os.environ,
            "PYTHON": sys.executable,
            "WORKSPACE": str(root),
            "EXTRA": str(extra),
            "PHASE": phase,
            **env,
        },
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["agentExit"] == 0, done.stderr[-3000:]
    return seen


def kinds(updates: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [u for u in updates if u["sessionUpdate"] == kind]


def final_status(updates: list[dict[str, Any]]) -> dict[str, str]:
    """Each tool call's last status."""
    status: dict[str, str] = {}
    for update in updates:
        if update["sessionUpdate"] in ("tool_call", "tool_call_update") and "status" in update:
            status[update["toolCallId"]] = update["status"]
    return status


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("acp")
    root = write_workspace(base / "ws", script=SCRIPT, files={"app.py": "x = 1\n"})
    extra = base / "extra"
    extra.mkdir()
    (extra / "lib.md").write_text("# lib\nhelpers\n", encoding="utf-8")
    return root, extra


@pytest.fixture(scope="module")
def turns(node: str, workspace: tuple[Path, Path]) -> dict[str, Any]:
    root, extra = workspace
    return run_client(node, root, extra, "turns")


def test_initialize_advertises_sessions_and_cairn_methods(turns: dict[str, Any]) -> None:
    init = turns["initialize"]
    assert init["protocolVersion"] == 1
    capabilities = init["agentCapabilities"]
    assert capabilities["loadSession"] is True
    assert capabilities["promptCapabilities"]["embeddedContext"] is True
    assert set(capabilities["sessionCapabilities"]) >= {"list", "delete", "fork"}
    assert "_cairn/goal" in capabilities["_meta"]["cairn"]["methods"]
    assert capabilities["mcpCapabilities"] == {"http": True, "sse": False}
    assert [m["id"] for m in turns["modes"]["availableModes"]] == ["build", "plan", "review"]


def test_a_prompt_plans_reads_edits_asks_and_ends(
    turns: dict[str, Any], workspace: tuple[Path, Path]
) -> None:
    root, _ = workspace
    app = str(root / "app.py")
    updates = turns["firstUpdates"]
    assert turns["first"]["stopReason"] == "end_turn"
    started = kinds(updates, "tool_call")
    assert [(c["name"], c["kind"]) for c in started] == [
        ("goal", "think"),
        ("goal", "think"),
        ("read_file", "read"),
        ("goal", "think"),
        ("goal", "think"),
        ("edit_file", "edit"),
        ("goal", "think"),
        ("goal", "think"),
        ("run_command", "execute"),
        ("run_command", "execute"),
        ("goal", "think"),
    ]
    read = next(c for c in started if c["name"] == "read_file")
    assert read["title"] == "Read app.py" and read["locations"] == [{"path": app}]
    # The read went through the client and saw its unsaved text.
    assert app in turns["seen"]["reads"]
    ended = {u["toolCallId"]: u for u in kinds(updates, "tool_call_update") if "rawOutput" in u}
    assert "x = 1  # unsaved" in ended[read["toolCallId"]]["content"][0]["content"]["text"]
    # The edit was written by the client, from its unsaved text, and shown as a diff.
    assert turns["seen"]["writes"] == [{"path": app, "content": "x = 2\n"}]
    assert (root / "app.py").read_text() == "x = 2\n"
    edit = next(c for c in started if c["name"] == "edit_file")
    assert ended[edit["toolCallId"]]["content"] == [
        {"type": "diff", "path": app, "oldText": "x = 1  # unsaved\n", "newText": "x = 2\n"}
    ]
    assert ended[edit["toolCallId"]]["locations"] == [{"path": app, "line": 1}]


def test_commands_ask_permission_and_run_in_the_client_terminal(
    turns: dict[str, Any], workspace: tuple[Path, Path]
) -> None:
    root, _ = workspace
    permissions = turns["seen"]["permissions"]
    assert [p["answered"] for p in permissions] == ["reject", "allow-once"]
    assert [o["kind"] for o in permissions[0]["options"]] == [
        "allow_once",
        "allow_always",
        "reject_once",
    ]
    assert {p["toolCall"]["rawInput"]["command"] for p in permissions} == {COMMAND}
    refused, allowed = (p["toolCall"]["toolCallId"] for p in permissions)
    status = final_status(turns["firstUpdates"])
    assert status[refused] == "failed" and status[allowed] == "completed"
    [terminal] = turns["seen"]["terminals"]
    flag, shown = terminal["args"]
    assert flag == "-c" and terminal["cwd"] == str(root)
    if choose_sandbox("auto", False).active:  # the client's terminal runs the sandbox
        assert shown.startswith("exec ") and shown.endswith(f"-- /bin/sh -c {shlex.quote(COMMAND)}")
    else:
        assert shown == COMMAND
    assert turns["seen"]["released"] == [terminal["terminalId"]]
    ended = [
        u for u in kinds(turns["firstUpdates"], "tool_call_update") if u["toolCallId"] == allowed
    ]
    assert ended[-1]["content"] == [{"type": "terminal", "terminalId": terminal["terminalId"]}]
    assert ended[-1]["rawOutput"]["exit_code"] == 0


def test_the_goal_tree_is_the_plan_and_usage_is_reported(turns: dict[str, Any]) -> None:
    plans = kinds(turns["firstUpdates"], "plan")
    last = plans[-1]["entries"]
    assert [e["content"] for e in last] == [
        "1 read the app",
        "2 fix x",
        "3 check it — abandoned: the echo is check enough",
    ]
    assert [e["status"] for e in last] == ["completed", "completed", "completed"]
    assert any(e["status"] == "in_progress" for p in plans for e in p["entries"])
    usage = kinds(turns["firstUpdates"], "usage_update")
    assert usage and all(u["size"] == 128_000 and 0 < u["used"] < u["size"] for u in usage)
    text = "".join(
        c["content"]["text"] for c in kinds(turns["firstUpdates"], "agent_message_chunk")
    )
    assert text == "All done: x is 2."
    [info] = kinds(turns["firstUpdates"], "session_info_update")
    assert info["title"] == "Fix x in @app.py"


def test_cancel_mid_turn_answers_cancelled_and_the_session_goes_on(turns: dict[str, Any]) -> None:
    assert turns["cancelled"] == {"stopReason": "cancelled"}
    assert turns["cancelledText"] and len(turns["cancelledText"]) < len(SCRIPT[7]["text"])
    assert turns["third"]["stopReason"] == "end_turn"


def test_embedded_and_linked_files_from_both_folders_are_references(
    turns: dict[str, Any], workspace: tuple[Path, Path]
) -> None:
    root, _ = workspace
    blocks = {b["ref"]: b for b in turns["manifest"]["blocks"] if b["source"] == "reference"}
    assert blocks["app.py"]["included"] and blocks["extra/lib.md"]["included"]
    # The embedded text (typed in the editor, not saved) is what the turn read for app.py.
    trace = root / ".cairn" / "traces" / turns["sessionId"] / "messages.jsonl"
    users = [m for m in map(json.loads, trace.read_text().splitlines()) if m["role"] == "user"]
    files = {p["path"]: p["hash"] for p in users[-1]["parts"] if p["type"] == "file"}
    assert files == {
        "app.py": content_hash(EMBEDDED),
        "extra/lib.md": content_hash("# lib\nhelpers\n"),
    }
    assert (root / "app.py").read_text() == "x = 2\n"


def test_bad_input_gets_json_rpc_errors_and_the_agent_keeps_serving(
    turns: dict[str, Any],
) -> None:
    assert turns["parseError"]["code"] == -32700
    assert turns["badParams"]["code"] == -32602 and "focus" in turns["badParams"]["message"]
    # Invalid params, as in the language server (was -32002): the front ends' one error map.
    assert turns["unknownSession"]["code"] == -32602
    assert turns["unknownMethod"]["code"] == -32601
    assert [g["status"] for g in turns["tree"]["tree"]["goals"]] == [
        "completed",
        "completed",
        "abandoned",
    ]


def test_a_new_process_loads_the_session_and_replays_its_history(
    node: str, turns: dict[str, Any], workspace: tuple[Path, Path]
) -> None:
    root, extra = workspace
    session_id = turns["sessionId"]
    loaded = run_client(node, root, extra, "load", SESSION_ID=session_id)
    replayed = loaded["replayed"]
    users = [
        u["content"]["text"]
        for u in kinds(replayed, "user_message_chunk")
        if u["content"]["type"] == "text"
    ]
    assert users[0] == "Fix x in @app.py" and users[1] == "Say the alphabet slowly"
    agent = [u["content"]["text"] for u in kinds(replayed, "agent_message_chunk")]
    assert "All done: x is 2." in agent and "Still here." in agent
    live = [c["toolCallId"] for c in kinds(turns["firstUpdates"], "tool_call")]
    again = [c["toolCallId"] for c in kinds(replayed, "tool_call")]
    assert again == live
    assert final_status(replayed) == final_status(turns["firstUpdates"])
    edit = next(c for c in kinds(replayed, "tool_call") if c["name"] == "edit_file")
    [diff] = [
        u for u in kinds(replayed, "tool_call_update") if u["toolCallId"] == edit["toolCallId"]
    ]
    assert diff["content"] == [
        {
            "type": "diff",
            "path": str(root / "app.py"),
            "oldText": "x = 1  # unsaved\n",
            "newText": "x = 2\n",
        }
    ]
    assert (
        kinds(replayed, "plan")[-1]["entries"]
        == kinds(turns["firstUpdates"], "plan")[-1]["entries"]
    )
    assert replayed[-1]["sessionUpdate"] == "usage_update"
    assert loaded["loaded"]["modes"]["currentModeId"] == "build"
    [row] = [s for s in loaded["listed"]["sessions"] if s["sessionId"] == session_id]
    assert row["cwd"] == str(root) and row["title"] == "Fix x in @app.py"
    assert loaded["deletedUnknown"] == {}
    assert session_id not in {s["sessionId"] for s in loaded["afterDelete"]["sessions"]}


def test_a_current_client_gets_names_notices_and_cancel_requests(node: str, tmp_path: Path) -> None:
    """The TypeScript SDK 2.4 declares `session.notices` (the current schema): its tool calls
    carry `name`, a folder it leaves unanswered on trust is a `notice`, and a cancelled turn
    that stops waiting for its command sends `$/cancel_request`, which its SDK takes (the
    handler's signal aborts; this client's wait ends only then) — all validated against the
    SDK's schema."""
    run = {"toolCalls": [{"name": "run_command", "arguments": {"command": "echo waiting"}}]}
    server = fixture_server("--starts", str(tmp_path / "starts.txt"))
    root = write_workspace(
        tmp_path / "ws", script=[run, {"text": "stopped"}], mcp_servers={"fx": server}
    )
    seen = run_client(node, root, tmp_path, "current")
    assert seen["cancelled"] == {"stopReason": "cancelled"}
    trust, started = kinds(seen["updates"], "tool_call")
    assert trust["toolCallId"].startswith("cairn-trust-") and trust["status"] == "pending"
    assert started["name"] == "run_command"
    [told] = kinds(seen["updates"], "notice")
    assert told["title"] == untrusted_notice(["mcp"], root.resolve())
    assert [p["answered"] for p in seen["seen"]["permissions"]] == ["cancelled", "allow-once"]
    assert len(seen["cancelRequests"]) == 1 and seen["seen"]["waitAborted"] is True
    assert not (tmp_path / "starts.txt").exists()
