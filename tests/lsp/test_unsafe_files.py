"""`cairn serve` next to a symlink loop and a FIFO, in a plain folder and a git repository.

Before this change the engine failed to start (`RuntimeError: Symlink loop`) and every
`cairn/*` request was answered "engine unavailable"; a turn or a manifest naming the FIFO
never answered (the binary sniff opened it on the event loop) and the server answered
nothing afterwards. Now each request is answered, the FIFO refused by name, and the next
request still served. A hang fails the test by the client's read timeout.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cairn.files.workspace import path_to_uri
from tests.lsp.harness import write_workspace
from tests.lsp.raw_client import RawServer
from tests.unit.test_files_unsafe import make_hostile

FIFO_REFUSAL = "pipe.py: not a regular file (a FIFO)"
SCRIPT = [
    {"text": "", "toolCalls": [{"name": "read_file", "arguments": {"path": "pipe.py"}}]},
    {"text": "", "toolCalls": [{"name": "grep", "arguments": {"pattern": "main"}}]},
    {"text": "Read what could be read."},
]


def blocks_of(manifest: dict[str, Any]) -> dict[tuple[str, str | None], dict[str, Any]]:
    return {(block["source"], block["ref"]): block for block in manifest["blocks"]}


@pytest.mark.parametrize(
    ("git", "loop"), [(False, True), (True, True), (False, False)], ids=["plain", "git", "fifo"]
)
async def test_server_keeps_answering_next_to_a_symlink_loop_and_a_fifo(
    tmp_path: Path, git: bool, loop: bool
) -> None:
    root = make_hostile(tmp_path / "ws", git=git)
    if not loop:  # the FIFO alone (it froze the event loop)
        for name in ("loop1", "loop2"):
            (root / name).unlink()
    write_workspace(root, script=SCRIPT)
    server = await RawServer.start(root, tmp_path / "stderr.log")
    try:
        await server.initialize(root)
        stats = await server.request("cairn/contextStats", {})
        assert "error" not in stats, stats
        assert stats["result"]["usedInput"] > 0

        dry = await server.request(
            "cairn/contextManifest",
            {"message": "look at the pipe", "uri": path_to_uri(root / "pipe.py")},
        )
        assert "error" not in dry, dry
        blocks = blocks_of(dry["result"])
        assert {"profile", "repomap", "rules"} <= {source for source, _ in blocks}
        fifo = blocks[("buffer", "pipe.py")]
        assert not fifo["included"] and FIFO_REFUSAL in fifo["reason"]

        turn = await server.request(
            "cairn/turn", {"message": "read everything", "references": ["pipe.py", "loop1"]}
        )
        assert "error" not in turn, turn
        assert turn["result"]["finishReason"] == "stop"
        assert "Read what could be read." in turn["result"]["text"]
        tool_ends = [
            n["params"]
            for n in server.notifications
            if n["method"] == "cairn/turnEvent" and n["params"]["kind"] == "toolEnd"
        ]
        assert [(e["tool"], e["ok"]) for e in tool_ends] == [("read_file", False), ("grep", True)]
        manifest = await server.request("cairn/contextManifest", {})
        references = {
            ref: block["reason"]
            for (source, ref), block in blocks_of(manifest["result"]).items()
            if source == "reference"
        }
        loop_reason = "loop1: symlink loop" if loop else "loop1: not found"
        assert references == {"pipe.py": FIFO_REFUSAL, "loop1": loop_reason}

        tree = await server.request("cairn/goalTree", {})
        assert set(tree["result"]) == {"sessionId", "tree", "rendered"}
        assert await server.stop() == 0
    finally:
        if server.process.returncode is None:
            server.process.kill()
            await server.process.wait()
