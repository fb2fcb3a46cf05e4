"""Session lifecycle: session/new, load, resume, fork, list, delete, close, set_mode.

- `cwd` is the workspace root (an existing folder); `additionalDirectories`
  join it as more workspace folders. The folders are per engine, so sessions
  of one root in one `cairn acp` process see the union of the folders asked
  for so far.
- `mcpServers` become the session's own MCP servers (`mcp_servers.py`:
  stdio and HTTP; others are left out and reported), beside those of the
  root's `cairn.toml`; each new, load, resume or fork sets the session's
  list (servers left out stop), and `session/close` stops them.
- new, load, resume and fork answer the session's modes (build / plan /
  review, `plan.py`); the mode a client sets applies from the next prompt.
- `session/load` replays the whole recorded conversation (`replay.py`), then
  the plan, then a `usage_update`, before it answers. New, resumed and forked
  sessions get the `usage_update` (a dry-run context build) right after the
  answer, and the settings problems of their root (and of their MCP servers)
  as an agent message; a loaded session gets the MCP notes before the replay.
  The first session of an untrusted root asks the client whether to trust it
  first (`trust.py`).
- `session/list` pages (`LIST_PAGE_SIZE`) through the sessions of `cwd`, or
  of every root served so far, newest first; the cursor is opaque.
- `session/delete` of an unknown session succeeds (ACP asks for that);
  `session/close` cancels the running prompt and forgets the session here
  (its record stays).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from cairn.acp.handling import bind
from cairn.acp.mcp_servers import session_servers
from cairn.acp.plan import MODES, modes_state, plan_update
from cairn.acp.replay import replay_updates
from cairn.acp.rpc import Handler
from cairn.acp.schema import (
    ListSessionsParams,
    NewSessionParams,
    SessionParams,
    SessionWorkspaceParams,
    SetModeParams,
    WorkspaceParams,
)
from cairn.acp.server import AcpSession
from cairn.acp.updates import chunk, usage_update
from cairn.errors import UnknownSessionError
from cairn.frontends.codes import INVALID_PARAMS
from cairn.frontends.faults import RpcError

if TYPE_CHECKING:
    from cairn.acp.server import AcpServer
    from cairn.agent.api import EngineApi
    from cairn.settings import Mode

logger = logging.getLogger(__name__)

LIST_PAGE_SIZE = 50
SETTINGS_PREFIX = "Cairn settings: "
MCP_PREFIX = "Cairn MCP: "


def _folders(params: WorkspaceParams) -> tuple[Path, list[Path]]:
    root = Path(params.cwd).resolve()
    extra = [Path(d).resolve() for d in params.additional_directories]
    for folder in [root, *extra]:
        if not folder.is_dir():
            raise RpcError(INVALID_PARAMS, f"{folder} is not a folder")
    return root, [f for f in extra if f != root]


class SessionHandlers:
    """The lifecycle handlers of one connection."""

    def __init__(self, server: AcpServer) -> None:
        self.server = server

    async def _engine(self, params: WorkspaceParams) -> tuple[EngineApi, Path, list[Path]]:
        root, extra = _folders(params)
        engine = await self.server.engines.get(root)
        if extra:
            known = engine.workspace.folders
            engine.set_folders([*known, *(f for f in extra if f not in known)])
        return engine, root, extra

    def _open(
        self,
        session_id: str,
        engine: EngineApi,
        root: Path,
        extra: list[Path],
        params: WorkspaceParams,
    ) -> AcpSession:
        if session_id in self.server.sessions and self.server.turns.running(session_id):
            raise RpcError(INVALID_PARAMS, f"session {session_id} is running a prompt here")
        session = AcpSession(
            id=session_id,
            engine=engine,
            root=root,
            mode=engine.settings.mode,
            directories=extra,
            title=engine.session_meta(session_id).title,
        )
        self.server.sessions[session_id] = session
        servers, session.mcp_notes = session_servers(params.mcp_servers)
        for note in session.mcp_notes:
            logger.warning("session %s: %s", session_id, note)
        engine.set_mcp_servers(session_id, servers)
        return session

    def _tell_mcp(self, session: AcpSession) -> None:
        for note in session.mcp_notes:
            self.server.send(session.id, chunk("agent_message_chunk", MCP_PREFIX + note + "\n"))

    def _greet(self, session: AcpSession) -> None:
        """After the answer: the question on the root's trust (on its first use), then the
        settings problems of the root, the MCP servers left out or renamed, and the context's
        usage."""

        async def greet() -> None:
            await self.server.trust.settle(session)  # its root's first use asks (trust.py)
            for problem in self.server.engines.problems.get(session.root, []):
                self.server.send(
                    session.id, chunk("agent_message_chunk", SETTINGS_PREFIX + problem + "\n")
                )
            self._tell_mcp(session)
            await self.send_usage(session)

        task = asyncio.ensure_future(greet())
        task.add_done_callback(lambda t: t.cancelled() or t.exception())

    async def send_usage(self, session: AcpSession) -> None:
        try:
            stats = await session.engine.context_stats(session.id)
        except Exception as error:  # a model without a window, a broken workspace: no meter
            logger.info("no usage for %s: %s", session.id, error)
            return
        self.server.listener.last_stats[session.id] = stats
        self.server.send(session.id, usage_update(stats, self.server.listener.cost(session.id)))

    def _answer(self, session: AcpSession, **extra: Any) -> dict[str, Any]:
        return {**extra, "modes": modes_state(session.mode)}

    async def new(self, params: NewSessionParams) -> dict[str, Any]:
        engine, root, extra = await self._engine(params)
        session = self._open(engine.new_session(), engine, root, extra, params)
        self._greet(session)
        return self._answer(session, sessionId=session.id)

    async def load(self, params: SessionWorkspaceParams) -> dict[str, Any]:
        engine, root, extra = await self._engine(params)
        session_id = engine.session_meta(params.session_id).id
        session = self._open(session_id, engine, root, extra, params)
        self._tell_mcp(session)
        locate = self.server.locate(session_id)
        client = self.server.client
        history = engine.messages(session_id)
        for update in replay_updates(
            history, locate, client.compaction_updates, client.current_schema
        ):
            self.server.send(session_id, update)
        view = engine.goal_tree(session_id)
        if view.tree.goals:
            self.server.send(
                session_id, plan_update(view.tree, self.server.client.plan is not None)
            )
        await self.send_usage(session)
        return self._answer(session)

    async def resume(self, params: SessionWorkspaceParams) -> dict[str, Any]:
        engine, root, extra = await self._engine(params)
        session = self._open(engine.session_meta(params.session_id).id, engine, root, extra, params)
        self._greet(session)
        return self._answer(session)

    async def fork(self, params: SessionWorkspaceParams) -> dict[str, Any]:
        engine, root, extra = await self._engine(params)
        child = engine.fork(engine.session_meta(params.session_id).id)
        session = self._open(child, engine, root, extra, params)
        self._greet(session)
        return self._answer(session, sessionId=child)

    async def list(self, params: ListSessionsParams) -> dict[str, Any]:
        if params.cwd is not None:
            roots = [Path(params.cwd).resolve()]
            engines = [await self.server.engines.get(roots[0])] if roots[0].is_dir() else []
        else:
            engines = self.server.engines.all()
        rows: list[dict[str, Any]] = []
        for engine in engines:
            for info in engine.sessions():
                row: dict[str, Any] = {
                    "sessionId": info.session_id,
                    "cwd": str(engine.workspace.root),
                    "title": info.title or None,
                    "updatedAt": info.updated_at,
                    "_meta": {"cairn": {"turns": info.turns, "parentId": info.parent_id}},
                }
                session = self.server.sessions.get(info.session_id)
                if session is not None and session.directories:
                    row["additionalDirectories"] = [str(d) for d in session.directories]
                rows.append(row)
        rows.sort(key=lambda r: r["updatedAt"], reverse=True)
        start = _offset(params.cursor)
        page = rows[start : start + LIST_PAGE_SIZE]
        answer: dict[str, Any] = {"sessions": page}
        if start + LIST_PAGE_SIZE < len(rows):
            answer["nextCursor"] = _cursor(start + LIST_PAGE_SIZE)
        return answer

    def _stop(self, session_id: str) -> AcpSession | None:
        session = self.server.sessions.pop(session_id, None)
        if session is not None:
            self.server.turns.cancel(session_id)
        return session

    async def delete(self, params: SessionParams) -> dict[str, Any]:
        session = self._stop(params.session_id)
        engines = [session.engine] if session is not None else self.server.engines.all()
        for engine in engines:
            try:
                engine.delete_session(params.session_id)
                break
            except UnknownSessionError:
                continue
        return {}

    async def close(self, params: SessionParams) -> dict[str, Any]:
        session = self._stop(params.session_id)
        if session is None:
            self.server.session(params.session_id)  # raises: not open here
        else:
            session.engine.set_mcp_servers(session.id, {})  # its MCP servers stop
        return {}

    async def set_mode(self, params: SetModeParams) -> dict[str, Any]:
        session = self.server.session(params.session_id)
        if params.mode_id not in MODES:
            raise RpcError(
                INVALID_PARAMS,
                f"session/set_mode: unknown mode {params.mode_id!r} (modes: {', '.join(MODES)})",
            )
        session.mode = cast("Mode", params.mode_id)
        return {}


def _cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(f"cairn:{offset}".encode()).decode()


def _offset(cursor: str | None) -> int:
    if cursor is None:
        return 0
    try:
        text = base64.urlsafe_b64decode(cursor.encode()).decode()
        prefix, _, number = text.partition(":")
        if prefix == "cairn" and number.isdigit():
            return int(number)
    except (binascii.Error, UnicodeDecodeError, ValueError):
        pass
    raise RpcError(INVALID_PARAMS, f"session/list: invalid cursor {cursor!r}")


def requests(server: AcpServer) -> dict[str, Handler]:
    handlers = SessionHandlers(server)
    return {
        "session/new": bind("session/new", NewSessionParams, handlers.new),
        "session/load": bind("session/load", SessionWorkspaceParams, handlers.load),
        "session/resume": bind("session/resume", SessionWorkspaceParams, handlers.resume),
        "session/fork": bind("session/fork", SessionWorkspaceParams, handlers.fork),
        "session/list": bind("session/list", ListSessionsParams, handlers.list),
        "session/delete": bind("session/delete", SessionParams, handlers.delete),
        "session/close": bind("session/close", SessionParams, handlers.close),
        "session/set_mode": bind("session/set_mode", SetModeParams, handlers.set_mode),
    }
