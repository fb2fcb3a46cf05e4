"""Killing what is left of a stdio MCP server that did not stop in time.

The SDK starts each stdio server in a session of its own and stops it by
closing its stdin and then signalling its process group; a server that
outlives the time Cairn gives it (it ignores both, or the stop was cut
short) is found by its stderr, a pipe Cairn made for it (`StderrTail`):
every process whose fd 2 is that pipe is the server or a child that
inherited it. Each is sent SIGKILL, to its whole process group when it
leads one (the server does). Processes are found through `/proc` (Linux);
where there is none nothing is found, and the caller says so.
"""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path

PROC = Path("/proc")
STDERR_FD = 2


def pipe_writers(inode: int, proc: Path = PROC) -> list[int]:
    """The processes (other than this one) whose stderr is the pipe `inode`, by pid."""
    target = f"pipe:[{inode}]"
    try:
        entries = [entry for entry in proc.iterdir() if entry.name.isdigit()]
    except OSError:
        return []
    found: list[int] = []
    for entry in entries:
        with contextlib.suppress(OSError):  # ended meanwhile, or another user's
            if os.readlink(entry / "fd" / str(STDERR_FD)) == target:
                found.append(int(entry.name))
    return sorted(pid for pid in found if pid != os.getpid())


def kill_processes(pids: list[int]) -> list[int]:
    """SIGKILL each process (its group when it leads one); the pids that were signalled."""
    killed: list[int] = []
    if not pids:
        return killed
    own_group = os.getpgid(0)
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            group = os.getpgid(pid)
            if group == pid and group != own_group:
                os.killpg(group, signal.SIGKILL)
            else:
                os.kill(pid, signal.SIGKILL)
            killed.append(pid)
    return killed
