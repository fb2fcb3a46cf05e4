"""`cairn/mcpServers` and `cairn/mcpControl`: the MCP servers as the editor's tree shows them.

`cairn/mcpServers` answers every server of the session (`McpReport`: state
and why, how its last process ended, its stderr, restarts, notes, tools with
their schema tokens, hints and permission, and the deferral); `start` starts
those not started yet first (the tree opened before any turn or manifest).
`cairn/mcpControl` restarts, disables or enables one server and answers the
report after it. Every later change comes as `cairn/mcpStatus` (the listener).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cairn.lsp import contract
from cairn.lsp.params import McpControlParams, McpServersParams
from cairn.lsp.rpc import cairn_request

if TYPE_CHECKING:
    from cairn.agent.api import EngineApi
    from cairn.lsp.server import CairnServer
    from cairn.models.mcp_status import McpReport


@cairn_request(contract.MCP_SERVERS)
async def mcp_servers(ls: CairnServer, engine: EngineApi, params: McpServersParams) -> McpReport:
    if params.start:
        await engine.mcp_servers(params.session_id)
    return engine.mcp_report(params.session_id)


@cairn_request(contract.MCP_CONTROL)
async def mcp_control(ls: CairnServer, engine: EngineApi, params: McpControlParams) -> McpReport:
    return await engine.mcp_control(params.name, params.action, params.session_id)
