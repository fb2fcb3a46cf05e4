"""Running and cancelling turns: the one cancel path of both front ends.

A front end runs each engine turn in its own task, so a cancel (LSP's
`$/cancelRequest` or its progress bar, ACP's `session/cancel`) can stop the
turn alone while the request that started it is still answered: with the
partial result ("cancelled"), not an error. `RunningTurns` holds a front
end's turns, one per session (`turn_running` is the refusal of a second):
`start` makes a turn's task from a `TurnAsk`, `finish` awaits it
(`await_turn`: None when the turn alone was cancelled, the request's own
cancellation re-raised, as at shutdown), `cancel` stops one session's turn
and `stop_all` every turn, waiting until each has recorded its end (a turn
whose request went away first included).

When a connection ends (the language server's `shutdown`, the ACP client
going away) the front end stops its turns before it closes the engines, so
no record is cut off and no MCP server is stopped under a turn still using
it: `stop_tasks` cancels the turn tasks and waits for them (and for any task
that ends with them, such as the request answering a turn) at most
`TURN_STOP_TIMEOUT_S`; a second cancel then cuts a slow patch short, and
what still runs after the second wait is returned for the caller to log.
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection, Coroutine, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cairn.frontends.codes import REQUEST_FAILED
from cairn.frontends.faults import RpcError

if TYPE_CHECKING:
    from cairn.agent.api import EngineApi, FixTarget
    from cairn.models.events import TurnResult
    from cairn.settings import Mode

# Seconds cancelled turns get to record their end, and how many times they are cancelled
# (the second cancel cuts a slow patch short).
TURN_STOP_TIMEOUT_S = 5.0
STOP_ROUNDS = 2


@dataclass(frozen=True)
class TurnAsk:
    """What a front end asks of one turn: the arguments of `EngineApi.turn`."""

    message: str
    session_id: str | None = None
    mode: Mode | None = None
    references: Sequence[str] = ()
    model: str | None = None
    fix: FixTarget | None = None

    def run(self, engine: EngineApi, session_id: str) -> Coroutine[Any, Any, TurnResult]:
        """The engine's turn in `session_id` (the asked session, or the engine's active one)."""
        return engine.turn(
            self.message,
            session_id=session_id,
            mode=self.mode,
            references=self.references,
            model=self.model,
            fix=self.fix,
        )


async def await_turn(task: asyncio.Task[TurnResult]) -> TurnResult | None:
    """The turn's result; None when the turn alone was cancelled. The task is cancelled if
    this ends before it (the request itself cancelled, which is re-raised)."""
    try:
        return await task
    except asyncio.CancelledError:
        current = asyncio.current_task()
        if not task.cancelled() or (current is not None and current.cancelling()):
            raise
        return None
    finally:
        if not task.done():
            task.cancel()


async def stop_tasks(
    turns: Collection[asyncio.Task[Any]],
    also: Iterable[asyncio.Task[Any]] = (),
    timeout: float = TURN_STOP_TIMEOUT_S,
) -> set[asyncio.Task[Any]]:
    """Cancel `turns` and wait for them and for `also` (see the module docstring); the tasks
    still running at the end (empty when everything stopped)."""
    waiting: set[asyncio.Task[Any]] = {*turns, *also}
    for _ in range(STOP_ROUNDS):
        waiting = {t for t in waiting if not t.done()}
        if not waiting:
            return waiting
        for task in turns:
            task.cancel()
        waiting = (await asyncio.wait(waiting, timeout=timeout))[1]
    return waiting


def turn_running(method: str, session_id: str) -> RpcError:
    """The refusal of a second turn in a session that is running one."""
    return RpcError(
        REQUEST_FAILED,
        f"{method}: a turn is already running in session {session_id!r} (cancel it first)",
    )


class RunningTurns:
    """A front end's running turns, one per session (see the module docstring)."""

    def __init__(self) -> None:
        self._by_session: dict[str, asyncio.Task[TurnResult]] = {}
        # Every turn task until it ends: a cancelled turn still records its end.
        self._tasks: set[asyncio.Task[TurnResult]] = set()

    def refuse_second(self, method: str, session_id: str) -> None:
        """Raise `turn_running` when `session_id` is running a turn."""
        if session_id in self._by_session:
            raise turn_running(method, session_id)

    def running(self, session_id: str) -> bool:
        return session_id in self._by_session

    def start(
        self, method: str, engine: EngineApi, session_id: str, ask: TurnAsk
    ) -> asyncio.Task[TurnResult]:
        """The task of the turn `ask` in `session_id`, running (or `turn_running`)."""
        self.refuse_second(method, session_id)
        task = asyncio.ensure_future(ask.run(engine, session_id))
        self._by_session[session_id] = task
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def finish(self, session_id: str, task: asyncio.Task[TurnResult]) -> TurnResult | None:
        """`await_turn(task)`; the session is free for its next turn once this returns."""
        try:
            return await await_turn(task)
        finally:
            if self._by_session.get(session_id) is task:
                del self._by_session[session_id]

    def cancel(self, session_id: str) -> bool:
        """Cancel the session's running turn; False when it runs none."""
        task = self._by_session.get(session_id)
        if task is None:
            return False
        task.cancel()
        return True

    def cancel_all(self) -> None:
        for task in list(self._tasks):
            task.cancel()

    async def stop_all(
        self, also: Iterable[asyncio.Task[Any]] = (), timeout: float = TURN_STOP_TIMEOUT_S
    ) -> set[asyncio.Task[Any]]:
        """Cancel every turn and wait for each (and for `also`) to end: `stop_tasks`; the tasks
        still running after it."""
        return await stop_tasks(set(self._tasks), also, timeout)
