"""`cairn/goalTree` and `cairn/goal`: read and edit the plan with the four verbs.

The engine notifies `cairn/goalTreeChanged` (through the listener) after every
change, whoever made it: the user here, or the model's `goal` tool. A goal the
user finishes is folded with its measurements off the event loop.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cairn.lsp import contract
from cairn.lsp.params import GoalParams, SessionParams
from cairn.lsp.rpc import cairn_request

if TYPE_CHECKING:
    from cairn.agent.api import EngineApi
    from cairn.lsp.server import CairnServer
    from cairn.models.events import GoalTreeView


@cairn_request(contract.GOAL_TREE)
def goal_tree(ls: CairnServer, engine: EngineApi, params: SessionParams) -> GoalTreeView:
    return engine.goal_tree(params.session_id)


@cairn_request(contract.GOAL)
async def goal(ls: CairnServer, engine: EngineApi, params: GoalParams) -> GoalTreeView:
    return await engine.goal_async(params.session_id, **params.verbs())
