"""`cairn/turn`: one agent turn, streamed as `cairn/turnEvent` (see `turn_registry`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cairn.lsp.params import TurnParams
from cairn.lsp.rpc import cairn_request
from cairn.lsp.turn_registry import TURN

if TYPE_CHECKING:
    from cairn.agent.api import EngineApi
    from cairn.lsp.server import CairnServer


@cairn_request(TURN, TurnParams)
async def turn(ls: CairnServer, engine: EngineApi, params: TurnParams) -> dict[str, Any]:
    result = await ls.turns.run(
        engine,
        params.message,
        session_id=params.session_id,
        mode=params.mode,
        references=params.references,
        model=params.model,
        work_done_token=params.work_done_token,
    )
    return result.wire()
