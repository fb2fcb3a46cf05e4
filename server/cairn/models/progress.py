"""A wait the front ends show while it lasts: `ProgressEvent`.

The engine reports the waits a user would otherwise sit through in silence:
the repository map being built (`map`: files scanned of the total), MCP
servers starting (`mcp`), a model call waiting to be retried (`retry`: the
seconds until the next request). Each wait is one `begin`, any number of
`report`s and one `end`, under one `key`. Summaries being written have their
own events (`CompactionEvent`). Front ends translate: a status line on the
terminal, `$/progress` in an LSP editor, a notice in an ACP client. Not a
wire type of its own.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

ProgressKey = Literal["map", "mcp", "retry"]
ProgressStage = Literal["begin", "report", "end"]


class ProgressEvent(BaseModel, frozen=True):
    """One step of a wait (see the module docstring)."""

    key: ProgressKey
    stage: ProgressStage
    # What is waited for ("Building the repository map"); the same for every step of a wait.
    title: str
    # Where it stands ("1,200 of 5,000 files"), or how it ended.
    message: str | None = None
    done: int | None = None
    total: int | None = None
    # Seconds from now until the wait ends (a retry's countdown).
    wait_s: float | None = None
    # The session it is for, when it is for one (the map is the workspace's).
    session_id: str | None = None

    @property
    def percentage(self) -> int | None:
        """How far, 0-100, when the total is known."""
        if self.done is None or not self.total:
            return None
        return min(100, self.done * 100 // self.total)
