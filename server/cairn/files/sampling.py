"""A bounded sample of a text read as a stream: its head, its tail and its error lines.

A file too large to hold whole (a 2 MB log, a 300 MB build output) is still
worth showing: `LineSampler` is fed the text piece by piece and keeps, in
memory bounded by its `SampleShape` (never by the text), the first `head`
lines, the last `tail` lines, and the first and the last `max_errors` lines
the caller's `is_error` recognises, each with `context` lines around it.
Every kept line is cut after `max_line_chars` characters (its whole length
is remembered), so one 300 MB line costs no more than a short one. The
`LineSample` it yields answers what `cairn.context.excerpt` needs to render
an excerpt (its `Lines` protocol): the line count, the kept lines, their
lengths and the size of any range left out.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from cairn.files.text import cut_line_marker


@dataclass(frozen=True)
class SampleShape:
    """What a sample keeps: lines of the head and tail, error lines, context, line width."""

    head: int
    tail: int
    max_errors: int
    context: int
    max_line_chars: int


@dataclass(frozen=True, slots=True)
class _Line:
    index: int
    start: int
    length: int
    text: str


@dataclass
class _Window:
    """An error line and the lines around it."""

    error: int
    lines: list[_Line]
    after: int


@dataclass
class LineSample:
    """The lines a sampler kept of a text, with the size of everything it saw."""

    total: int
    total_chars: int
    errors: Sequence[int]
    kept: dict[int, _Line] = field(default_factory=dict)

    def line(self, index: int) -> str:
        kept = self.kept[index]
        hidden = kept.length - len(kept.text)
        return kept.text if hidden <= 0 else f"{kept.text}{cut_line_marker(hidden)}"

    def length(self, index: int) -> int:
        return self.kept[index].length

    def _start(self, index: int) -> int:
        if index <= 0:
            return 0
        if index >= self.total:
            return self.total_chars
        kept = self.kept.get(index)
        if kept is not None:
            return kept.start
        before = self.kept[index - 1]
        return before.start + before.length + 1

    def span_chars(self, first: int, last: int) -> int:
        return self._start(last) - self._start(first)


class LineSampler:
    """Keeps a `SampleShape` of a text fed to it in pieces (`feed`, then `finish`)."""

    def __init__(self, shape: SampleShape, is_error: Callable[[str], bool]) -> None:
        self.shape = shape
        self._is_error = is_error
        self._kept: dict[int, _Line] = {}
        self._first: list[_Window] = []
        self._last: deque[_Window] = deque(maxlen=shape.max_errors + shape.tail)
        self._recent: deque[_Line] = deque(maxlen=shape.context)
        self._tail: deque[_Line] = deque(maxlen=shape.tail)
        self._open: _Window | None = None
        self._index = 0
        self._offset = 0
        self._partial: list[str] = []
        self._partial_chars = 0
        self._partial_length = 0

    def feed(self, text: str) -> None:
        """Take the next piece of the text (lines may span pieces)."""
        pieces = text.split("\n")
        for piece in pieces[:-1]:
            self._extend(piece)
            self._end_line()
        self._extend(pieces[-1])

    def finish(self) -> LineSample:
        """The sample of everything fed (a last line without a newline counts)."""
        if self._partial_length or self._index == 0:
            self._end_line()
        kept = dict(self._kept)
        windows = [*self._first, *self._last]
        for window in windows:
            kept.update((line.index, line) for line in window.lines)
        kept.update((line.index, line) for line in self._tail)
        errors = sorted({window.error for window in windows})
        return LineSample(total=self._index, total_chars=self._offset, errors=errors, kept=kept)

    def _extend(self, piece: str) -> None:
        room = self.shape.max_line_chars - self._partial_chars
        if room > 0 and piece:
            kept = piece[:room]
            self._partial.append(kept)
            self._partial_chars += len(kept)
        self._partial_length += len(piece)

    def _end_line(self) -> None:
        text = "".join(self._partial)
        line = _Line(self._index, self._offset, self._partial_length, text)
        self._partial.clear()
        self._partial_chars = 0
        self._offset += self._partial_length + 1
        self._partial_length = 0
        self._index += 1
        self._keep(line)

    def _keep(self, line: _Line) -> None:
        shape = self.shape
        if line.index < shape.head:
            self._kept[line.index] = line
        elif self._is_error(line.text):
            window = _Window(line.index, [*self._recent, line], shape.context)
            if len(self._first) < shape.max_errors:
                self._first.append(window)
            else:
                self._last.append(window)
            self._open = window
        elif self._open is not None and self._open.after > 0:
            self._open.lines.append(line)
            self._open.after -= 1
        self._recent.append(line)
        self._tail.append(line)
