"""One test path through an independent client: Node's vscode-languageserver-protocol.

pytest-lsp shares pygls (and lsprotocol's decoding) with the server; this
client is the JSON-RPC stack VS Code itself uses. It is installed from
`tests/lsp/node/package-lock.json` on first use (`npm ci`, git-ignored
node_modules); the test is skipped, saying why, when node or npm is missing or
the install fails.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.lsp.harness import write_workspace

NODE_DIR = Path(__file__).parent / "node"
CLIENT = NODE_DIR / "client.mjs"
INSTALL_TIMEOUT_S = 240
RUN_TIMEOUT_S = 240
FIX_SCRIPT = [
    {
        "toolCalls": [
            {"name": "edit_file", "arguments": {"path": "app.py", "old": "x = 1", "new": "x = 2"}}
        ]
    },
    {"text": "Fixed from node."},
]


@pytest.fixture(scope="session")
def node() -> str:
    """The node binary, with the client's dependencies installed."""
    node_bin, npm_bin = shutil.which("node"), shutil.which("npm")
    if node_bin is None or npm_bin is None:
        pytest.skip("node/npm not installed: the independent Node client test needs them")
    if not (NODE_DIR / "node_modules" / "vscode-languageserver-protocol").is_dir():
        done = subprocess.run(
            [npm_bin, "ci", "--no-audit", "--no-fund"],
            cwd=NODE_DIR,
            capture_output=True,
            text=True,
            timeout=INSTALL_TIMEOUT_S,
            check=False,
        )
        if done.returncode != 0:
            pytest.skip(f"npm ci failed in {NODE_DIR}: {done.stderr.strip()[-500:]}")
    return node_bin


def test_vscode_jsonrpc_client_drives_goals_code_actions_and_a_fix(
    node: str, tmp_path: Path
) -> None:
    root = write_workspace(tmp_path / "ws", script=FIX_SCRIPT, files={"app.py": "x = 1\n"})
    done = subprocess.run(
        [node, str(CLIENT)],
        env={**os.environ, "PYTHON": sys.executable, "WORKSPACE": str(root)},
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["serverName"] == "cairn"
    assert [g["description"] for g in seen["added"]["tree"]["goals"]] == ["from node"]
    assert seen["tree"] == seen["added"]
    assert seen["changes"] and seen["changes"][0] == seen["added"]
    assert seen["badGoal"]["code"] == -32602 and "nope" in seen["badGoal"]["message"]
    assert seen["actions"] == [
        {"title": "Fix with Cairn: x should be 2", "kind": "quickfix", "command": "cairn.fix"}
    ]
    assert seen["fix"]["finishReason"] == "stop"
    [edit] = seen["edits"]
    [document_edit] = edit["documentChanges"]
    assert document_edit["edits"][0]["newText"] == "x = 2\n"
