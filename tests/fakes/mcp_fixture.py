"""How tests configure the fixture MCP server (`mcp_server.py`) without importing the SDK."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

FIXTURE_SERVER = Path(__file__).with_name("mcp_server.py")
# The interpreter's arguments that run it: `-P` keeps the script's folder off `sys.path`
# (tests/fakes/http.py there would shadow the standard library's `http`).
FIXTURE_ARGS: tuple[str, ...] = ("-P", str(FIXTURE_SERVER))


def fixture_server(*args: str, **options: Any) -> dict[str, Any]:
    """An `[mcp.servers.NAME]` table running the fixture server over stdio with `args`."""
    return {"command": sys.executable, "args": [*FIXTURE_ARGS, *args], **options}
