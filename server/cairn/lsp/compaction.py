"""`cairn/compact`: compact a session now (the `cairn/compaction` notifications come from the listener)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cairn.lsp.params import SessionParams
from cairn.lsp.rpc import cairn_request

if TYPE_CHECKING:
    from cairn.agent.api import EngineApi
    from cairn.lsp.server import CairnServer

COMPACT = "cairn/compact"


async def compact_session(engine: EngineApi, params: SessionParams) -> dict[str, Any]:
    """`{sessionId, tokensBefore, tokensAfter, kind}`."""
    result = await engine.compact(params.session_id)
    return result.wire()


@cairn_request(COMPACT, SessionParams)
async def compact(ls: CairnServer, engine: EngineApi, params: SessionParams) -> dict[str, Any]:
    return await compact_session(engine, params)
