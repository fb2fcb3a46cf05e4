"""The ACP agent: one client connection, its sessions and the engines they run on.

`AcpServer` holds what the handlers share: the client's capabilities (from
`initialize`), the engines by workspace root (`engines.py`), the first-use
question on a root's trust (`trust.py`), the sessions
this connection opened (each with its engine and mode), their running
prompts' turns (`cairn.frontends.turns.RunningTurns`), the engine's listener (`listener.py`) and its editor callbacks served by the
client (`client.py`; an MCP server's questions: `elicitation.py`). Handlers live in `sessions.py`, `prompt.py` and
`extensions.py`; they only translate. Session methods before `initialize`
are Invalid Request, as the protocol requires initializing first. Messages
are read up to the `max_message_bytes` setting of the folder it starts in
(64 MiB by default), the language server's limit.
`serve_stdio` runs it over a pipe pair until the client closes stdin or a
stop signal arrives (SIGTERM, SIGINT, SIGHUP: `cairn.stop_signals`); the
turns are recorded and the engines' MCP servers stopped (their processes
gone) before it returns.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from cairn.acp.capabilities import initialize_result, negotiate
from cairn.acp.client import ClientBridge
from cairn.acp.elicitation import ClientElicitor
from cairn.acp.engines import Engines
from cairn.acp.handling import bind
from cairn.acp.listener import AcpListener
from cairn.acp.rpc import Connection, Handler
from cairn.acp.schema import ClientCapabilities, InitializeParams
from cairn.acp.trust import TrustAsker
from cairn.errors import CairnError, UnknownSessionError
from cairn.frontends.codes import INVALID_REQUEST
from cairn.frontends.faults import RpcError
from cairn.frontends.settings_fallback import settings_with_fallback
from cairn.frontends.turns import RunningTurns
from cairn.stop_signals import exit_code, on_stop_signals

if TYPE_CHECKING:
    from cairn.agent.api import EngineApi
    from cairn.settings import Mode, Settings

logger = logging.getLogger(__name__)

SESSION_UPDATE = "session/update"


@dataclass
class AcpSession:
    """A session this connection opened: its engine and what runs in it."""

    id: str
    engine: EngineApi
    root: Path
    mode: Mode
    directories: list[Path] = field(default_factory=list)
    title: str = ""
    # What the user is told about the session's MCP servers (left out, renamed).
    mcp_notes: list[str] = field(default_factory=list)


class AcpServer:
    """State shared by the handlers of one connection (see the module docstring)."""

    def __init__(self) -> None:
        self.client = ClientCapabilities()
        self.initialized = False
        self.sessions: dict[str, AcpSession] = {}
        self.bridge = ClientBridge(self)
        self.listener = AcpListener(self)
        self.trust = TrustAsker(self)
        self.engines = Engines(self._build_engine)
        self.conn: Connection | None = None
        # The engine turns of running prompts (a cancelled prompt's turn still records its end).
        self.turns = RunningTurns()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: int | None = None

    def _build_engine(self, root: Path, settings: Settings) -> EngineApi:
        from cairn.agent.engine import Engine

        return Engine(
            [root],
            settings,
            listener=self.listener,
            approver=self.bridge.approve,
            apply_edit=self.bridge.apply_edit,
            read_text=self.bridge.read_text,
            run_command=self.bridge.run_command,
            elicitor=ClientElicitor(self) if self.client.elicits else None,
        )

    # -- sending -------------------------------------------------------------------
    def call_on_loop(self, fn: Callable[[], None]) -> None:
        """Run `fn` on the event loop's thread (now when already there)."""
        if self._loop is None or threading.get_ident() == self._loop_thread:
            fn()
        else:
            self._loop.call_soon_threadsafe(fn)

    def send(self, session_id: str, update: dict[str, Any]) -> None:
        """One `session/update` to the client, from any thread, in the order sent."""
        conn = self.conn
        if conn is None:
            return
        params = {"sessionId": session_id, "update": update}
        self.call_on_loop(lambda: conn.notify(SESSION_UPDATE, params))

    def tell(self, session_id: str, update: dict[str, Any]) -> bool:
        """A `notice` (`notices.py`) to the client when it takes them (`session.notices`);
        whether it was sent. Logged either way."""
        logger.info("notice to %s: %s", session_id, update.get("title"))
        if not self.client.notices:
            return False
        self.send(session_id, update)
        return True

    # -- sessions ------------------------------------------------------------------
    def session(self, session_id: str) -> AcpSession:
        session = self.sessions.get(session_id)
        if session is None:
            raise UnknownSessionError(session_id)  # Invalid params (the error map)
        return session

    def locate(self, session_id: str) -> Callable[[str], Path | None]:
        """Workspace-relative path → absolute path in the session's workspace (None outside)."""
        session = self.sessions.get(session_id)

        def resolve(ref: str) -> Path | None:
            if session is None:
                return None
            try:
                return session.engine.workspace.resolve(ref)
            except CairnError:
                return None

        return resolve

    def require_initialized(self, method: str) -> None:
        if not self.initialized:
            raise RpcError(INVALID_REQUEST, f"{method}: send initialize first")

    # -- the connection ------------------------------------------------------------
    async def initialize(self, params: InitializeParams) -> dict[str, Any]:
        self.client = params.client_capabilities
        self.initialized = True
        self.engines.preload()
        version = negotiate(params.protocol_version)
        if version != params.protocol_version:
            logger.warning(
                "the client asked for ACP v%s; answering v%s", params.protocol_version, version
            )
        if self.conn is not None:
            self.conn.cancels_requests = self.client.current_schema
        info = params.client_info
        logger.info(
            "client %s %s (fs read %s, write %s, terminal %s, current schema %s, notices %s)",
            info.name if info else "?",
            (info.version or "") if info else "",
            self.client.fs.read_text_file,
            self.client.fs.write_text_file,
            self.client.terminal,
            self.client.current_schema,
            self.client.notices,
        )
        return initialize_result(version)

    def methods(self) -> tuple[dict[str, Handler], dict[str, Handler]]:
        """(requests, notifications) of the connection."""
        from cairn.acp import extensions, prompt, sessions

        after_initialize = {
            **sessions.requests(self),
            **prompt.requests(self),
            **extensions.requests(self),
        }
        requests: dict[str, Handler] = {
            "initialize": bind("initialize", InitializeParams, self.initialize),
            **{name: self._guarded(name, fn) for name, fn in after_initialize.items()},
        }
        return requests, prompt.notifications(self)

    def _guarded(self, method: str, handler: Handler) -> Handler:
        async def guarded(params: Any) -> Any:
            self.require_initialized(method)
            return await handler(params)

        return guarded

    async def stop_then_cancel(self, serving: asyncio.Task[Any]) -> None:
        """Stop the running turns (each prompt answers `cancelled`), then cancel `serving`."""
        await self.turns.stop_all()
        serving.cancel()

    async def serve(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, max_bytes: int
    ) -> None:
        """Serve one client (messages up to `max_bytes`) until it closes its end; then stop the
        turns (each records its end: `stop_tasks`, bounded) and the engines."""
        self._loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()
        requests, notifications = self.methods()
        self.conn = Connection(reader, writer, requests, notifications, max_bytes)
        try:
            await self.conn.serve()
        finally:
            left = await self.turns.stop_all()  # every running prompt's turn is in it
            if left:
                logger.warning("%d turn(s) did not stop in time; closing the engines", len(left))
            await self.engines.aclose()


def message_limit(root: Path) -> int:
    """The longest message read: the `max_message_bytes` setting of the folder `cairn acp`
    starts in (its defaults when its cairn.toml does not validate)."""
    return settings_with_fallback(root)[0].max_message_bytes


async def stdio_streams(
    stdin: IO[bytes], stdout: IO[bytes], max_bytes: int
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """Asyncio streams over the process's stdin and the protocol's stdout (pipes)."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=max_bytes)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), stdin)
    transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, stdout)
    writer = asyncio.StreamWriter(transport, protocol, reader, loop)
    return reader, writer


async def serve_stdio(stdin: IO[bytes], stdout: IO[bytes]) -> int:
    """Serve until the client closes stdin (0) or a stop signal N arrives (128 + N): either
    way the turns are recorded and the MCP servers stopped before it returns."""
    task = asyncio.current_task()
    assert task is not None
    max_bytes = message_limit(Path.cwd())
    reader, writer = await stdio_streams(stdin, stdout, max_bytes)
    server = AcpServer()
    stopping: list[asyncio.Future[None]] = []

    def stop(_: int) -> None:  # the prompts answer `cancelled` before the connection ends
        stopping.append(asyncio.ensure_future(server.stop_then_cancel(task)))

    with on_stop_signals(asyncio.get_running_loop(), stop) as received:
        try:
            await server.serve(reader, writer, max_bytes)
        except asyncio.CancelledError:
            if not received:
                raise
            task.uncancel()
            return exit_code(received[0])
    return 0
