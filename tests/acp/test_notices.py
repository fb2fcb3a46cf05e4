"""`notice` updates reach a client that advertises `session.notices`, and only such a client.

Over raw stdio (the client's capabilities are exactly what the test sends): a
folder the client cannot be asked to trust stays restricted with a notice
naming `cairn trust DIR`; an MCP server of the session that dies at start is
restarted and given up with a notice each. A client without the capability
gets neither (the Python SDK's case is in test_python_sdk.py).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from cairn.files.trust import untrusted_notice
from tests.acp.raw_client import RawAcpClient
from tests.acp.test_python_sdk import mcp_root
from tests.acp.test_stdio import new_session, started
from tests.fakes.mcp_fixture import FIXTURE_ARGS
from tests.lsp.harness import write_workspace

NOTICES = {"session": {"notices": {}}}
DYING = {"name": "dying", "command": sys.executable, "args": [*FIXTURE_ARGS, "--exit-at-start"]}
DYING["env"] = []


def notices(client: RawAcpClient, session: str) -> list[dict[str, Any]]:
    return [u for u in client.updates(session) if u["sessionUpdate"] == "notice"]


async def prompt(client: RawAcpClient, session: str) -> Any:
    return await client.call(
        "session/prompt", {"sessionId": session, "prompt": [{"type": "text", "text": "hi"}]}
    )


async def test_a_folder_the_client_cannot_be_asked_about_is_a_notice(tmp_path: Path) -> None:
    root = mcp_root(tmp_path)
    client = await started(root, **NOTICES)  # session/request_permission: Method not found
    session = await new_session(client, root)
    await prompt(client, session)
    [asked] = [r for r in client.requests if r["method"] == "session/request_permission"]
    assert asked["params"]["toolCall"]["toolCallId"].startswith("cairn-trust-")
    [told] = notices(client, session)
    assert told["severity"] == "warning"
    assert told["title"] == untrusted_notice(["mcp"], root.resolve())
    assert "cairn trust" in told["title"]
    assert not (tmp_path / "starts.txt").exists()
    await client.close()


async def test_without_the_capability_no_notice_is_sent(tmp_path: Path) -> None:
    root = mcp_root(tmp_path)
    client = await started(root)
    session = await new_session(client, root)
    await prompt(client, session)
    asked = [r for r in client.requests if r["method"] == "session/request_permission"]
    assert len(asked) == 1, "asked, could not answer, and still not told by a notice"
    assert notices(client, session) == []
    await client.close()


async def test_an_mcp_server_that_dies_is_a_notice(tmp_path: Path) -> None:
    root = write_workspace(tmp_path / "ws", script=[{"text": "hi"}])
    client = await started(root, **NOTICES)
    session = await new_session(client, root, mcpServers=[DYING])
    await prompt(client, session)
    told = await client.wait(
        lambda m: (
            m.get("method") == "session/update"
            and m["params"]["update"]["sessionUpdate"] == "notice"
        )
    )
    update = told["params"]["update"]
    assert update["severity"] == "warning"
    assert update["title"].startswith("MCP server dying restarting: exited with status 7")
    assert "cannot open its database" in update["description"]
    await client.close()
