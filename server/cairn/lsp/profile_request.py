"""`cairn/projectProfile`: what kind of repository this is (`.cairn/profile.json`).

Read (or rescanned) on a worker thread after a running context build's gather,
so the event loop keeps answering meanwhile.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cairn.lsp import contract
from cairn.lsp.params import ProfileParams
from cairn.lsp.rpc import cairn_request

if TYPE_CHECKING:
    from cairn.agent.api import EngineApi
    from cairn.lsp.server import CairnServer
    from cairn.models.profile import ProjectProfile


@cairn_request(contract.PROJECT_PROFILE)
async def project_profile(
    ls: CairnServer, engine: EngineApi, params: ProfileParams
) -> ProjectProfile:
    return await engine.project_profile_async(params.refresh)
