"""`cairn/goalTree`, `cairn/goal` and `cairn/goalTreeChanged` (user and model changes)."""

from __future__ import annotations

import pytest
from pygls.exceptions import JsonRpcInvalidParams

from tests.lsp.harness import Starter

VIEW_KEYS = {"sessionId", "tree", "rendered"}
TREE_KEYS = {"mission", "currentId", "goals"}
GOAL_KEYS = {"id", "description", "status", "summary", "children"}


async def test_user_goal_verbs_answer_the_tree_and_notify_the_change(start: Starter) -> None:
    client = await start()
    view = await client.request("cairn/goalTree", {})
    assert set(view) == VIEW_KEYS and set(view["tree"]) == TREE_KEYS
    assert view["tree"]["goals"] == []

    mark = client.log.mark()
    added = await client.request("cairn/goal", {"add": "parse input, write output"})
    assert set(added) == VIEW_KEYS
    goals = added["tree"]["goals"]
    assert [g["description"] for g in goals] == ["parse input", "write output"]
    assert all(set(g) == GOAL_KEYS for g in goals)
    changed = await client.log.wait_for("cairn/goalTreeChanged", mark)
    assert changed == added

    mark = client.log.mark()
    focused = await client.request(
        "cairn/goal", {"sessionId": added["sessionId"], "focus": goals[1]["id"]}
    )
    assert focused["tree"]["currentId"] == goals[1]["id"]
    assert (await client.log.wait_for("cairn/goalTreeChanged", mark))["tree"]["currentId"] == goals[
        1
    ]["id"]


BAD_GOAL_REQUESTS: list[tuple[object, str]] = [
    ({"focus": "99"}, "99"),
    ({"add": "a", "done": "b"}, "exactly one"),
    ({}, "exactly one"),
    (None, "exactly one"),
    ({"add": 5}, "add"),
    ({"add": "x", "sessionId": "no-such-session"}, "no-such-session"),
    ({"add": "x", "sessionID": "typo"}, "sessionID"),
    ({"add": "x" * 50_000}, "add"),
]


async def test_bad_goal_requests_are_invalid_params_and_change_nothing(start: Starter) -> None:
    client = await start()
    await client.request("cairn/goal", {"add": "keep me"})
    before = await client.request("cairn/goalTree")
    for params, problem in BAD_GOAL_REQUESTS:
        with pytest.raises(JsonRpcInvalidParams, match=problem):
            await client.request("cairn/goal", params)
        assert await client.request("cairn/goalTree") == before, params


async def test_a_goal_change_by_the_model_is_notified(start: Starter) -> None:
    client = await start(
        script=[
            {"toolCalls": [{"name": "goal", "arguments": {"add": "model step"}}]},
            {"text": "Planned."},
        ]
    )
    mark = client.log.mark()  # taken before the request: nothing can be missed
    result = await client.request("cairn/turn", {"message": "plan it"})
    assert result["finishReason"] == "stop"
    changed = await client.log.wait_for(
        "cairn/goalTreeChanged",
        mark,
        lambda view: any(g["description"] == "model step" for g in view["tree"]["goals"]),
    )
    assert changed["sessionId"] == result["sessionId"]
    assert set(changed) == VIEW_KEYS
