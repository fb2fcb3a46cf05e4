"""Awaiting a cancellable turn: the one cancel path of both front ends.

A front end runs each engine turn in its own task, so a cancel (LSP's
`$/cancelRequest` or its progress bar, ACP's `session/cancel`) can stop the
turn alone while the request that started it is still answered: with the
partial result ("cancelled"), not an error. `await_turn` tells the two
cancellations apart: the turn's (None) and the request's own (re-raised, as
at shutdown). One turn at a time per session: `turn_running` is the refusal.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from cairn.frontends.codes import REQUEST_FAILED
from cairn.frontends.faults import RpcError

if TYPE_CHECKING:
    from cairn.models.events import TurnResult


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


def turn_running(method: str, session_id: str) -> RpcError:
    """The refusal of a second turn in a session that is running one."""
    return RpcError(
        REQUEST_FAILED,
        f"{method}: a turn is already running in session {session_id!r} (cancel it first)",
    )
