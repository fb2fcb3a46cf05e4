"""`cairn/sessions`, `cairn/fork`, `cairn/deleteSession`: the workspace's sessions.

Fork and delete name their session explicitly (`NamedSessionParams`): an omitted
`sessionId` is InvalidParams, never the active session.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cairn.lsp import contract
from cairn.lsp.params import EmptyParams, ForkParams, NamedSessionParams
from cairn.lsp.rpc import cairn_request
from cairn.models.events import DeleteSessionResult, ForkResult, SessionsResult

if TYPE_CHECKING:
    from cairn.agent.api import EngineApi
    from cairn.lsp.server import CairnServer


def fork_session(engine: EngineApi, params: ForkParams) -> ForkResult:
    """The new session, forked from the named one."""
    return ForkResult(session_id=engine.fork(params.session_id, params.at_message_id))


@cairn_request(contract.SESSIONS)
def sessions(ls: CairnServer, engine: EngineApi, params: EmptyParams) -> SessionsResult:
    return SessionsResult(sessions=list(engine.sessions()))


@cairn_request(contract.FORK)
def fork(ls: CairnServer, engine: EngineApi, params: ForkParams) -> ForkResult:
    return fork_session(engine, params)


@cairn_request(contract.DELETE_SESSION)
def delete_session(
    ls: CairnServer, engine: EngineApi, params: NamedSessionParams
) -> DeleteSessionResult:
    engine.delete_session(params.session_id)
    return DeleteSessionResult()
