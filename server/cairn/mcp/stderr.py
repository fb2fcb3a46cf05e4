"""A stdio MCP server's stderr: its last lines (for error reasons) and its end (the server exited).

The server writes to a pipe whose read end this module drains on the event
loop; each line goes to Cairn's log at debug level and the last
`TAIL_LINES` are kept, so a server that fails to start or crashes is
reported with what it said last. When every writer has closed the pipe (the
server exited), `exited` is set: the connection then knows the server is
gone before the next call finds out.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections import deque
from typing import TextIO

from cairn.mcp.leftovers import pipe_writers

logger = logging.getLogger(__name__)

TAIL_LINES = 20
# Longest stderr line kept (a server may print a whole JSON document on one line).
MAX_LINE_CHARS = 500
READ_CHUNK_BYTES = 4096


class StderrTail:
    """One server process's stderr pipe (one per start)."""

    def __init__(self, server: str) -> None:
        self.server = server
        self.lines: deque[str] = deque(maxlen=TAIL_LINES)
        # Every line it wrote so far (the tail keeps the last TAIL_LINES of them).
        self.count = 0
        self.exited = asyncio.Event()
        read_fd, write_fd = os.pipe()
        self.inode = os.fstat(read_fd).st_ino  # both ends: how the server's processes are found
        self._reader = os.fdopen(read_fd, "rb", buffering=0)
        self.errlog: TextIO = os.fdopen(write_fd, "w", encoding="utf-8", errors="replace")
        self._task: asyncio.Task[None] | None = None
        self._partial = ""
        self._closed = False

    def start(self) -> None:
        """Start draining the pipe (on the running loop)."""
        self._task = asyncio.get_running_loop().create_task(self._drain())

    def spawned(self) -> None:
        """The server has its copy of the write end: drop ours, so its exit ends the pipe."""
        with contextlib.suppress(OSError):
            self.errlog.close()

    def _add(self, text: str) -> None:
        lines = (self._partial + text).split("\n")
        self._partial = lines.pop()
        for line in lines:
            line = line.rstrip()
            if line:
                logger.debug("mcp %s: %s", self.server, line)
                self.lines.append(line[:MAX_LINE_CHARS])
                self.count += 1

    async def _drain(self) -> None:
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader()
        transport: asyncio.BaseTransport | None = None
        try:
            transport, _ = await loop.connect_read_pipe(
                lambda: asyncio.StreamReaderProtocol(reader), self._reader
            )
            while chunk := await reader.read(READ_CHUNK_BYTES):
                self._add(chunk.decode("utf-8", errors="replace"))
            self._add("\n")
        finally:
            if transport is not None:
                transport.close()
            else:
                self._reader.close()
            self.exited.set()

    def writers(self) -> list[int]:
        """The processes still writing to this stderr (the server and what it started)."""
        return [] if self._closed else pipe_writers(self.inode)

    def last(self) -> str | None:
        """The last line the server wrote to stderr, if any."""
        return self.lines[-1] if self.lines else None

    def close(self) -> None:
        """Stop draining and release both ends of the pipe."""
        self._closed = True
        self.spawned()
        if self._task is not None and not self._task.done():
            self._task.cancel()
        elif self._task is None:
            with contextlib.suppress(OSError):
                self._reader.close()
