"""The MCP side of the engine facade (`EngineMcp`, a base of `Engine`).

A session's own servers (an ACP client's `mcpServers`), the servers'
statuses (started now if needed), their `McpReport` for the editor (the
shape of `cairn mcp list --json`: tools counted with the session's model,
whether their schemas are deferred), the user's action on one server
(`restart`, `disable`, `enable`) and the catalog a context request of the
editor uses: the servers started before the first manifest or stats it
asks for (lazily: not when Cairn starts), so the meter counts their schemas;
listings are not read again for it (a turn does that).
"""

from __future__ import annotations

from collections.abc import Mapping

from cairn.agent.progress import STARTING_STATES
from cairn.agent.scope.offer import model_input_tokens
from cairn.agent.sessions.book import SessionBook
from cairn.agent.sessions.session import Session, session_model
from cairn.mcp import McpCatalog, McpHub, ServerStatus
from cairn.mcp.hub import McpAction
from cairn.mcp.view import mcp_report
from cairn.models.mcp_status import McpReport
from cairn.settings import McpServerSettings, SettingsRef


class EngineMcp:
    """What `Engine` does with MCP servers (see the module docstring)."""

    mcp: McpHub
    config: SettingsRef
    book: SessionBook

    def _mcp_model(self, session: Session) -> str | None:
        return session_model(None, self.config.current.model, session.meta())

    def set_mcp_servers(
        self, session_id: str | None, servers: Mapping[str, McpServerSettings]
    ) -> None:
        """The MCP servers of one session only (an ACP client's `mcpServers`): new ones start
        when a turn of that session first needs them; those left out, and all of them when
        the session is deleted, stop."""
        self.mcp.set_session_servers(self.book.get(session_id).id, servers)

    async def mcp_servers(self, session_id: str | None = None) -> list[ServerStatus]:
        """Every MCP server of the session (started now if needed): state, reason, tools."""
        catalog = await self.mcp.catalog(self.book.get(session_id).id)
        return list(catalog.servers)

    def mcp_report(self, session_id: str | None = None) -> McpReport:
        """Every MCP server of the session as it is now (starting none), counted."""
        session = self.book.get(session_id)
        statuses = self.mcp.snapshot(session.id).servers
        model, settings = self._mcp_model(session), self.config.current
        window = model_input_tokens(model, settings) if model is not None else None
        return mcp_report(statuses, model, settings, window)

    async def mcp_control(
        self, name: str, action: McpAction, session_id: str | None = None
    ) -> McpReport:
        """Restart, disable or enable one server of the session; the report after it."""
        await self.mcp.control(name, action, self.book.get(session_id).id)
        return self.mcp_report(session_id)

    def mcp_starting(self, session: Session) -> bool:
        """Whether a context request of the editor would wait for a server to start."""
        return any(s.state in STARTING_STATES for s in self.mcp.snapshot(session.id).servers)

    async def context_catalog(self, session: Session) -> McpCatalog:
        """The servers a context request of the editor counts: started if not yet."""
        return await self.mcp.catalog(session.id, fresh=False)
