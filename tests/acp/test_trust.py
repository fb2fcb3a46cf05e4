"""`cairn acp` trusts a workspace only when the user's record does (no permission request yet).

Untrusted, the root's `cairn.toml` MCP server never starts and the ignored keys
arrive as a settings message after `session/new`; once the user trusts the
folder (`cairn trust`, here the store), a new agent uses them.
"""

from __future__ import annotations

from pathlib import Path

from cairn.files.trust import grant, untrusted_notice
from tests.acp.test_stdio import new_session, started
from tests.fakes.mcp_fixture import fixture_server
from tests.lsp.harness import write_workspace


def mcp_root(tmp_path: Path) -> Path:
    """A folder whose cairn.toml starts the fixture MCP server `fx` (it writes `starts.txt`)."""
    server = fixture_server("--starts", str(tmp_path / "starts.txt"))
    script = [{"text": "hi"}, {"text": "hi"}]
    return write_workspace(tmp_path / "ws", script=script, mcp_servers={"fx": server})


def content(message: dict[str, object]) -> str:
    params = message.get("params")
    update = params.get("update", {}) if isinstance(params, dict) else {}
    return str(update.get("content", "")) if isinstance(update, dict) else ""


async def test_an_unrecorded_root_is_untrusted_and_told(tmp_path: Path) -> None:
    root = mcp_root(tmp_path)
    client = await started(root)
    mark = client.mark()
    session = await new_session(client, root)
    told = await client.wait(lambda m: "Cairn settings" in content(m), mark)
    assert untrusted_notice(["mcp"], root.resolve()) in told["params"]["update"]["content"]["text"]
    await client.call(
        "session/prompt", {"sessionId": session, "prompt": [{"type": "text", "text": "hi"}]}
    )
    assert not (tmp_path / "starts.txt").exists(), "an untrusted root's MCP server never starts"
    await client.close()


async def test_a_recorded_root_is_trusted(tmp_path: Path) -> None:
    root = mcp_root(tmp_path)
    grant(root)
    client = await started(root)
    session = await new_session(client, root)
    await client.call(
        "session/prompt", {"sessionId": session, "prompt": [{"type": "text", "text": "hi"}]}
    )
    assert (tmp_path / "starts.txt").exists()
    await client.close()
