"""Stopping running turns when a connection ends: cancel, wait (bounded), cancel again.

A front end (the language server at `shutdown`, the ACP agent when its
client goes away) cancels its running turns and waits until each has
recorded its end before it closes the engines, so no record is cut off
and no MCP server is stopped under a turn still using it. `stop_tasks`
cancels the turn tasks and waits for them (and for any task that ends
with them, such as the request answering a turn) at most
`TURN_STOP_TIMEOUT_S`; a second cancel then cuts a slow patch short, and
what still runs after the second wait is returned for the caller to log.
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection, Iterable
from typing import Any

# Seconds cancelled turns get to record their end, and how many times they are cancelled
# (the second cancel cuts a slow patch short).
TURN_STOP_TIMEOUT_S = 5.0
STOP_ROUNDS = 2


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
