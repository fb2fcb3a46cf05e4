"""The per-trace write lock: `fcntl.flock` on `<trace>/lock`, holding the writer's pid.

Taken on a trace's first write and released by `close()`. The kernel drops
it when the process dies (even by SIGKILL), so a crash never leaves a trace
locked. Another process that tries to write gets `TraceLockedError` naming
the holder's pid.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from cairn.errors import TraceLockedError
from cairn.trace.files import FILE_MODE, write_all

PID_READ_BYTES = 32


class TraceLock:
    """An exclusive, non-blocking lock on one trace folder."""

    def __init__(self, path: Path, session_id: str) -> None:
        self.path = path
        self.session_id = session_id
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire(self) -> None:
        """Take the lock (no-op when already held); TraceLockedError if another holds it."""
        if self._fd is not None:
            return
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, FILE_MODE)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, PID_READ_BYTES, 0).decode("ascii", "replace").strip()
            os.close(fd)
            if holder == str(os.getpid()):
                raise TraceLockedError(
                    f"session {self.session_id} is already open for writing in this process "
                    "(use one TraceStore per workspace)"
                ) from None
            raise TraceLockedError(
                f"session {self.session_id} is being written by another process "
                f"(pid {holder or 'unknown'})"
            ) from None
        except BaseException:
            os.close(fd)
            raise
        os.ftruncate(fd, 0)
        write_all(fd, f"{os.getpid()}\n".encode("ascii"))
        self._fd = fd

    def holder(self) -> str | None:
        """The pid (as written) of another process holding the lock, None when it is free.

        Probes with a non-blocking lock that is dropped at once."""
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except FileNotFoundError:
            return None
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                pid = os.pread(fd, PID_READ_BYTES, 0).decode("ascii", "replace").strip()
                return pid or "unknown"
            fcntl.flock(fd, fcntl.LOCK_UN)
            return None
        finally:
            os.close(fd)

    def release(self) -> None:
        """Drop the lock (no-op when not held)."""
        if self._fd is None:
            return
        fcntl.flock(self._fd, fcntl.LOCK_UN)
        os.close(self._fd)
        self._fd = None
