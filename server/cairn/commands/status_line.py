"""The live status line `cairn run` shows on a terminal while Cairn waits (rich).

One line on stderr, under everything printed, with a spinner and the wait:
the repository map being built (files scanned of the total), MCP servers
starting, a summary being written, a retry counting down to its next
request. Several waits at once share the line, newest first. It is transient:
it is erased before any other line is printed and when the wait ends, so
what stays on the terminal is what `cairn run` prints without it. Off with
`--quiet`, and off when stderr is not a terminal (pipes, files, CI logs stay
clean).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TextIO

from rich.console import Console
from rich.live import Live
from rich.spinner import Spinner
from rich.text import Text

REFRESH_PER_SECOND = 4
SEPARATOR = " · "


@dataclass(frozen=True)
class Wait:
    """One wait shown: its text and, for a countdown, when it ends (monotonic seconds)."""

    text: str
    until: float | None = None

    def shown(self, now: float) -> str:
        if self.until is None:
            return self.text
        return f"{self.text} ({max(0, math.ceil(self.until - now))} s)"


class _Line:
    """The renderable: one spinner whose text is the current waits, read at each refresh."""

    def __init__(self, status: StatusLine) -> None:
        self._status = status
        self._spinner = Spinner("dots", style="cyan")

    def __rich__(self) -> Spinner:
        self._spinner.update(text=Text(self._status.text(), overflow="ellipsis", no_wrap=True))
        return self._spinner


class StatusLine:
    """The waits shown on the terminal (see the module docstring); thread-safe."""

    def __init__(self, stream: TextIO, enabled: bool) -> None:
        self.enabled = enabled
        self._console = Console(file=stream, highlight=False) if enabled else None
        self._live: Live | None = None
        self._waits: dict[str, Wait] = {}
        self._lock = threading.RLock()

    @classmethod
    def for_terminal(cls, stream: TextIO, quiet: bool) -> StatusLine:
        """On when `stream` is a terminal and not `quiet`."""
        return cls(stream, enabled=not quiet and stream.isatty())

    def text(self) -> str:
        now = time.monotonic()
        with self._lock:
            return SEPARATOR.join(wait.shown(now) for wait in reversed(self._waits.values()))

    def show(self, key: str, text: str, wait_s: float | None = None) -> None:
        """Show (or update) the wait `key`; `wait_s` counts down the seconds left."""
        until = time.monotonic() + wait_s if wait_s is not None else None
        with self._lock:
            self._waits[key] = Wait(text, until)
            self._start()
            live = self._live
        if live is not None:  # drawn now: a wait shorter than a refresh is still seen
            live.refresh()

    def drop(self, key: str) -> None:
        """The wait `key` is over (the line goes when no wait is left)."""
        with self._lock:
            if self._waits.pop(key, None) is not None and not self._waits:
                self._stop()

    @contextmanager
    def paused(self) -> Iterator[None]:
        """Erase the line while something else is printed, then show it again."""
        with self._lock:
            showing = self._live is not None
            self._stop()
            try:
                yield
            finally:
                if showing and self._waits:
                    self._start()

    def close(self) -> None:
        with self._lock:
            self._waits.clear()
            self._stop()

    def _start(self) -> None:
        if self._console is None or self._live is not None:
            return
        self._live = Live(
            _Line(self),
            console=self._console,
            transient=True,
            refresh_per_second=REFRESH_PER_SECOND,
            redirect_stdout=False,
            redirect_stderr=False,
        )
        self._live.start()

    def _stop(self) -> None:
        if self._live is not None:
            live, self._live = self._live, None
            live.stop()
