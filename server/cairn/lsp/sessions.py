"""`cairn/sessions`, `cairn/fork`, `cairn/deleteSession`: the workspace's sessions."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cairn.lsp.params import EmptyParams, ForkParams, SessionParams
from cairn.lsp.rpc import cairn_request

if TYPE_CHECKING:
    from cairn.agent.api import EngineApi
    from cairn.lsp.server import CairnServer

SESSIONS = "cairn/sessions"
FORK = "cairn/fork"
DELETE_SESSION = "cairn/deleteSession"


def fork_session(engine: EngineApi, params: ForkParams) -> dict[str, Any]:
    """`{sessionId}` of the new session (forked from the given or the active one)."""
    source = params.session_id or engine.active_session_id
    return {"sessionId": engine.fork(source, params.at_message_id)}


@cairn_request(SESSIONS, EmptyParams)
def sessions(ls: CairnServer, engine: EngineApi, params: EmptyParams) -> dict[str, Any]:
    return {"sessions": [info.wire() for info in engine.sessions()]}


@cairn_request(FORK, ForkParams)
def fork(ls: CairnServer, engine: EngineApi, params: ForkParams) -> dict[str, Any]:
    return fork_session(engine, params)


@cairn_request(DELETE_SESSION, SessionParams)
def delete_session(ls: CairnServer, engine: EngineApi, params: SessionParams) -> dict[str, Any]:
    engine.delete_session(params.session_id or engine.active_session_id)
    return {"deleted": True}
