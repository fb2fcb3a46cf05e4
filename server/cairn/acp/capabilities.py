"""What `cairn acp` tells the client in its `initialize` answer.

ACP v1. Sessions can be loaded (history replayed), resumed, listed, deleted,
closed and forked, with additional workspace folders. Prompts take text,
resource links and embedded resources (no images or audio: Cairn's
prompts are text). No authentication: the model's provider key is read
from the environment variable the settings name. MCP servers a client
passes may be stdio or HTTP ones (`mcpCapabilities.http`), not SSE.
Cairn's own methods are listed under `_meta.cairn.methods`.
"""

from __future__ import annotations

from typing import Any

from cairn import __version__
from cairn.acp.extensions import EXTENSIONS
from cairn.acp.schema import PROTOCOL_VERSION

AGENT_NAME = "cairn"
AGENT_TITLE = "Cairn"


def agent_capabilities() -> dict[str, Any]:
    return {
        "loadSession": True,
        "promptCapabilities": {"image": False, "audio": False, "embeddedContext": True},
        "mcpCapabilities": {"http": True, "sse": False},
        "sessionCapabilities": {
            "list": {},
            "delete": {},
            "resume": {},
            "close": {},
            "fork": {},
            "additionalDirectories": {},
        },
        "_meta": {"cairn": {"methods": list(EXTENSIONS)}},
    }


def initialize_result(requested_version: int) -> dict[str, Any]:
    """The answer to `initialize`: our version (the client's when we speak it) and capabilities."""
    del requested_version  # Cairn speaks v1 only; a client asking for another gets v1 back
    return {
        "protocolVersion": PROTOCOL_VERSION,
        "agentCapabilities": agent_capabilities(),
        "agentInfo": {"name": AGENT_NAME, "title": AGENT_TITLE, "version": __version__},
        "authMethods": [],
    }
