"""How tests configure the fixture MCP server (`mcp_server.py`) without importing the SDK."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

FIXTURE_SERVER = Path(__file__).with_name("mcp_server.py")


def fixture_server(*args: str, **options: Any) -> dict[str, Any]:
    """An `[mcp.servers.NAME]` table running the fixture server over stdio with `args`."""
    return {"command": sys.executable, "args": [str(FIXTURE_SERVER), *args], **options}
