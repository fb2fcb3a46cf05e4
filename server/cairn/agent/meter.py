"""The meter's figure on request (`EngineApi.context_stats`): never held up by other work.

The stats of a session's next call are built afresh, off the event loop. That
build can have to wait for work already running: another build's gather (the
repository map serves one at a time: a turn's model call, an editor's dry run
over big buffers) or the session's MCP servers still starting. When it would,
and the session has a figure already (`Session.last_stats`: its last real
call's, or the last one built here), the request is answered at once with that
figure marked `stale`, and the fresh one is sent through the listener's
`on_context_stats` (`cairn/contextStatsChanged`) once built: the meter neither
freezes nor shows an old figure as the current one. With no figure yet the
request waits for the build. A request made while a fresh build of the same
session is under way joins it, so a client that asks often queues one build,
not one per request.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from cairn.agent.api import EngineListener
from cairn.agent.sessions.session import Session
from cairn.models.manifest import ContextStats

# A fresh build of the stats, told how to say it has to wait for other work.
StatsBuild = Callable[[Callable[[], None]], Awaitable[ContextStats]]


@dataclass
class _Fresh:
    """A fresh build under way: its future, whether it waits for other work, and whether a
    request was answered with the last figure meanwhile (then the fresh one is sent)."""

    future: asyncio.Future[ContextStats]
    waiting: asyncio.Event = field(default_factory=asyncio.Event)
    owed: bool = False


class Meter:
    """Answers stats requests for the sessions of one engine (see the module docstring)."""

    def __init__(self, listener: EngineListener) -> None:
        self.listener = listener
        self._fresh: dict[str, _Fresh] = {}

    async def stats(
        self, session: Session, build: StatsBuild, *, busy: bool = False
    ) -> ContextStats:
        """The session's next-call stats, or its last figure (stale) while the build waits
        (`busy`: the caller knows it would, so the last figure is answered without a turn
        of the event loop)."""
        fresh = self._fresh.get(session.id) or self._start(session, build)
        if session.last_stats is None:
            return await asyncio.shield(fresh.future)
        if busy:
            fresh.waiting.set()
        if fresh.waiting.is_set():
            fresh.owed = True
            return session.last_stats.model_copy(update={"stale": True})
        waiting = asyncio.ensure_future(fresh.waiting.wait())
        try:
            await asyncio.wait({fresh.future, waiting}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            waiting.cancel()
        if fresh.future.done():
            return fresh.future.result()
        fresh.owed = True
        return session.last_stats.model_copy(update={"stale": True})

    def _start(self, session: Session, build: StatsBuild) -> _Fresh:
        loop = asyncio.get_running_loop()
        fresh = _Fresh(loop.create_future())

        def on_wait() -> None:  # on the loop or on the build's worker thread
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits
                loop.call_soon_threadsafe(fresh.waiting.set)

        task = asyncio.ensure_future(build(on_wait))
        task.add_done_callback(lambda done: self._built(session, fresh, done))
        self._fresh[session.id] = fresh
        return fresh

    def _built(self, session: Session, fresh: _Fresh, task: asyncio.Future[ContextStats]) -> None:
        """Keep the fresh figure, send it when a request got the last one, settle the future."""
        if self._fresh.get(session.id) is fresh:
            del self._fresh[session.id]
        if task.cancelled():
            fresh.future.cancel()
            return
        error = task.exception()
        if error is not None:
            fresh.future.set_exception(error)
            if fresh.owed:  # nobody waits for it: say so in the log
                self.listener.on_log(f"context stats of {session.id} failed: {error}")
            fresh.future.exception()  # retrieved: a joined request may never ask
            return
        stats = task.result()
        session.last_stats = stats
        fresh.future.set_result(stats)
        if fresh.owed:
            self.listener.on_context_stats(stats)
