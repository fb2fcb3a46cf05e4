"""Owns the engine's lifecycle: built after `initialized`, off the initialize path.

The engine module (and what it imports) is loaded in a worker thread so the
`initialize` answer is not delayed; the engine is then constructed on the event
loop. Until it is ready, document sync goes to a pending `Workspace` whose
buffers and diagnostics are moved into the engine's workspace when it arrives.
Requests wait for the engine; when it cannot be built they fail with a message
saying why, and document sync keeps working. A failed start is not final: the
next request tries again (the earlier reason is logged), so a cause fixed in
the meantime (a permission, a settings file) needs no restart. `aclose` (at
`shutdown`) cancels a start still under way and stops the engine's MCP
servers, waiting until their processes are gone. Loading, warming and closing
are the steps `cairn acp` takes too (`cairn.frontends.engine_start`).
"""

from __future__ import annotations

import asyncio
import gc
import importlib
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from pygls.exceptions import JsonRpcException

from cairn.frontends.codes import REQUEST_FAILED
from cairn.frontends.engine_start import (
    ENGINE_MODULE,
    aclose_engines,
    close_engines,
    load_engine_module,
    warm,
)

if TYPE_CHECKING:  # pydantic and the core are loaded after the initialize answer
    from cairn.agent.api import EngineApi
    from cairn.files.workspace import Workspace
    from cairn.settings import Settings

logger = logging.getLogger(__name__)

# (folders, settings) → engine; the server binds its listener and editor callbacks.
EngineBuilder = Callable[[list[Path], "Settings"], "EngineApi"]
ModuleLoader = Callable[["Settings"], object]


def load_engine(settings: Settings) -> object:
    """The engine module and the configured model's tokenizer (`engine_start`)."""
    return load_engine_module(settings.model or "")


class EngineHost:
    """The engine once ready, the pending workspace before, and the current settings."""

    def __init__(
        self,
        build: EngineBuilder,
        prepare: Callable[[], None],
        loader: ModuleLoader = load_engine,
    ) -> None:
        self._build = build
        self._prepare = prepare
        self._loader = loader
        self._pending: Workspace | None = None
        self._engine: EngineApi | None = None
        self._task: asyncio.Task[EngineApi] | None = None
        self._closed = False
        self.failure: str | None = None
        self.attempts = 0
        self.settings: Settings | None = None
        self.overrides: dict[str, Any] = {}
        # The editor's word on the folder's trust (`workspaceTrusted`), for the server's life.
        self.editor_trust: bool | None = None

    def configure(self, folders: list[Path], settings: Settings, overrides: dict[str, Any]) -> None:
        from cairn.files.workspace import Workspace

        self._pending = Workspace(folders)
        self.settings = settings
        self.overrides = overrides

    @property
    def configured(self) -> bool:
        return self._pending is not None

    @property
    def ready(self) -> EngineApi | None:
        return self._engine

    @property
    def workspace(self) -> Workspace:
        """Where document events go: the engine's workspace, or the pending one."""
        if self._engine is not None:
            return self._engine.workspace
        if self._pending is None:
            self._prepare()
        if self._pending is None:
            raise JsonRpcException("the server is not initialized", code=REQUEST_FAILED)
        return self._pending

    def start(self) -> None:
        """Begin loading the engine, unless it is loading or ready (again after a failure)."""
        task = self._task
        if self._closed or self._engine is not None:
            return
        if task is not None and not (task.done() and self.failure is not None):
            return
        if task is not None:
            logger.info(
                "starting the engine again (attempt %d failed: %s)", self.attempts, self.failure
            )
        self.attempts += 1
        self._task = asyncio.ensure_future(self._create())
        self._task.add_done_callback(_retrieve_failure)

    async def get(self) -> EngineApi:
        """The engine, waiting for it if it is still loading (starting it again if it failed)."""
        if self._engine is not None:
            return self._engine
        self.start()
        if self._task is None or self._closed:
            raise JsonRpcException("the server is shutting down", code=REQUEST_FAILED)
        try:
            return await asyncio.shield(self._task)
        except asyncio.CancelledError:
            raise
        except Exception:
            raise JsonRpcException(
                f"the Cairn engine is unavailable: {self.failure}", code=REQUEST_FAILED
            ) from None

    async def _create(self) -> EngineApi:
        self.failure = None
        try:
            pending = self.workspace
            assert self.settings is not None  # set with the pending workspace
            await asyncio.to_thread(self._loader, self.settings)
            # The settings may have changed while loading: build with the current ones.
            engine = self._build(list(pending.folders), self.settings)
        except Exception as exc:
            self.failure = f"{type(exc).__name__}: {exc}"
            logger.exception("the engine could not be started")
            raise
        # Nobody else holds the engine yet: its file listing and repository-map scan
        # run on a thread, not on the event loop (the editor's state is copied after).
        await warm(engine, ", ".join(map(str, pending.folders)))
        engine.workspace.buffers.update(pending.buffers)
        engine.workspace.diagnostics.update(pending.diagnostics)
        engine.workspace.folders = list(pending.folders)
        self._engine = engine
        gc.freeze()  # the loaded core is long-lived: keep it out of later collections
        logger.info("engine ready for %s", ", ".join(map(str, pending.folders)))
        return engine

    def update_settings(self, settings: Settings, overrides: dict[str, Any]) -> None:
        self.settings = settings
        self.overrides = overrides
        if self._engine is not None:
            self._engine.update_settings(settings)

    async def aclose(self) -> None:
        """Stop for good: a start in progress is cancelled (it closes the engine it built),
        and the ready engine stops its MCP servers, waiting until they are gone (bounded)."""
        self._closed = True
        task = self._task
        if task is not None and not task.done():
            task.cancel()
            await asyncio.wait({task})
        engine, self._engine = self._engine, None
        await aclose_engines([engine] if engine is not None else [])

    def close(self) -> None:
        """`aclose` without waiting (the MCP servers are only asked to stop)."""
        self._closed = True
        if self._task is not None and not self._task.done():
            self._task.cancel()
        engine, self._engine = self._engine, None
        close_engines([engine] if engine is not None else [])


def _retrieve_failure(task: asyncio.Task[EngineApi]) -> None:
    """Mark a failed start's exception as seen (it was logged when it happened)."""
    if not task.cancelled():
        task.exception()


def default_engine(folders: list[Path], settings: Settings, **callbacks: Any) -> EngineApi:
    """Construct `cairn.agent.engine.Engine` (its module is already imported by then)."""
    module = importlib.import_module(ENGINE_MODULE)
    return cast("EngineApi", module.Engine(folders, settings, **callbacks))
