"""`cairn/turn`: one agent turn, streamed as `cairn/turnEvent` (see `turn_registry`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cairn.frontends.turns import TurnAsk
from cairn.lsp import contract
from cairn.lsp.params import TurnParams
from cairn.lsp.rpc import cairn_request

if TYPE_CHECKING:
    from cairn.agent.api import EngineApi
    from cairn.lsp.server import CairnServer
    from cairn.models.events import TurnResult


@cairn_request(contract.TURN)
async def turn(ls: CairnServer, engine: EngineApi, params: TurnParams) -> TurnResult:
    ask = TurnAsk(
        params.message,
        session_id=params.session_id,
        mode=params.mode,
        references=params.references,
        model=params.model,
    )
    return await ls.turns.run(engine, ask, params.work_done_token)
