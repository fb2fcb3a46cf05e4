"""Signals during `cairn run`: SIGINT (Ctrl-C), SIGTERM and SIGHUP cancel the running turn.

On the first signal the handler kills every running command's process group
at once (`ProcessGroups.kill_all`: from the handler itself, so even a busy
event loop does not delay it) and cancels the turn's task; the turn then
records what it produced and ends `cancelled`, and the command exits with
128 + the signal's number (130, 143, 129). A second Ctrl-C within
`SECOND_INTERRUPT_S` does not wait for that: it records the cancel if the
turn has not yet (`hard_exit`) and exits at once. Later signals only kill
command groups again. The signals and their exit codes are `cairn.stop_signals`'.

Python runs a signal handler in the main thread, between two bytecodes: the
handler only kills process groups and hands the rest to the event loop with
`call_soon_threadsafe`, so no trace write is ever interrupted halfway.
"""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import Callable
from types import FrameType, TracebackType
from typing import Any

from cairn.stop_signals import STOP_SIGNALS, exit_code

# A second Ctrl-C this soon after the first exits without waiting for the turn's cleanup.
SECOND_INTERRUPT_S = 2.0


class TurnSignals:
    """Installs the cancel handlers for one running turn (a context manager)."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        task: asyncio.Task[Any],
        kill_commands: Callable[[], object],
        hard_exit: Callable[[int], None],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.loop = loop
        self.task = task
        self.kill_commands = kill_commands
        self.hard_exit = hard_exit
        self.clock = clock
        self.received: int | None = None
        self._first_at = 0.0
        self._previous: dict[signal.Signals, Any] = {}

    def __enter__(self) -> TurnSignals:
        for signum in STOP_SIGNALS:
            self._previous[signum] = signal.signal(signum, self._handle)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        for signum, previous in self._previous.items():
            signal.signal(signum, previous)
        self._previous.clear()

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        self.kill_commands()
        now = self.clock()
        if self.received is None:
            self.received, self._first_at = signum, now
            self.loop.call_soon_threadsafe(self.task.cancel)
        elif signum == signal.SIGINT and now - self._first_at <= SECOND_INTERRUPT_S:
            self.loop.call_soon_threadsafe(self.hard_exit, exit_code(self.received))
