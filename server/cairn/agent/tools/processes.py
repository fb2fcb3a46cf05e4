"""The process groups of the shell commands an engine's tools are running right now.

`run_command` starts every command in its own process group and registers
it here until the command has ended. A front end that must stop at once (a
signal to `cairn run`) kills them all with `kill_all()` before cancelling the
turn, so nothing the agent started outlives it even if the turn's own
cleanup never runs. Safe to call from a signal handler: it only reads a set
and calls `os.killpg`.
"""

from __future__ import annotations

import contextlib
import os
import signal


class ProcessGroups:
    """Process group ids of running commands."""

    def __init__(self) -> None:
        self._groups: set[int] = set()

    def add(self, pgid: int) -> None:
        self._groups.add(pgid)

    def discard(self, pgid: int) -> None:
        self._groups.discard(pgid)

    def running(self) -> list[int]:
        return sorted(self._groups)

    def kill_all(self) -> list[int]:
        """SIGKILL every registered group; the ids that were signalled."""
        killed: list[int] = []
        for pgid in list(self._groups):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pgid, signal.SIGKILL)
                killed.append(pgid)
        return killed
