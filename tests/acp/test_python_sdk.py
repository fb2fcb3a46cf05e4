"""`cairn acp` with the Python ACP SDK (`agent-client-protocol` 0.12.x) as the client.

The SDK implements schema v1.19: it cannot declare `session.notices` or
`session.compaction`, it fails on `$/cancel_request` (it logs an error with a
traceback) and its models drop a tool call's `name`. Cairn sends those only
to clients of the current schema, so this client gets none of them and logs
nothing; it still gets usage, the session's title and the turn's usage in the
prompt's answer. The first use of an untrusted folder asks this client
whether to trust it: "always" records the grant and the folder's MCP server
starts; "keep restricted" keeps it off.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from acp import text_block
from cairn.files.trust import is_trusted, trust_question, untrusted_notice
from tests.acp.python_client import WAIT_S, SdkClient, error_records, running
from tests.acp.test_trust import mcp_root
from tests.lsp.harness import write_workspace

SLEEP = {"toolCalls": [{"name": "run_command", "arguments": {"command": "sleep 600"}}]}


def allow_commands(asked: dict[str, Any]) -> str | None:
    return "allow-once"


async def test_a_cancel_in_wait_for_exit_is_quiet_on_a_v1_19_client(tmp_path: Path) -> None:
    root = write_workspace(tmp_path / "ws", script=[SLEEP, {"text": "stopped"}])
    client = SdkClient(allow_commands)
    with error_records() as errors:
        async with running(client, root) as agent:
            await agent.initialize(terminal=True)
            session = await agent.conn.new_session(cwd=str(root), mcp_servers=[])
            prompt = asyncio.ensure_future(
                agent.conn.prompt(session_id=session.session_id, prompt=[text_block("Run it")])
            )
            await asyncio.wait_for(client.waiting.wait(), WAIT_S)
            await agent.conn.cancel(session_id=session.session_id)
            answer = await asyncio.wait_for(prompt, WAIT_S)
    assert answer.stop_reason == "cancelled"
    assert agent.sent("$/cancel_request") == []
    assert errors == [], [r.getMessage() for r in errors]
    [started] = agent.raw_updates("tool_call")
    assert started["kind"] == "execute" and "name" not in started


async def test_usage_and_the_title_arrive_and_notices_do_not(tmp_path: Path) -> None:
    root = mcp_root(tmp_path)
    client = SdkClient(lambda asked: None)  # the trust question gets an error answer
    with error_records() as errors:
        async with running(client, root) as agent:
            await agent.initialize()
            session = await agent.conn.new_session(cwd=str(root), mcp_servers=[])
            answer = await asyncio.wait_for(
                agent.conn.prompt(session_id=session.session_id, prompt=[text_block("Hello")]),
                WAIT_S,
            )
    assert answer.stop_reason == "end_turn"
    assert answer.usage is not None and answer.usage.total_tokens > 0
    assert client.kinds("usage_update") and client.kinds("usage_update")[-1].size > 0
    [info] = client.kinds("session_info_update")
    assert info.title == "Hello"
    # Asked (and unanswerable): restricted, said as a settings message, never as a notice.
    assert client.permissions[0]["toolCall"]["title"] == trust_question(root, ["mcp"])
    assert agent.raw_updates("notice") == []
    told = "".join(u.content.text for u in client.kinds("agent_message_chunk"))
    assert untrusted_notice(["mcp"], root.resolve()) in told
    assert not (tmp_path / "starts.txt").exists()
    assert errors == [], [r.getMessage() for r in errors]


async def trust_answered(tmp_path: Path, option: str) -> tuple[SdkClient, Path]:
    root = mcp_root(tmp_path)
    client = SdkClient(lambda asked: option)
    async with running(client, root) as agent:
        await agent.initialize()
        session = await agent.conn.new_session(cwd=str(root), mcp_servers=[])
        await asyncio.wait_for(
            agent.conn.prompt(session_id=session.session_id, prompt=[text_block("Hello")]), WAIT_S
        )
    return client, root


async def test_always_trusting_records_the_folder_and_starts_its_mcp_server(
    tmp_path: Path,
) -> None:
    client, root = await trust_answered(tmp_path, "trust-always")
    [asked] = client.permissions
    assert asked["toolCall"]["title"] == trust_question(root, ["mcp"])
    kinds = {o["optionId"]: o["kind"] for o in asked["options"]}
    assert kinds == {
        "trust-always": "allow_always",
        "trust-once": "allow_once",
        "keep-restricted": "reject_once",
    }
    assert is_trusted(root), "the grant is the record `cairn trust` writes"
    assert (tmp_path / "starts.txt").exists(), "the folder's MCP server started"


async def test_trusting_once_starts_the_server_without_a_record(tmp_path: Path) -> None:
    _, root = await trust_answered(tmp_path, "trust-once")
    assert not is_trusted(root)
    assert (tmp_path / "starts.txt").exists()


async def test_keeping_a_folder_restricted_keeps_its_mcp_server_off(tmp_path: Path) -> None:
    client, root = await trust_answered(tmp_path, "keep-restricted")
    assert len(client.permissions) == 1
    assert not is_trusted(root)
    assert not (tmp_path / "starts.txt").exists()
