"""`cairn/projectProfile`: what kind of repository this is (`.cairn/profile.json`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cairn.lsp.params import ProfileParams
from cairn.lsp.rpc import cairn_request

if TYPE_CHECKING:
    from cairn.agent.api import EngineApi
    from cairn.lsp.server import CairnServer

PROJECT_PROFILE = "cairn/projectProfile"


@cairn_request(PROJECT_PROFILE, ProfileParams)
def project_profile(ls: CairnServer, engine: EngineApi, params: ProfileParams) -> dict[str, Any]:
    return engine.project_profile(params.refresh).wire()
