"""Every `cairn/*` message of PROTOCOL.md: its method, its params model, its result model.

The one table of the custom protocol. Request handlers are registered from
it (`rpc.cairn_request(contract.TURN)` validates with its params model and
answers with its result model), the extension's TypeScript types are
generated from it (`tools/gen_contracts.py` writes
`client-vscode/src/protocol.ts`), and `docs/PROTOCOL.md` is checked against
it (`tests/unit/test_protocol_doc.py`). Method names come from `methods.py`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, Literal, TypeVar

from pydantic import BaseModel

from cairn.lsp import methods
from cairn.lsp.params import (
    CairnParams,
    DiagnosticsParams,
    EmptyParams,
    ForkParams,
    GoalParams,
    ManifestParams,
    McpControlParams,
    McpServersParams,
    NamedSessionParams,
    ProfileParams,
    RestoreParams,
    SessionParams,
    TurnParams,
)
from cairn.models.base import WireModel
from cairn.models.catalog import ModelCatalog
from cairn.models.events import (
    ApprovalParams,
    ApprovalResult,
    CompactionEvent,
    CompactResult,
    DeleteSessionResult,
    ForkResult,
    GoalTreeView,
    NewSessionResult,
    RestoreResult,
    SessionsResult,
    TurnEvent,
    TurnResult,
)
from cairn.models.manifest import ContextStats, Manifest
from cairn.models.mcp_status import McpReport, McpStatusEvent
from cairn.models.profile import ProjectProfile
from cairn.models.transcript import Transcript

ParamsT = TypeVar("ParamsT", bound=CairnParams, covariant=True)
ResultT = TypeVar("ResultT", bound=WireModel, covariant=True)
Sender = Literal["client", "server"]


@dataclass(frozen=True)
class Request(Generic[ParamsT, ResultT]):
    """A client → server request: validated with `params`, answered with `result`."""

    method: str
    params: type[ParamsT]
    result: type[ResultT]


@dataclass(frozen=True)
class ServerRequest:
    """A server → client request: sent as `params`, answered with `result` (checked)."""

    method: str
    params: type[WireModel]
    result: type[WireModel]


@dataclass(frozen=True)
class Notification:
    """A notification and who sends it; `params` is its one params shape."""

    method: str
    params: type[BaseModel]
    sender: Sender


TURN = Request(methods.TURN, TurnParams, TurnResult)
CONTEXT_STATS = Request(methods.CONTEXT_STATS, SessionParams, ContextStats)
CONTEXT_MANIFEST = Request(methods.CONTEXT_MANIFEST, ManifestParams, Manifest)
GOAL_TREE = Request(methods.GOAL_TREE, SessionParams, GoalTreeView)
GOAL = Request(methods.GOAL, GoalParams, GoalTreeView)
COMPACT = Request(methods.COMPACT, SessionParams, CompactResult)
SESSIONS = Request(methods.SESSIONS, EmptyParams, SessionsResult)
FORK = Request(methods.FORK, ForkParams, ForkResult)
DELETE_SESSION = Request(methods.DELETE_SESSION, NamedSessionParams, DeleteSessionResult)
NEW_SESSION = Request(methods.NEW_SESSION, EmptyParams, NewSessionResult)
TRANSCRIPT = Request(methods.TRANSCRIPT, SessionParams, Transcript)
RESTORE = Request(methods.RESTORE, RestoreParams, RestoreResult)
MODELS = Request(methods.MODELS, EmptyParams, ModelCatalog)
PROJECT_PROFILE = Request(methods.PROJECT_PROFILE, ProfileParams, ProjectProfile)
MCP_SERVERS = Request(methods.MCP_SERVERS, McpServersParams, McpReport)
MCP_CONTROL = Request(methods.MCP_CONTROL, McpControlParams, McpReport)

REQUESTS: tuple[Request[CairnParams, WireModel], ...] = (
    TURN,
    CONTEXT_STATS,
    CONTEXT_MANIFEST,
    GOAL_TREE,
    GOAL,
    COMPACT,
    SESSIONS,
    FORK,
    DELETE_SESSION,
    NEW_SESSION,
    TRANSCRIPT,
    RESTORE,
    MODELS,
    PROJECT_PROFILE,
    MCP_SERVERS,
    MCP_CONTROL,
)

APPROVAL = ServerRequest(methods.APPROVAL, ApprovalParams, ApprovalResult)
SERVER_REQUESTS: tuple[ServerRequest, ...] = (APPROVAL,)

NOTIFICATIONS: tuple[Notification, ...] = (
    Notification(methods.DIAGNOSTICS, DiagnosticsParams, "client"),
    Notification(methods.GOAL_TREE_CHANGED, GoalTreeView, "server"),
    Notification(methods.COMPACTION, CompactionEvent, "server"),
    Notification(methods.TURN_EVENT, TurnEvent, "server"),
    Notification(methods.CONTEXT_STATS_CHANGED, ContextStats, "server"),
    Notification(methods.MCP_STATUS, McpStatusEvent, "server"),
)

# `workspace/executeCommand` commands: what each answers like.
COMMAND_RESULTS: dict[str, type[WireModel]] = {
    methods.FIX_COMMAND: TurnResult,
    methods.COMPACT_COMMAND: CompactResult,
    methods.FORK_COMMAND: ForkResult,
}
