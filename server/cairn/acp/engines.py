"""One engine per workspace root, made when a session first needs it.

An ACP client names the workspace per session (`cwd`), so `cairn acp` serves
every root its sessions ask for, each with its own engine, settings
(`<root>/cairn.toml`) and trace store (`<root>/.cairn/`). The engine module
is imported on a worker thread as soon as the client has initialized
(`preload`), and each engine is warmed (file listing, repository-map index)
on one too, so the connection keeps answering meanwhile; two sessions
asking for the same root at once share one start (the steps the language
server's host takes too: `cairn.frontends.engine_start`; a start cancelled
while warming closes its engine, waiting for its MCP servers). Settings that
do not validate are reported (one line naming the key) and the defaults are
used (`cairn.frontends.settings_fallback`, as in the language server); the
problems are kept for the front end to show. A root the user trusted for
this process only (`trusted_here`, ACP's first-use question: `trust.py`)
is loaded trusted; `retrust` applies a new answer to a running engine.
`aclose` (the end of the connection) waits for every engine's MCP servers to
stop.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from cairn.files.trust import trust_notes
from cairn.frontends.engine_start import aclose_engines, close_engines, load_engine_module, warm
from cairn.frontends.settings_fallback import settings_with_fallback
from cairn.settings import Settings

if TYPE_CHECKING:
    from cairn.agent.api import EngineApi

logger = logging.getLogger(__name__)

# (root, settings) → engine, with the front end's listener and callbacks bound.
EngineBuilder = Callable[[Path, Settings], "EngineApi"]


def root_settings(root: Path, trusted_here: bool = False) -> tuple[Settings, list[str]]:
    """The settings of `root` (its `cairn.toml`, under the user's record of trust, or trusted
    when the user trusted it for this process), or the defaults; and the problems, with the
    keys an untrusted root's settings ignored."""
    settings, _, problems = settings_with_fallback(
        root, editor_trust=True if trusted_here else None
    )
    return settings, [*problems, *trust_notes(settings, root)]


class Engines:
    """The engines of the roots served so far."""

    def __init__(self, build: EngineBuilder) -> None:
        self._build = build
        self._ready: dict[Path, EngineApi] = {}
        self._starting: dict[Path, asyncio.Task[EngineApi]] = {}
        self.problems: dict[Path, list[str]] = {}
        # Roots the user trusted until this process ends (not recorded).
        self.trusted_here: set[Path] = set()
        self._preload: asyncio.Future[object] | None = None

    def preload(self) -> None:
        """Import the engine module on a thread now, so the first session/new waits less."""
        if self._preload is None:
            self._preload = asyncio.ensure_future(asyncio.to_thread(load_engine_module))

    def roots(self) -> list[Path]:
        return list(self._ready)

    def ready(self, root: Path) -> EngineApi | None:
        return self._ready.get(root)

    def all(self) -> list[EngineApi]:
        return list(self._ready.values())

    async def get(self, root: Path) -> EngineApi:
        """The engine of `root` (an absolute, resolved folder), started on first use."""
        engine = self._ready.get(root)
        if engine is not None:
            return engine
        task = self._starting.get(root)
        if task is None:
            task = asyncio.ensure_future(self._start(root))
            self._starting[root] = task
        try:
            return await asyncio.shield(task)
        finally:
            if task.done():
                self._starting.pop(root, None)

    def retrust(self, root: Path) -> Settings:
        """Read the settings of `root` again (after the user's answer on trust) and use them in
        its engine from the next call on; the new settings."""
        settings, self.problems[root] = root_settings(root, root in self.trusted_here)
        engine = self._ready.get(root)
        if engine is not None:
            engine.update_settings(settings)
        return settings

    async def _start(self, root: Path) -> EngineApi:
        settings, problems = root_settings(root, root in self.trusted_here)
        self.problems[root] = problems
        for problem in problems:
            logger.warning("%s: %s", root, problem)
        if self._preload is not None:
            await self._preload
        else:
            await asyncio.to_thread(load_engine_module)
        engine = self._build(root, settings)
        await warm(engine, str(root))
        self._ready[root] = engine
        logger.info("engine ready for %s (model %s)", root, settings.model)
        return engine

    def _cancel_starts(self) -> None:
        for task in self._starting.values():
            task.cancel()
        if self._preload is not None:
            self._preload.cancel()

    async def aclose(self) -> None:
        """`close`, waiting for every engine's MCP servers to be gone."""
        self._cancel_starts()
        engines, self._ready = list(self._ready.values()), {}
        await aclose_engines(engines)

    def close(self) -> None:
        self._cancel_starts()
        engines, self._ready = list(self._ready.values()), {}
        close_engines(engines)
