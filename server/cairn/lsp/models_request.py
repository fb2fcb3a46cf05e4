"""`cairn/models`: the configured model and the providers and models one can choose."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cairn.lsp import contract
from cairn.lsp.params import EmptyParams
from cairn.lsp.rpc import cairn_request

if TYPE_CHECKING:
    from cairn.agent.api import EngineApi
    from cairn.lsp.server import CairnServer
    from cairn.models.catalog import ModelCatalog


@cairn_request(contract.MODELS)
def models(ls: CairnServer, engine: EngineApi, params: EmptyParams) -> ModelCatalog:
    return engine.models()
