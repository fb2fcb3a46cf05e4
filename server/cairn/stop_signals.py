"""The signals that stop a Cairn process, and the exit code each leaves (one definition).

SIGINT (Ctrl-C), SIGTERM (a supervisor, an editor ending its server) and
SIGHUP (the terminal gone) all mean "stop now, losing nothing":
`cairn run` cancels its turn (`cairn.commands.signals`); `cairn serve` and
`cairn acp` end their connection the way `exit` or a closed stdin does
(`on_stop_signals` calls their stop: the running turns are recorded as
cancelled and the MCP servers stopped within their bound). A process stopped
so exits with 128 + the signal's number, the shell's convention (130, 143,
129).
"""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager

logger = logging.getLogger(__name__)

STOP_SIGNALS: tuple[signal.Signals, ...] = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
# The shell's convention: a process ended by signal N exits with 128 + N.
SIGNAL_EXIT_BASE = 128


def exit_code(signum: int) -> int:
    """The exit code of a process stopped by signal `signum` (130 for SIGINT, 143 for SIGTERM)."""
    return SIGNAL_EXIT_BASE + signum


def signal_name(signum: int) -> str:
    return signal.Signals(signum).name


@contextmanager
def on_stop_signals(
    loop: asyncio.AbstractEventLoop, stop: Callable[[int], object]
) -> Iterator[list[int]]:
    """While inside, the first stop signal calls `stop(signum)` on the loop; later ones are
    only logged (the stop it started is bounded). Yields the signals received, in order.
    Where the loop cannot watch signals (not the main thread, or a platform without them)
    nothing is installed and the signals keep their default effect."""
    received: list[int] = []

    def on_signal(signum: int) -> None:
        received.append(signum)
        if len(received) == 1:
            logger.info("%s received: stopping", signal_name(signum))
            stop(signum)
        else:
            logger.warning("%s received: already stopping", signal_name(signum))

    installed: list[signal.Signals] = []
    for signum in STOP_SIGNALS:
        try:
            loop.add_signal_handler(signum, on_signal, int(signum))
        except (NotImplementedError, RuntimeError, ValueError):
            continue  # no signal handlers here (Windows, a loop off the main thread): skip it
        installed.append(signum)
    try:
        yield received
    finally:
        for signum in installed:
            loop.remove_signal_handler(signum)
