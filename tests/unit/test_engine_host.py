"""`EngineHost.aclose` (the LSP `shutdown`): no engine outlives it, ready or still starting."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcException

from cairn.agent.engine import Engine
from cairn.lsp.engine_host import EngineHost
from cairn.settings import Settings
from tests.unit.test_agent_support import write_script

# Seconds a step may take at most (a limit, not a measurement).
WAIT_LIMIT_S = 60.0
POLL_S = 0.01


class GatedEngine(Engine):
    """A real engine whose warm-up waits for the test: a start still under way."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.warming = threading.Event()
        self.release = threading.Event()
        self.closed = False

    def warm(self) -> None:
        self.warming.set()
        self.release.wait(WAIT_LIMIT_S)
        super().warm()

    async def aclose(self) -> None:
        await super().aclose()
        self.closed = True


async def until(done: Callable[[], bool]) -> None:
    async with asyncio.timeout(WAIT_LIMIT_S):
        while not done():
            await asyncio.sleep(POLL_S)


def gated_host(root: Path, built: list[GatedEngine]) -> EngineHost:
    def build(folders: list[Path], settings: Settings) -> GatedEngine:
        engine = GatedEngine(folders, settings)
        built.append(engine)
        return engine

    host = EngineHost(build, prepare=lambda: None, loader=lambda settings: None)
    settings = Settings.model_validate({"model": write_script(root, [])})
    host.configure([root], settings, {})
    return host


async def test_an_engine_still_warming_at_shutdown_is_closed_before_aclose_returns(
    tmp_path: Path,
) -> None:
    built: list[GatedEngine] = []
    host = gated_host(tmp_path, built)
    host.start()
    await until(lambda: bool(built) and built[0].warming.is_set())
    [engine] = built
    try:
        await host.aclose()
        assert engine.closed
        assert host.ready is None
        with pytest.raises(JsonRpcException, match="shutting down"):
            await host.get()  # nothing starts again after shutdown
        assert len(built) == 1
    finally:
        engine.release.set()


async def test_a_ready_engine_is_closed_and_none_is_started_after(tmp_path: Path) -> None:
    built: list[GatedEngine] = []
    host = gated_host(tmp_path, built)
    host.start()
    await until(lambda: bool(built))
    built[0].release.set()
    engine = await host.get()
    await host.aclose()
    assert engine is built[0] and built[0].closed
    host.start()
    assert host.ready is None and len(built) == 1
