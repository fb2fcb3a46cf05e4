"""Third-party MCP servers from the registries, configured as a user's `cairn.toml` would run them.

- `mcp-server-time` and `mcp-server-git` (PyPI, the official reference
  servers on the Python SDK 2.x: they speak MCP 2026-07-28), installed with
  the project's `[dev]` extra;
- `@modelcontextprotocol/server-everything` (npm, on the TypeScript SDK 1.x:
  it speaks 2025-11-25 through the `initialize` handshake), pinned in
  `tests/mcp_servers/node/package-lock.json` and installed with `npm ci` (by
  `.ci/run`, or here on first use). Its tests are skipped only where Node is
  not installed.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

NODE_DIR = Path(__file__).parent / "node"
EVERYTHING_JS = (
    NODE_DIR / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
)
INSTALL_TIMEOUT_S = 240
SCRIPTS = Path(sys.executable).parent


def python_server(name: str, *args: str, **options: Any) -> dict[str, Any]:
    """An `[mcp.servers.NAME]` table running a PyPI server's console script."""
    script = SCRIPTS / name
    assert script.is_file(), f"{name} is not installed: pip install -e '.[dev]'"
    return {"command": str(script), "args": list(args), **options}


def time_server(**options: Any) -> dict[str, Any]:
    """`mcp-server-time` (PyPI), on UTC."""
    return python_server("mcp-server-time", "--local-timezone", "UTC", **options)


def git_server(repository: Path, **options: Any) -> dict[str, Any]:
    """`mcp-server-git` (PyPI) on `repository`."""
    return python_server("mcp-server-git", "--repository", str(repository), **options)


def behind_shell(server: dict[str, Any], before: str, **options: Any) -> dict[str, Any]:
    """The same server started by `sh -c '<before>; exec <server>'` (as wrappers do)."""
    words = " ".join(f"'{word}'" for word in [server["command"], *server["args"]])
    return {"command": "sh", "args": ["-c", f"{before}; exec {words}"], **options}


@pytest.fixture(scope="session")
def everything() -> dict[str, Any]:
    """`@modelcontextprotocol/server-everything` (npm) over stdio, installed when missing."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("node/npm not installed: @modelcontextprotocol/server-everything needs them")
    if not EVERYTHING_JS.is_file():
        done = subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund"],
            cwd=NODE_DIR,
            capture_output=True,
            text=True,
            timeout=INSTALL_TIMEOUT_S,
            check=False,
        )
        assert done.returncode == 0, f"npm ci failed in {NODE_DIR}: {done.stderr[-500:]}"
    return {"command": node, "args": [str(EVERYTHING_JS), "stdio"]}
