"""The compaction transcript in chunks, each within what one compaction call may read.

A summary covers any number of messages; when their transcript (every output
in full, `cairn.compaction.transcript`) does not fit one call, it is read in
chunks, in order, the notes of each (the narrative so far) carried into the
next as its previous summary. `transcript_lines` makes the lines a chunk is
packed from — each message's lines, a line too long for a chunk on its own
(minified text) cut at character boundaries — and `next_chunk` packs lines
from a position while they fit the room of the call at hand (which shrinks as
the notes grow). A message that continues from the previous chunk is headed
so, so even an output larger than the compaction window is read whole, over
several calls; the position after a chunk is its watermark.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

CONTINUED = "[message {message}, continued]"
# A single line is cut when it is over this share of a chunk's room.
LINE_SHARE = 0.5


@dataclass(frozen=True)
class Line:
    """One line of the transcript and the message (its position among the covered) it is of."""

    message: int
    text: str


def _segments(line: str, limit: int, count: Callable[[str], int]) -> list[str]:
    """A line, or a line too long for `limit` cut into pieces that fit."""
    tokens = count(line)
    if tokens <= limit:
        return [line]
    width = max(1, len(line) * limit // (2 * tokens))
    return [line[i : i + width] for i in range(0, len(line), width)]


def transcript_lines(texts: Sequence[str], room: int, count: Callable[[str], int]) -> list[Line]:
    """The lines of the per-message `texts` ('' ones skipped), none over part of `room`."""
    limit = max(1, int(room * LINE_SHARE))
    return [
        Line(index, segment)
        for index, text in enumerate(texts)
        if text
        for line in text.split("\n")
        for segment in _segments(line, limit, count)
    ]


def next_chunk(
    lines: Sequence[Line], start: int, room: int, count: Callable[[str], int]
) -> tuple[str, int]:
    """The chunk of lines from `start` that fits `room` tokens (at least one line), and the
    position after it."""
    taken: list[str] = []
    if 0 < start < len(lines) and lines[start].message == lines[start - 1].message:
        taken.append(CONTINUED.format(message=lines[start].message + 1))
    size = sum(count(t) + 1 for t in taken)
    end = start
    while end < len(lines):
        cost = count(lines[end].text) + 1
        if end > start and size + cost > room:
            break
        taken.append(lines[end].text)
        size += cost
        end += 1
    return "\n".join(taken), end
