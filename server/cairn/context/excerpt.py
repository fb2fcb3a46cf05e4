"""The one output shortener: a long text as its head, its error lines and its tail.

Both places that shorten text use it: a tool's output before the model sees
it (`agent/tools`, measured in characters) and a log or tool result that does
not fit its share of the context (`context/degrade`, measured in tokens).
Nothing is cut at an arbitrary point (DESIGN §2.3): whole lines are kept, the
first `head` and last `tail` ones plus every error-looking line in between
(numbered, at most `max_errors`). The omitted range is named; when an
artifact holds exactly the shortened text, the marker says how to read it:
`read_file("artifact:<id>", start_line=a, end_line=b)`. The tool path also
clips single lines longer than `max_line_chars` (minified code, one-line
JSON), the artifact keeping them whole. When the excerpt is still too large,
the line counts are divided by `SHRINK_FACTOR` until it fits.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

Measure = Callable[[str], int]

ARTIFACT_REF_PREFIX = "artifact:"
# Excerpts are retried with the line counts divided by this until they fit.
SHRINK_FACTOR = 2
# A line is an "error line" when, lowercased, it contains one of these words,
# or when it carries a compiler/linter code like E0308 or E501.
ERROR_WORDS: tuple[str, ...] = (
    "error",
    "exception",
    "traceback",
    "failed",
    "failure",
    "fatal",
    "panic",
    "assert",
    "critical",
    "denied",
    "not found",
    "cannot",
    "undefined",
    "segmentation fault",
)
ERROR_CODE = re.compile(r"\bE\d{3,4}\b")


def is_error_line(line: str) -> bool:
    lower = line.lower()
    return any(word in lower for word in ERROR_WORDS) or ERROR_CODE.search(line) is not None


@dataclass(frozen=True)
class ExcerptShape:
    """How many lines an excerpt keeps: from the head, from the tail, error lines between."""

    head: int
    tail: int
    max_errors: int

    def shrunk(self) -> ExcerptShape | None:
        """Every count divided by `SHRINK_FACTOR` (at least 1); None when already minimal."""
        if self.head == self.tail == self.max_errors == 1:
            return None
        return ExcerptShape(
            max(1, self.head // SHRINK_FACTOR),
            max(1, self.tail // SHRINK_FACTOR),
            max(1, self.max_errors // SHRINK_FACTOR),
        )


def artifact_hint(artifact_id: str, start_line: int, end_line: int) -> str:
    """The exact tool call that reads lines `start_line`..`end_line` of an artifact."""
    return (
        f'read_file("{ARTIFACT_REF_PREFIX}{artifact_id}", '
        f"start_line={start_line}, end_line={end_line})"
    )


def clip_line(line: str, max_chars: int) -> str:
    """`line`, or its first `max_chars` characters and how many more there were."""
    if len(line) <= max_chars:
        return line
    return f"{line[:max_chars]}… [line cut: {len(line) - max_chars} more characters]"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _marker(
    lines: Sequence[str], first: int, last: int, kept: Sequence[int], artifact_id: str | None
) -> str:
    """The line standing for lines `first`..`last` (0-based, exclusive end) left out."""
    kept_set = set(kept)
    chars = sum(len(lines[i]) + 1 for i in range(first, last) if i not in kept_set)
    errors = f" ({_plural(len(kept), 'error line')} among them kept below)" if kept else ""
    hint = f"; {artifact_hint(artifact_id, first + 1, last)} shows them" if artifact_id else ""
    return (
        f"[... {chars} characters omitted: lines {first + 1}-{last} of {len(lines)}"
        f"{errors}{hint} ...]"
    )


def excerpt(
    lines: Sequence[str],
    errors: Sequence[int],
    shape: ExcerptShape,
    *,
    artifact_id: str | None = None,
    max_line_chars: int | None = None,
) -> str | None:
    """Head, error lines (numbered) and tail of `lines`; None when nothing would change.

    `errors` are the indexes of every error line of `lines`, ascending.
    `artifact_id` names an artifact holding exactly these lines (for the hint).
    """
    clip: Callable[[str], str] = (
        (lambda line: clip_line(line, max_line_chars)) if max_line_chars else (lambda line: line)
    )
    if len(lines) <= shape.head + shape.tail:
        if max_line_chars is None or all(len(line) <= max_line_chars for line in lines):
            return None
        clipped = [clip(line) for line in lines]
        if artifact_id:
            clipped.append(
                f"[long lines cut; {artifact_hint(artifact_id, 1, len(lines))} shows them whole]"
            )
        return "\n".join(clipped)
    last = len(lines) - shape.tail
    kept = [i for i in errors if shape.head <= i < last][: shape.max_errors]
    parts = [clip(line) for line in lines[: shape.head]]
    parts.append(_marker(lines, shape.head, last, kept, artifact_id))
    if kept:
        parts.extend(f"{i + 1}: {clip(lines[i])}" for i in kept)
        parts.append("[...]")
    parts.extend(clip(line) for line in lines[last:])
    return "\n".join(parts)


def fitting_excerpt(
    text: str,
    limit: int,
    measure: Measure,
    shape: ExcerptShape,
    *,
    note: str = "",
    artifact_id: str | None = None,
    max_line_chars: int | None = None,
) -> str | None:
    """The largest excerpt of `text` (plus the `note` line) within `limit`, or None.

    `measure` is the unit of `limit` (`len` for characters, a token counter for
    tokens). None when no excerpt fits, or when the excerpt would be `text` itself.
    """
    lines = text.splitlines()
    errors = [i for i, line in enumerate(lines) if is_error_line(line)]
    current: ExcerptShape | None = shape
    while current is not None:
        shortened = excerpt(
            lines, errors, current, artifact_id=artifact_id, max_line_chars=max_line_chars
        )
        if shortened is not None:
            body = f"{shortened}\n{note}" if note else shortened
            if measure(body) <= limit:
                return body
        current = current.shrunk()
    return None
