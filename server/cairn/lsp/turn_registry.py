"""The running turns: each agent turn is a task, with progress and cancellation.

The turn runs in its own task so that every other request keeps being served
while it streams (`cairn/turnEvent` notifications come from the listener).
`$/cancelRequest` for the request (or cancelling its progress bar) cancels
that task; the request is then answered with finishReason "cancelled" and the
text streamed so far, not an error. The tasks, the one-turn-per-session rule
and the stopping are the cancel path `cairn acp` shares
(`cairn.frontends.turns.RunningTurns`); this module adds what is the language
server's own: the request that started a turn, its progress bar and the text
it streamed. At `shutdown` every turn is cancelled and waited for
(`stop_all`), so its records are complete and its request answered before
`shutdown` is.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pygls.protocol.json_rpc import MsgId

from cairn.frontends.turns import TURN_STOP_TIMEOUT_S, RunningTurns
from cairn.lsp import methods
from cairn.lsp.progress import ProgressBar
from cairn.lsp.rpc import lsp_errors

if TYPE_CHECKING:
    from cairn.agent.api import EngineApi
    from cairn.frontends.turns import TurnAsk
    from cairn.lsp.server import CairnServer
    from cairn.models.events import TurnEvent, TurnResult

logger = logging.getLogger(__name__)

PROGRESS_TITLE = "Cairn"
# Progress messages show at most this many characters of the user's message.
PROGRESS_MESSAGE_CHARS = 80


@dataclass
class ActiveTurn:
    session_id: str
    request_id: MsgId | None
    task: asyncio.Task[TurnResult]
    # The request's own task, which answers it once `task` ends.
    handler: asyncio.Task[object] | None = None
    bar: ProgressBar | None = None
    turn_id: str = ""
    text: list[str] = field(default_factory=list)


class TurnRegistry:
    """The running turns, by session and by the request that started them."""

    def __init__(self, server: CairnServer) -> None:
        self._server = server
        self._turns = RunningTurns()
        self._by_session: dict[str, ActiveTurn] = {}
        self._by_request: dict[MsgId, ActiveTurn] = {}

    def cancel_request(self, request_id: MsgId) -> bool:
        """Cancel the turn started by this request; False when it started none."""
        active = self._by_request.get(request_id)
        if active is None:
            return False
        logger.info("cancelling the turn of request %r", request_id)
        return self._turns.cancel(active.session_id)

    def cancel_all(self) -> None:
        self._turns.cancel_all()

    async def stop_all(self, timeout: float = TURN_STOP_TIMEOUT_S) -> None:
        """Cancel every running turn and wait until each has recorded its end and its request
        is answered: at most `timeout` s, then once more after a second cancel (which cuts
        the turn's patch short); a turn still running after that is logged and left."""
        running = list(self._by_session.values())
        handlers = [a.handler for a in running if a.handler is not None]
        left = await self._turns.stop_all(handlers, timeout)
        for active in running:
            if active.task in left or active.handler in left:
                logger.warning("the turn of session %s did not stop in time", active.session_id)

    def on_event(self, event: TurnEvent) -> None:
        """Progress for a turn event (called on the loop by the listener)."""
        active = self._by_session.get(event.session_id)
        if active is None:
            return
        active.turn_id = event.turn_id
        first_text = event.kind == "text" and not active.text
        if event.kind == "text" and event.text:
            active.text.append(event.text)
        if active.bar is None:
            return
        if event.kind == "toolStart" and event.tool:
            active.bar.report(f"running {event.tool}")
        elif first_text:
            active.bar.report("writing")

    async def run(
        self, engine: EngineApi, ask: TurnAsk, work_done_token: int | str | None = None
    ) -> TurnResult:
        """Run one turn to its end (or cancellation) and return its result."""
        from cairn.models.events import TurnResult

        engine.check_turn(ask.session_id, ask.model)  # no model or key: fail before a session
        sid = ask.session_id or engine.active_session_id
        with lsp_errors():
            task = self._turns.start(methods.TURN, engine, sid, ask)
        active = ActiveTurn(
            session_id=sid,
            request_id=self._server.protocol.msg_id,
            task=task,
            handler=asyncio.current_task(),
        )
        self._register(active)
        active.bar = ProgressBar.start(
            self._server,
            PROGRESS_TITLE,
            token=work_done_token,
            message=ask.message[:PROGRESS_MESSAGE_CHARS],
            on_cancel=task.cancel,
        )
        try:
            result = await self._turns.finish(sid, task)
        finally:
            self._unregister(active)
        if result is None:  # the turn alone was cancelled: answer what it streamed so far
            result = TurnResult(
                session_id=sid,
                turn_id=active.turn_id,
                finish_reason="cancelled",
                text="".join(active.text),
            )
        active.bar.end(result.finish_reason)
        return result

    def _register(self, active: ActiveTurn) -> None:
        self._by_session[active.session_id] = active
        if active.request_id is not None:
            self._by_request[active.request_id] = active

    def _unregister(self, active: ActiveTurn) -> None:
        self._by_session.pop(active.session_id, None)
        if active.request_id is not None:
            self._by_request.pop(active.request_id, None)
        if active.bar is not None and active.task.cancelled():
            active.bar.end("cancelled")
