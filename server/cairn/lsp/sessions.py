"""The workspace's sessions: `cairn/sessions`, `cairn/newSession`, `cairn/fork`,
`cairn/deleteSession`, `cairn/transcript` (a session's turns for the chat) and
`cairn/restore` (back to before a turn).

Fork, delete and restore name their session explicitly: an omitted `sessionId`
is InvalidParams, never the active session.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cairn.lsp import contract
from cairn.lsp.params import (
    EmptyParams,
    ForkParams,
    NamedSessionParams,
    RestoreParams,
    SessionParams,
)
from cairn.lsp.rpc import cairn_request
from cairn.models.events import (
    DeleteSessionResult,
    ForkResult,
    NewSessionResult,
    RestoreResult,
    SessionsResult,
)

if TYPE_CHECKING:
    from cairn.agent.api import EngineApi
    from cairn.lsp.server import CairnServer
    from cairn.models.transcript import Transcript


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


@cairn_request(contract.NEW_SESSION)
def new_session(ls: CairnServer, engine: EngineApi, params: EmptyParams) -> NewSessionResult:
    return NewSessionResult(session_id=engine.new_session())


@cairn_request(contract.TRANSCRIPT)
def transcript(ls: CairnServer, engine: EngineApi, params: SessionParams) -> Transcript:
    return engine.transcript(params.session_id)


@cairn_request(contract.RESTORE)
async def restore(ls: CairnServer, engine: EngineApi, params: RestoreParams) -> RestoreResult:
    return await engine.restore(
        params.session_id, params.turn_id, files=params.files, conversation=params.conversation
    )
