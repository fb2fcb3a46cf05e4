"""While a context build is held, the server answers: the meter, goals, the profile, cancels.

The server is `held_build_server.py`: the real `cairn serve` whose builds wait
at their gather or their assembly while the test holds that step, so every
assertion is about what was answered *while* a build was held (never about
how fast). Before this change `cairn/contextStats` waited for the running
gather, a goal the user finished was measured on the event loop (its
assemblies there, and a gather when no call kept one), and
`cairn/projectProfile` waited for the running gather on the event loop: each
kept the server from answering anything until the build ended.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from pygls.exceptions import JsonRpcRequestCancelled

from tests.lsp.harness import CairnClient, start_client, write_workspace
from tests.lsp.held_build_server import held_marker, switch

HELD_SERVER = [sys.executable, str(Path(__file__).with_name("held_build_server.py"))]
# Only a bound for a broken server, never a measurement: each wait below ends in
# milliseconds when the server answers.
ANSWER_BOUND_S = 30.0
POLL_S = 0.01
BIG = "".join(f"line {n}: the quick brown fox jumps over the lazy dog\n" for n in range(400))

Held = Callable[..., Awaitable[CairnClient]]


@pytest_asyncio.fixture
async def held(editor: str, tmp_path: Path) -> AsyncIterator[Held]:
    """`await held(script=..., files=...)` → a client of the held server; holds in `tmp_path`."""
    clients: list[CairnClient] = []

    async def starter(**workspace: Any) -> CairnClient:
        root = write_workspace(tmp_path / "ws", **workspace)
        client = await start_client(editor, root, command=[*HELD_SERVER, str(tmp_path)])
        clients.append(client)
        return client

    yield starter
    for step in ("gather", "assemble"):
        switch(tmp_path, step).unlink(missing_ok=True)
    for client in clients:
        try:
            await client.shutdown_session()
        finally:
            await client.stop()


async def until_held(folder: Path, step: str) -> None:
    async def poll() -> None:
        while not held_marker(folder, step).exists():
            await asyncio.sleep(POLL_S)

    await asyncio.wait_for(poll(), ANSWER_BOUND_S)


async def answered(client: CairnClient, method: str, params: Any = None) -> Any:
    return await asyncio.wait_for(client.request(method, params or {}), ANSWER_BOUND_S)


async def test_the_meter_answers_its_last_figure_while_a_build_is_held_then_the_fresh_one(
    held: Held, tmp_path: Path
) -> None:
    client = await held(files={"app.py": "def main():\n    return 1\n"})
    first = await answered(client, "cairn/contextStats")
    assert first["stale"] is False
    switch(tmp_path, "gather").touch()
    manifest_id, manifest = client.start_request("cairn/contextManifest", {"message": "main"})
    await until_held(tmp_path, "gather")

    mark = client.log.mark()
    last = await answered(client, "cairn/contextStats")
    assert last == {**first, "stale": True}  # the last figure, said to be the last
    again = await answered(client, "cairn/contextStats")  # joins the build waiting already
    assert again == last
    client.cancel(manifest_id)
    with pytest.raises(JsonRpcRequestCancelled):
        await asyncio.wait_for(manifest, ANSWER_BOUND_S)
    assert client.log.since(mark, "cairn/contextStatsChanged") == []

    switch(tmp_path, "gather").unlink()
    fresh = await client.log.wait_for("cairn/contextStatsChanged", mark)
    assert fresh == first  # built once the held gather ended: the same workspace, not stale
    assert len(client.log.since(mark, "cairn/contextStatsChanged")) == 1


async def test_the_first_figure_of_a_session_waits_for_its_build(
    held: Held, tmp_path: Path
) -> None:
    client = await held()
    switch(tmp_path, "gather").touch()
    _, manifest = client.start_request("cairn/contextManifest", {"message": "hi"})
    await until_held(tmp_path, "gather")
    stats = asyncio.ensure_future(client.request("cairn/contextStats", {}))
    assert (await answered(client, "cairn/goalTree"))["tree"]["goals"] == []
    assert not stats.done() and not manifest.done()  # nothing to show yet: it waits
    switch(tmp_path, "gather").unlink()
    assert (await asyncio.wait_for(stats, ANSWER_BOUND_S))["stale"] is False
    await asyncio.wait_for(manifest, ANSWER_BOUND_S)


async def test_a_goal_the_user_finishes_is_folded_off_the_event_loop(
    held: Held, tmp_path: Path
) -> None:
    script = [
        {"toolCalls": [{"name": "read_file", "arguments": {"path": "big.txt"}}]},
        {"text": "Read it."},
    ]
    client = await held(script=script, files={"big.txt": BIG})
    await answered(client, "cairn/goal", {"add": "Read"})
    await answered(client, "cairn/goal", {"focus": "1"})
    assert (await answered(client, "cairn/turn", {"message": "read big.txt"}))["finishReason"] == (
        "stop"
    )
    switch(tmp_path, "assemble").touch()
    mark = client.log.mark()
    goal = asyncio.ensure_future(client.request("cairn/goal", {"done": "read by the agent"}))
    await until_held(tmp_path, "assemble")  # the fold's measurement

    tree = (await answered(client, "cairn/goalTree"))["tree"]
    assert tree["goals"][0]["status"] == "completed"  # the change is made, its fold held
    assert not goal.done()
    switch(tmp_path, "assemble").unlink()
    view = await asyncio.wait_for(goal, ANSWER_BOUND_S)
    assert view["tree"] == tree
    started = await client.log.wait_for("cairn/compaction", mark)
    assert started["kind"] == "goal"


async def test_the_profile_waits_for_a_held_gather_off_the_event_loop(
    held: Held, tmp_path: Path
) -> None:
    client = await held(files={"pyproject.toml": "[project]\nname = 'x'\n"})
    await answered(client, "cairn/contextStats")
    switch(tmp_path, "gather").touch()
    _, manifest = client.start_request("cairn/contextManifest", {"message": "hi"})
    await until_held(tmp_path, "gather")
    profile = asyncio.ensure_future(client.request("cairn/projectProfile", {"refresh": True}))
    await answered(client, "cairn/goalTree")
    assert (await answered(client, "cairn/contextStats"))["stale"] is True
    assert not profile.done() and not manifest.done()
    switch(tmp_path, "gather").unlink()
    assert "languages" in await asyncio.wait_for(profile, ANSWER_BOUND_S)
    await asyncio.wait_for(manifest, ANSWER_BOUND_S)
