"""The official ACP TypeScript SDK, installed once from the pinned lockfile for these tests."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

NODE_DIR = Path(__file__).parent / "node"
SDK_DIR = NODE_DIR / "node_modules" / "@agentclientprotocol" / "sdk"
INSTALL_TIMEOUT_S = 240


@pytest.fixture(scope="session")
def node() -> str:
    """The node binary, with `@agentclientprotocol/sdk` installed (`npm ci`) when missing."""
    node_bin, npm_bin = shutil.which("node"), shutil.which("npm")
    if node_bin is None or npm_bin is None:
        pytest.skip("node/npm not installed: the ACP SDK tests need them")
    if not SDK_DIR.is_dir():
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


@pytest.fixture(scope="session")
def sdk_schemas(node: str) -> Path:
    """The folder of the SDK's ACP v1 JSON schemas (`schema.json`, `schema.unstable.json`)."""
    return SDK_DIR / "schema" / "v1"
