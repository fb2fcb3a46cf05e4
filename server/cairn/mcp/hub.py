"""Every MCP server of one engine: those of the settings, and those a session added.

`McpHub` keeps one `McpConnection` per server. The servers of the settings
(`mcp.servers`) are shared by every session and follow the settings: a
server added, removed or changed there is started, stopped or restarted the
next time the hub is asked. A front end may add servers for one session
(`set_session_servers`: an ACP client's `mcpServers`); they are seen by that
session only (over a configured server of the same name), their values are
used as given (no `${VAR}` expansion: the client resolved them), and they
stop when the session's list drops them or the session is dropped. `catalog(session_id)` starts what is not started yet
and waits for each server's first attempt (bounded by its startup timeout),
then returns an `McpCatalog`: the tools of the servers that are ready and
the state and reason of every other one. `snapshot` is the same without
starting anything (for a build that cannot wait, such as a dry run from the
editor). `control` is the user's action on one server: `restart` it now
(a failed one too), `disable` it (stopped and left out, for this engine's
life) or `enable` it again. `aclose` stops every server and waits for its process to end, killing what is
left after `STOP_TIMEOUT_S`. Every server's status changes go to the hub's
`on_status` (the engine's listener: a terminal line, the editor's
`cairn/mcpStatus`); a server's questions to the user go to `elicitor` (the
front end's, when it can ask: `cairn.mcp.elicitation`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from cairn.errors import InvalidRequestError
from cairn.mcp.connection import STOP_TIMEOUT_S, McpConnection
from cairn.mcp.elicitation import Caller, Elicitor
from cairn.mcp.state import McpCallError, ServerStatus, StatusListener
from cairn.mcp.tools import McpToolSpec
from cairn.settings import McpServerSettings, SettingsRef

if TYPE_CHECKING:
    import mcp_types


@dataclass(frozen=True)
class McpCatalog:
    """The MCP side of one turn: the servers' states and the tools of those that are ready."""

    session_id: str | None
    servers: tuple[ServerStatus, ...] = ()
    hub: McpHub | None = field(default=None, repr=False, compare=False)

    @property
    def tools(self) -> list[McpToolSpec]:
        """The tools of the ready servers, sorted by namespaced name."""
        specs = [spec for status in self.servers for spec in status.tools]
        return sorted(specs, key=lambda s: s.name)

    @property
    def unavailable(self) -> list[ServerStatus]:
        """Enabled servers that are not ready (disabled ones are left out)."""
        return [s for s in self.servers if s.state not in ("ready", "disabled")]

    def _hub(self) -> McpHub:
        if self.hub is None:
            raise McpCallError("MCP servers are not available here")
        return self.hub

    async def call_tool(
        self, spec: McpToolSpec, arguments: dict[str, Any], call_id: str | None = None
    ) -> mcp_types.CallToolResult:
        """Call one tool for this catalog's session (`call_id`: the model's tool call)."""
        hub = self._hub()
        return await hub.call_tool(self.session_id, spec.server, spec.tool, arguments, call_id)

    async def read_resource(self, server: str, uri: str) -> mcp_types.ReadResourceResult:
        return await self._hub().read_resource(self.session_id, server, uri)


EMPTY_CATALOG = McpCatalog(session_id=None)

McpAction = Literal["restart", "disable", "enable"]


class McpHub:
    """The MCP servers of one engine (see the module docstring)."""

    def __init__(
        self,
        config: SettingsRef,
        root: Path,
        on_status: StatusListener | None = None,
        elicitor: Elicitor | None = None,
    ) -> None:
        self.config = config
        self.root = root
        self.on_status = on_status
        self.elicitor = elicitor
        self._configured: dict[str, McpConnection] = {}
        self._sessions: dict[str, dict[str, McpConnection]] = {}
        self._retired: list[McpConnection] = []
        # Servers the user disabled for this engine's life (`control`), by name.
        self._disabled: set[str] = set()

    # -- which servers ---------------------------------------------------------

    def _reconcile(self) -> None:
        """Follow the settings: start tracking new servers, retire removed or changed ones."""
        wanted = self.config.current.mcp.servers
        for name, conn in list(self._configured.items()):
            if wanted.get(name) != conn.settings or self._stale(conn):
                self._retire(self._configured.pop(name))
        for name, settings in wanted.items():
            if name not in self._configured:
                self._configured[name] = self._connection_for(name, settings)

    def _connection_for(
        self, name: str, settings: McpServerSettings, session_id: str | None = None
    ) -> McpConnection:
        return McpConnection(
            name,
            settings,
            self.root,
            "settings" if session_id is None else "session",
            session_id=session_id,
            on_status=self.on_status,
            disabled_here=name in self._disabled,
            elicitor=self.elicitor,
        )

    def _stale(self, conn: McpConnection) -> bool:
        """Whether the user disabled or enabled it since it was made."""
        return conn.disabled_here != (conn.name in self._disabled)

    def _retire(self, conn: McpConnection) -> None:
        conn.stop()
        self._retired = [c for c in self._retired if not c.finished] + [conn]

    def _servers(self, session_id: str | None) -> dict[str, McpConnection]:
        self._reconcile()
        servers = dict(self._configured)
        if session_id is not None:
            servers.update(self._sessions.get(session_id, {}))
        return dict(sorted(servers.items()))

    def set_session_servers(
        self, session_id: str, servers: Mapping[str, McpServerSettings]
    ) -> None:
        """The servers of one session only: those it had and `servers` keeps run on; changed
        and dropped ones stop; new ones start when a turn first needs them."""
        own = self._sessions.setdefault(session_id, {})
        for name in [n for n, conn in own.items() if servers.get(n) != conn.settings]:
            self._retire(own.pop(name))
        for name, settings in servers.items():
            if name not in own:
                own[name] = self._connection_for(name, settings, session_id)
        if not own:
            del self._sessions[session_id]

    def drop_session(self, session_id: str) -> None:
        """Stop the servers a session added."""
        for conn in self._sessions.pop(session_id, {}).values():
            self._retire(conn)

    def configured(self, session_id: str | None = None) -> bool:
        """Whether any server is configured for `session_id` (cheap: starts nothing)."""
        return bool(self.config.current.mcp.servers) or bool(self._sessions.get(session_id or ""))

    # -- catalogs --------------------------------------------------------------

    async def catalog(self, session_id: str | None = None, *, fresh: bool = True) -> McpCatalog:
        """Start the servers that are not started and return what they offer (`fresh`: with
        tool listings read again where stale; else as they are)."""
        servers = self._servers(session_id)
        statuses = await asyncio.gather(
            *(conn.wait_started(relist=fresh) for conn in servers.values() if conn.enabled)
        )
        by_name = {s.name: s for s in statuses}
        ordered = [by_name.get(name) or conn.status() for name, conn in servers.items()]
        return McpCatalog(session_id=session_id, servers=tuple(ordered), hub=self)

    def snapshot(self, session_id: str | None = None) -> McpCatalog:
        """What the servers offer now, starting nothing."""
        servers = self._servers(session_id)
        statuses = tuple(conn.status() for conn in servers.values())
        return McpCatalog(session_id=session_id, servers=statuses, hub=self)

    async def control(self, name: str, action: McpAction, session_id: str | None = None) -> None:
        """Restart, disable or enable the server `name` of `session_id` (see the module
        docstring); a restarted or enabled server is started now."""
        conn = self._servers(session_id).get(name)
        if conn is None:
            raise InvalidRequestError(f"no MCP server named {name!r} is configured")
        if action == "disable":
            self._disabled.add(name)
        elif action == "enable":
            self._disabled.discard(name)
        own = self._configured if conn.session_id is None else self._sessions[conn.session_id]
        self._retire(own.pop(name))
        fresh = own[name] = self._connection_for(name, conn.settings, conn.session_id)
        if action != "disable":
            await fresh.wait_started()

    # -- calls -----------------------------------------------------------------

    def _connection(self, session_id: str | None, server: str) -> McpConnection:
        conn = self._servers(session_id).get(server)
        if conn is None:
            raise McpCallError(f"no MCP server named {server!r} is configured")
        return conn

    async def call_tool(
        self,
        session_id: str | None,
        server: str,
        tool: str,
        arguments: dict[str, Any],
        call_id: str | None = None,
    ) -> mcp_types.CallToolResult:
        conn = self._connection(session_id, server)
        return await conn.call_tool(tool, arguments, Caller(session_id, call_id))

    async def read_resource(
        self, session_id: str | None, server: str, uri: str
    ) -> mcp_types.ReadResourceResult:
        return await self._connection(session_id, server).read_resource(uri, Caller(session_id))

    # -- stopping --------------------------------------------------------------

    def _all(self) -> list[McpConnection]:
        sessions = [c for own in self._sessions.values() for c in own.values()]
        return [*self._configured.values(), *sessions, *self._retired]

    def close(self) -> None:
        """Ask every server to stop (their processes end while the event loop runs)."""
        for conn in self._all():
            conn.stop()

    async def aclose(self, timeout: float = STOP_TIMEOUT_S) -> None:
        """Stop every server and wait until each is gone: together, at most `timeout` s, after
        which what is left of each is killed (and logged, by name)."""
        connections = self._all()
        self._configured, self._sessions, self._retired = {}, {}, []
        await asyncio.gather(*(conn.aclose(timeout) for conn in connections))
