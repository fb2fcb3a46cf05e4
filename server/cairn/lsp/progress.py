"""Work-done progress (`window/workDoneProgress/create` + `$/progress`) for turns and compaction.

A `ProgressBar` sends begin/report/end in order even though creating a
server-initiated token is a request the client answers later: every step is
chained behind the previous one. With a client-given token (`workDoneToken`)
nothing is created. Clients without `window.workDoneProgress` get nothing.
A cancellable bar calls `on_cancel` when the user cancels it.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from lsprotocol import types

if TYPE_CHECKING:
    from cairn.lsp.server import CairnServer

logger = logging.getLogger(__name__)

TOKEN_PREFIX = "cairn-"


class ProgressBar:
    """One progress bar in the editor."""

    def __init__(self, server: CairnServer, token: types.ProgressToken | None) -> None:
        self._server = server
        self._token = token
        self._last: asyncio.Task[None] | None = None
        self._ended = False
        self._failed = False

    @classmethod
    def start(
        cls,
        server: CairnServer,
        title: str,
        *,
        token: types.ProgressToken | None = None,
        message: str | None = None,
        on_cancel: Callable[[], object] | None = None,
    ) -> ProgressBar:
        create = token is None
        if create and not server.client_supports("window.work_done_progress"):
            return cls(server, None)
        bar = cls(server, token if token is not None else f"{TOKEN_PREFIX}{uuid.uuid4().hex}")

        async def begin() -> None:
            assert bar._token is not None
            if create:
                await server.work_done_progress.create_async(bar._token)
            server.work_done_progress.begin(
                bar._token,
                types.WorkDoneProgressBegin(
                    title=title, message=message, cancellable=on_cancel is not None
                ),
            )
            cancelled = server.work_done_progress.tokens.get(bar._token)
            callback = on_cancel
            if callback is not None and cancelled is not None:
                cancelled.add_done_callback(
                    lambda future: callback() if future.cancelled() else None
                )

        bar._chain(begin)
        return bar

    def _chain(self, step: Callable[[], Awaitable[None]]) -> None:
        previous = self._last

        async def run() -> None:
            if previous is not None:
                await previous
            if self._failed:
                return  # e.g. the client refused to create the bar: skip the rest
            try:
                await step()
            except Exception:
                self._failed = True
                logger.warning("progress %s: a step failed", self._token, exc_info=True)

        self._last = asyncio.ensure_future(run())

    def report(self, message: str) -> None:
        if self._token is None or self._ended:
            return
        token = self._token

        async def send() -> None:
            self._server.work_done_progress.report(
                token, types.WorkDoneProgressReport(message=message)
            )

        self._chain(send)

    def end(self, message: str | None = None) -> None:
        if self._token is None or self._ended:
            return
        self._ended = True
        token = self._token

        async def send() -> None:
            self._server.work_done_progress.end(token, types.WorkDoneProgressEnd(message=message))
            self._server.work_done_progress.tokens.pop(token, None)

        self._chain(send)
