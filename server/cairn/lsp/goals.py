"""`cairn/goalTree` and `cairn/goal`: read and edit the plan with the four verbs.

The engine notifies `cairn/goalTreeChanged` (through the listener) after every
change, whoever made it: the user here, or the model's `goal` tool.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cairn.lsp.params import GoalParams, SessionParams
from cairn.lsp.rpc import cairn_request

if TYPE_CHECKING:
    from cairn.agent.api import EngineApi
    from cairn.lsp.server import CairnServer

GOAL_TREE = "cairn/goalTree"
GOAL = "cairn/goal"


@cairn_request(GOAL_TREE, SessionParams)
def goal_tree(ls: CairnServer, engine: EngineApi, params: SessionParams) -> dict[str, Any]:
    return engine.goal_tree(params.session_id).wire()


@cairn_request(GOAL, GoalParams)
def goal(ls: CairnServer, engine: EngineApi, params: GoalParams) -> dict[str, Any]:
    return engine.goal(params.session_id, **params.verbs()).wire()
