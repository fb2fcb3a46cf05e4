"""The one output shortener: a long text as its head, its error lines (with context) and its tail.

Every place that shortens text uses it: a tool's output before the model sees
it (`agent/tools`, measured in characters), a log or tool result that does
not fit its share of the context (`context/degrade`, measured in tokens), and
a file too large to read whole, sampled by streaming
(`cairn.files.reading.read_sample_bounded`). Nothing is cut at an arbitrary
point (DESIGN §2.3): whole lines are kept, the first `head` and last `tail`
ones plus every error-looking line in between with `context` lines around
it (numbered; at most `max_errors` error lines, the first and the last ones
when there are more: the first failure and the final summary). The omitted
range is named; when an artifact (or the file itself) holds exactly these
lines, the marker says how to read them: `read_file("artifact:<id>",
start_line=a, end_line=b)`. The tool path also clips single lines longer
than `max_line_chars` (minified code, one-line JSON). When the excerpt is
still too large, the head and the tail shrink first (divided by
`SHRINK_FACTOR`), the error lines last: they are what the excerpt is for.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from cairn.files.text import cut_line_marker

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
    "timed out",
    "aborted",
)
ERROR_CODE = re.compile(r"\bE\d{3,4}\b")
# Lines kept before and after each error line (a traceback's frames, a compiler's caret).
ERROR_CONTEXT_LINES = 2


def is_error_line(line: str) -> bool:
    lower = line.lower()
    return any(word in lower for word in ERROR_WORDS) or ERROR_CODE.search(line) is not None


class Lines(Protocol):
    """The lines an excerpt is made of: all of a text, or a streamed sample of a file."""

    @property
    def total(self) -> int:
        """How many lines there are."""
        ...

    @property
    def errors(self) -> Sequence[int]:
        """Indexes of the error lines known, ascending (in a sample: the first and last ones)."""
        ...

    def line(self, index: int) -> str:
        """The text of line `index` (0-based; only kept lines of a sample, which may be cut)."""
        ...

    def length(self, index: int) -> int:
        """The whole length of line `index`, in characters."""
        ...

    def span_chars(self, first: int, last: int) -> int:
        """Characters of lines `first`..`last` (exclusive end), newlines included."""
        ...


class TextLines:
    """Every line of a text held in memory."""

    def __init__(self, lines: Sequence[str], errors: Sequence[int] | None = None) -> None:
        self._lines = lines
        self._errors = (
            [i for i, line in enumerate(lines) if is_error_line(line)] if errors is None else errors
        )

    @property
    def total(self) -> int:
        return len(self._lines)

    @property
    def errors(self) -> Sequence[int]:
        return self._errors

    def line(self, index: int) -> str:
        return self._lines[index]

    def length(self, index: int) -> int:
        return len(self._lines[index])

    def span_chars(self, first: int, last: int) -> int:
        return sum(len(self._lines[i]) + 1 for i in range(first, last))


@dataclass(frozen=True)
class ExcerptShape:
    """How many lines an excerpt keeps: head, tail, error lines between, context around each."""

    head: int
    tail: int
    max_errors: int
    context: int = ERROR_CONTEXT_LINES

    def shrunk(self) -> ExcerptShape | None:
        """A smaller shape (head and tail first, then the error lines); None when minimal."""
        if self.head > 1 or self.tail > 1:
            return ExcerptShape(
                max(1, self.head // SHRINK_FACTOR),
                max(1, self.tail // SHRINK_FACTOR),
                self.max_errors,
                self.context,
            )
        if self.context > 0:
            return ExcerptShape(1, 1, self.max_errors, self.context // SHRINK_FACTOR)
        if self.max_errors > 1:
            return ExcerptShape(1, 1, self.max_errors // SHRINK_FACTOR, 0)
        return None


def read_hint(ref: str, start_line: int, end_line: int) -> str:
    """The exact tool call that reads lines `start_line`..`end_line` of `ref` (a path or
    `artifact:<id>`)."""
    return f'read_file("{ref}", start_line={start_line}, end_line={end_line})'


def artifact_hint(artifact_id: str, start_line: int, end_line: int) -> str:
    """The exact tool call that reads lines `start_line`..`end_line` of an artifact."""
    return read_hint(f"{ARTIFACT_REF_PREFIX}{artifact_id}", start_line, end_line)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def chosen_errors(errors: Sequence[int], first: int, last: int, limit: int) -> list[int]:
    """The error lines of `first`..`last` shown: all, or the first and the last ones."""
    inside = [i for i in errors if first <= i < last]
    if len(inside) <= limit:
        return inside
    early = (limit + 1) // 2
    return inside[:early] + inside[len(inside) - (limit - early) :]


def _windows(errors: Sequence[int], context: int, first: int, last: int) -> list[int]:
    """Every line shown for `errors`: each with `context` lines around it, within the range."""
    shown: set[int] = set()
    for index in errors:
        shown.update(range(max(first, index - context), min(last, index + context + 1)))
    return sorted(shown)


def _marker(
    lines: Lines, first: int, last: int, kept: Sequence[int], errors: int, ref: str | None
) -> str:
    """The line standing for lines `first`..`last` (0-based, exclusive end) left out."""
    chars = lines.span_chars(first, last) - sum(lines.length(i) + 1 for i in kept)
    among = f" ({_plural(errors, 'error line')} among them kept below)" if errors else ""
    hint = f"; {read_hint(ref, first + 1, last)} shows them" if ref else ""
    return (
        f"[... {chars} characters omitted: lines {first + 1}-{last} of {lines.total}"
        f"{among}{hint} ...]"
    )


def _shown(lines: Lines, index: int, max_chars: int | None) -> str:
    """Line `index` as shown: whole, or cut after `max_chars` characters."""
    length = lines.length(index)
    if max_chars is None or length <= max_chars:
        return lines.line(index)
    return f"{lines.line(index)[:max_chars]}{cut_line_marker(length - max_chars)}"


def _middle(lines: Lines, kept: Sequence[int], max_chars: int | None) -> list[str]:
    """The kept middle lines, numbered, a `[...]` line after each run of consecutive ones."""
    parts: list[str] = []
    for position, index in enumerate(kept):
        parts.append(f"{index + 1}: {_shown(lines, index, max_chars)}")
        if position + 1 == len(kept) or kept[position + 1] != index + 1:
            parts.append("[...]")
    return parts


def shown_count(lines: Lines, shape: ExcerptShape) -> int:
    """How many of `lines` `excerpt_of` shows with `shape` (all when it would leave none out)."""
    total = lines.total
    if total <= shape.head + shape.tail:
        return total
    last = total - shape.tail
    errors = chosen_errors(lines.errors, shape.head, last, shape.max_errors)
    return shape.head + len(_windows(errors, shape.context, shape.head, last)) + shape.tail


def excerpt_of(
    lines: Lines,
    shape: ExcerptShape,
    *,
    ref: str | None = None,
    max_line_chars: int | None = None,
) -> str | None:
    """Head, error lines with context (numbered) and tail of `lines`; None when nothing
    would change. `ref` names what holds exactly these lines (for the read hints)."""
    total = lines.total
    if total <= shape.head + shape.tail:
        if max_line_chars is None or all(lines.length(i) <= max_line_chars for i in range(total)):
            return None
        clipped = [_shown(lines, i, max_line_chars) for i in range(total)]
        if ref:
            clipped.append(f"[long lines cut; {read_hint(ref, 1, total)} shows them whole]")
        return "\n".join(clipped)
    last = total - shape.tail
    errors = chosen_errors(lines.errors, shape.head, last, shape.max_errors)
    kept = _windows(errors, shape.context, shape.head, last)
    parts = [_shown(lines, i, max_line_chars) for i in range(shape.head)]
    parts.append(_marker(lines, shape.head, last, kept, len(errors), ref))
    parts.extend(_middle(lines, kept, max_line_chars))
    parts.extend(_shown(lines, i, max_line_chars) for i in range(last, total))
    return "\n".join(parts)


def excerpt(
    lines: Sequence[str],
    errors: Sequence[int],
    shape: ExcerptShape,
    *,
    artifact_id: str | None = None,
    max_line_chars: int | None = None,
) -> str | None:
    """`excerpt_of` for lines held in memory (`errors`: their error lines, ascending)."""
    text_lines = TextLines(lines, errors)
    ref = f"{ARTIFACT_REF_PREFIX}{artifact_id}" if artifact_id else None
    return excerpt_of(text_lines, shape, ref=ref, max_line_chars=max_line_chars)


def fitting_excerpt_of(
    lines: Lines,
    limit: int,
    measure: Measure,
    shape: ExcerptShape,
    *,
    note: str = "",
    ref: str | None = None,
    max_line_chars: int | None = None,
) -> str | None:
    """The largest excerpt of `lines` (plus the `note` line) within `limit`, or None."""
    current: ExcerptShape | None = shape
    while current is not None:
        shortened = excerpt_of(lines, current, ref=ref, max_line_chars=max_line_chars)
        if shortened is not None:
            body = f"{shortened}\n{note}" if note else shortened
            if measure(body) <= limit:
                return body
        current = current.shrunk()
    return None


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
    ref = f"{ARTIFACT_REF_PREFIX}{artifact_id}" if artifact_id else None
    return fitting_excerpt_of(
        TextLines(text.splitlines()),
        limit,
        measure,
        shape,
        note=note,
        ref=ref,
        max_line_chars=max_line_chars,
    )
