"""Cairn's own methods over ACP (underscore-prefixed, as ACP reserves for extensions).

The same engine calls as the language server's `cairn/*` methods, with the
same result shapes (docs/PROTOCOL.md), on a session this connection opened
(`sessionId` is required: ACP has no active session):

- `_cairn/contextManifest` `{sessionId, message?, references?}` → Manifest
  (with `message` or `references`: a dry run of the next call, no model call)
- `_cairn/contextStats` `{sessionId}` → ContextStats
- `_cairn/goalTree` `{sessionId}` → `{sessionId, tree, rendered}`
- `_cairn/goal` `{sessionId, add? | done? | abandon? | focus?}` (exactly one
  verb) → the new tree; the client also gets the `plan` update
- `_cairn/projectProfile` `{sessionId, refresh?}` → ProjectProfile
- `_cairn/compact` `{sessionId}` → `{sessionId, tokensBefore, tokensAfter, kind}`
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import Field

from cairn.acp.handling import bind
from cairn.acp.schema import AcpModel, SessionId

if TYPE_CHECKING:
    from cairn.acp.rpc import Handler
    from cairn.acp.server import AcpServer


class SessionRef(AcpModel):
    session_id: SessionId


class ManifestParams(SessionRef):
    message: str | None = None
    references: list[str] = Field(default_factory=list)


class GoalParams(SessionRef):
    add: str | None = None
    done: str | None = None
    abandon: str | None = None
    focus: str | None = None


class ProfileParams(SessionRef):
    refresh: bool = False


class ExtensionHandlers:
    def __init__(self, server: AcpServer) -> None:
        self.server = server

    async def context_manifest(self, params: ManifestParams) -> dict[str, Any]:
        session = self.server.session(params.session_id)
        manifest = await session.engine.context_manifest(
            session.id, message=params.message, references=params.references
        )
        return manifest.wire()

    async def context_stats(self, params: SessionRef) -> dict[str, Any]:
        session = self.server.session(params.session_id)
        return (await session.engine.context_stats(session.id)).wire()

    async def goal_tree(self, params: SessionRef) -> dict[str, Any]:
        session = self.server.session(params.session_id)
        return session.engine.goal_tree(session.id).wire()

    async def goal(self, params: GoalParams) -> dict[str, Any]:
        session = self.server.session(params.session_id)
        view = await session.engine.goal_async(
            session.id, add=params.add, done=params.done, abandon=params.abandon, focus=params.focus
        )
        return view.wire()

    async def project_profile(self, params: ProfileParams) -> dict[str, Any]:
        session = self.server.session(params.session_id)
        return (await session.engine.project_profile_async(refresh=params.refresh)).wire()

    async def compact(self, params: SessionRef) -> dict[str, Any]:
        session = self.server.session(params.session_id)
        return (await session.engine.compact(session.id)).wire()


# Method → (params model, handler), in the order `initialize` lists them.
EXTENSIONS: dict[str, tuple[type[AcpModel], str]] = {
    "_cairn/contextManifest": (ManifestParams, "context_manifest"),
    "_cairn/contextStats": (SessionRef, "context_stats"),
    "_cairn/goalTree": (SessionRef, "goal_tree"),
    "_cairn/goal": (GoalParams, "goal"),
    "_cairn/projectProfile": (ProfileParams, "project_profile"),
    "_cairn/compact": (SessionRef, "compact"),
}


def requests(server: AcpServer) -> dict[str, Handler]:
    handlers = ExtensionHandlers(server)
    return {
        method: bind(method, model, getattr(handlers, name))
        for method, (model, name) in EXTENSIONS.items()
    }
