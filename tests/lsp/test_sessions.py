"""`cairn/sessions`, `cairn/fork` (and `cairn.fork`), `cairn/deleteSession`."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from tests.lsp.harness import Starter

SESSION_KEYS = {"sessionId", "title", "parentId", "createdAt", "updatedAt", "turns"}


async def test_sessions_can_be_listed_forked_and_deleted(start: Starter) -> None:
    client = await start()
    active = (await client.request("cairn/goalTree"))["sessionId"]
    # Looking at a session does not write it: it is listed once something is recorded.
    assert (await client.request("cairn/sessions", {}))["sessions"] == []
    await client.request("cairn/goal", {"sessionId": active, "add": "Ship it"})
    listing = await client.request("cairn/sessions", {})
    assert set(listing) == {"sessions"}
    assert [s["sessionId"] for s in listing["sessions"]] == [active]
    assert set(listing["sessions"][0]) == SESSION_KEYS

    forked = await client.request("cairn/fork", {"sessionId": active})
    assert set(forked) == {"sessionId"} and forked["sessionId"] != active
    by_command = await client.request(
        types.WORKSPACE_EXECUTE_COMMAND,
        types.ExecuteCommandParams(command="cairn.fork", arguments=[active]),
    )
    assert set(by_command) == {"sessionId"}
    rows = {s["sessionId"]: s for s in (await client.request("cairn/sessions"))["sessions"]}
    assert set(rows) == {active, forked["sessionId"], by_command["sessionId"]}
    assert rows[forked["sessionId"]]["parentId"] == active

    assert await client.request("cairn/deleteSession", {"sessionId": forked["sessionId"]}) == {
        "deleted": True
    }
    rows = {s["sessionId"] for s in (await client.request("cairn/sessions"))["sessions"]}
    assert forked["sessionId"] not in rows

    with pytest.raises(JsonRpcInvalidParams, match=forked["sessionId"]):
        await client.request("cairn/deleteSession", {"sessionId": forked["sessionId"]})
    with pytest.raises(JsonRpcInvalidParams, match="sessions"):
        await client.request("cairn/sessions", {"unexpected": True})
    with pytest.raises(JsonRpcInvalidParams, match=r"cairn\.fork"):
        await client.request(
            types.WORKSPACE_EXECUTE_COMMAND,
            types.ExecuteCommandParams(command="cairn.fork", arguments=["a", "b", "c"]),
        )


async def test_destructive_methods_never_default_to_the_active_session(start: Starter) -> None:
    client = await start()
    # A goal is the session's first record: from then on it is on disk and listed.
    active = (await client.request("cairn/goal", {"add": "keep me"}))["sessionId"]
    for params in ({}, None, {"atMessageId": "m1"}):
        with pytest.raises(JsonRpcInvalidParams, match="sessionId is required"):
            await client.request("cairn/deleteSession", params)
        with pytest.raises(JsonRpcInvalidParams, match="sessionId is required"):
            await client.request("cairn/fork", params)
    for arguments in ([], [{}]):
        with pytest.raises(JsonRpcInvalidParams, match="sessionId is required"):
            await client.request(
                types.WORKSPACE_EXECUTE_COMMAND,
                types.ExecuteCommandParams(command="cairn.fork", arguments=arguments),
            )
    rows = [s["sessionId"] for s in (await client.request("cairn/sessions"))["sessions"]]
    assert rows == [active]  # nothing deleted, nothing forked
    assert (await client.request("cairn/goalTree"))["sessionId"] == active
