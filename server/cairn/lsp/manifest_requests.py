"""`cairn/contextStats` and `cairn/contextManifest`: what the model sees, and what was dropped.

`cairn/contextStatsChanged` (after every model call) comes from the listener.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cairn.lsp import contract
from cairn.lsp.params import ManifestParams, SessionParams
from cairn.lsp.rpc import cairn_request

if TYPE_CHECKING:
    from cairn.agent.api import EngineApi
    from cairn.lsp.server import CairnServer
    from cairn.models.manifest import ContextStats, Manifest


@cairn_request(contract.CONTEXT_STATS)
async def context_stats(ls: CairnServer, engine: EngineApi, params: SessionParams) -> ContextStats:
    return await engine.context_stats(params.session_id)


@cairn_request(contract.CONTEXT_MANIFEST)
async def context_manifest(ls: CairnServer, engine: EngineApi, params: ManifestParams) -> Manifest:
    return await engine.context_manifest(
        params.session_id, params.message, params.uri, params.references
    )
