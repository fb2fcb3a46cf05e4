"""MCP servers as a tool source (DESIGN §2.8): configuration, lifecycle, tools, results.

Only this package imports the MCP SDK (`mcp`, `mcp_types`), and only when a
server is started: `transport` turns an `[mcp.servers.NAME]` table into a
transport (`stdio`: Cairn's own for stdio servers, with their exit status
and non-protocol output), `attempt` is one start of a server, `connection`
runs one server (lazy start, restart with backoff, stop, status changes) and
`state` its status and restart policy, `listing` its tool listing (ttlMs,
kept when unchanged), `hub` holds every server of an engine (configured and
per-session) and makes the catalog a turn offers, `tools` names and
describes their tools (with the server's hints), `results` turns results
into text, `search` finds deferred tools for `tool_search`, `view` counts
the servers for the user (`cairn mcp list`, the editor), `elicitation`
routes a server's questions to the front end's asker and `forms` reads and
checks their forms.

`from cairn.mcp import McpHub, McpCatalog, McpToolSpec, McpCallError`.
"""

from cairn.mcp.hub import EMPTY_CATALOG, McpCatalog, McpHub
from cairn.mcp.state import McpCallError, ServerStatus
from cairn.mcp.tools import MCP_REF_PREFIX, McpToolSpec, is_mcp_tool

__all__ = [
    "EMPTY_CATALOG",
    "MCP_REF_PREFIX",
    "McpCallError",
    "McpCatalog",
    "McpHub",
    "McpToolSpec",
    "ServerStatus",
    "is_mcp_tool",
]
