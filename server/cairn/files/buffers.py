"""Open editor documents: the text the editor holds (unsaved edits included) and its edits.

A `Buffer` keeps its text as a list of lines so that an incremental LSP change
touches only its lines; positions are UTF-16 (LSP's default encoding).
"""

from __future__ import annotations

from dataclasses import dataclass

from cairn.files.text import split_lines, utf16_to_index


@dataclass(frozen=True, slots=True)
class TextChange:
    """One LSP content change: a range (line/character, UTF-16) or None for the whole text."""

    text: str
    start: tuple[int, int] | None = None
    end: tuple[int, int] | None = None


class Buffer:
    """An open document kept as a list of lines, so an edit touches only its lines."""

    def __init__(self, text: str, version: int = 0, language_id: str = "") -> None:
        self.version = version
        self.language_id = language_id
        self._lines = split_lines(text)
        self._text: str | None = text

    def copy(self) -> Buffer:
        """A copy later edits of this one do not change (its lines shared, not split again:
        the context build copies every open buffer on the event loop)."""
        other = Buffer("", self.version, self.language_id)
        other._lines, other._text = list(self._lines), self._text
        return other

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = "".join(self._lines)
        return self._text

    @property
    def line_count(self) -> int:
        return len(self._lines)

    def line(self, index: int) -> str:
        return self._lines[index]

    def apply(self, change: TextChange) -> None:
        if change.start is None or change.end is None:
            self._lines = split_lines(change.text)
            self._text = change.text
            return
        last = len(self._lines) - 1
        (sl, sc), (el, ec) = change.start, change.end
        if sl > last:
            sl, sc = last, len(self._lines[last]) * 2
        if el > last:
            el, ec = last, len(self._lines[last]) * 2
        first_line, last_line = self._lines[sl], self._lines[el]
        first_body = first_line.rstrip("\r\n")
        last_body = last_line.rstrip("\r\n")
        prefix = first_line[: utf16_to_index(first_body, sc)]
        suffix = last_line[utf16_to_index(last_body, ec) :]
        replacement = split_lines(prefix + change.text + suffix)
        if replacement[-1] == "" and len(replacement) > 1 and el < last:
            replacement.pop()
        self._lines[sl : el + 1] = replacement
        if not self._lines:
            self._lines = [""]
        self._text = None
