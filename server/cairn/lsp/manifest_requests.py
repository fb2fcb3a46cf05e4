"""`cairn/contextStats` and `cairn/contextManifest`: what the model sees, and what was dropped.

`cairn/contextStatsChanged` (after every model call) comes from the listener.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cairn.lsp.params import ManifestParams, SessionParams
from cairn.lsp.rpc import cairn_request

if TYPE_CHECKING:
    from cairn.agent.api import EngineApi
    from cairn.lsp.server import CairnServer

CONTEXT_STATS = "cairn/contextStats"
CONTEXT_MANIFEST = "cairn/contextManifest"


@cairn_request(CONTEXT_STATS, SessionParams)
def context_stats(ls: CairnServer, engine: EngineApi, params: SessionParams) -> dict[str, Any]:
    return engine.context_stats(params.session_id).wire()


@cairn_request(CONTEXT_MANIFEST, ManifestParams)
def context_manifest(ls: CairnServer, engine: EngineApi, params: ManifestParams) -> dict[str, Any]:
    return engine.context_manifest(params.session_id, params.message, params.uri).wire()
