"""What `cairn acp` tells the client in its `initialize` answer.

ACP v1. Sessions can be loaded (history replayed), resumed, listed, deleted,
closed and forked, with additional workspace folders. Prompts take text,
resource links and embedded resources (no images or audio: Cairn's
prompts are text). No authentication: the model's provider key is read
from the environment variable the settings name. MCP servers a client
passes may be stdio or HTTP ones (`mcpCapabilities.http`), not SSE.
Cairn's own methods are listed under `_meta.cairn.methods`.

Version negotiation (ACP's rule): an agent answers the version the client
asked for when it speaks it, else the latest it speaks; Cairn speaks
`SUPPORTED_VERSIONS` (v1), and a client that cannot take the answer closes
the connection. What a v1 client gets beyond the baseline follows its
capabilities (`schema.ClientCapabilities`): `notice` updates with
`session.notices`, `compaction_update` with `session.compaction`, and
`$/cancel_request` and tool-call `name` with either (`current_schema`), an
MCP server's questions (`elicitation/create`) with `elicitation`.
"""

from __future__ import annotations

from typing import Any

from cairn import __version__
from cairn.acp.extensions import EXTENSIONS
from cairn.acp.schema import PROTOCOL_VERSION

# The ACP protocol versions Cairn speaks, oldest first.
SUPPORTED_VERSIONS = (PROTOCOL_VERSION,)
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


def negotiate(requested_version: int) -> int:
    """The version to answer: the client's when Cairn speaks it, else Cairn's latest."""
    return requested_version if requested_version in SUPPORTED_VERSIONS else SUPPORTED_VERSIONS[-1]


def initialize_result(version: int) -> dict[str, Any]:
    """The answer to `initialize`: the negotiated version (`negotiate`) and capabilities."""
    return {
        "protocolVersion": version,
        "agentCapabilities": agent_capabilities(),
        "agentInfo": {"name": AGENT_NAME, "title": AGENT_TITLE, "version": __version__},
        "authMethods": [],
    }
