"""`cairn/compact`: compact a session now (the `cairn/compaction` notifications come from the listener)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cairn.lsp import contract
from cairn.lsp.params import SessionParams
from cairn.lsp.rpc import cairn_request

if TYPE_CHECKING:
    from cairn.agent.api import EngineApi
    from cairn.lsp.server import CairnServer
    from cairn.models.events import CompactResult


@cairn_request(contract.COMPACT)
async def compact(ls: CairnServer, engine: EngineApi, params: SessionParams) -> CompactResult:
    return await engine.compact(params.session_id)
