"""An edited buffer kept parsed: edits re-parse incrementally.

`ParsedDocument.apply_edit` replaces a range given as LSP positions (line and UTF-16
character); `replace_text` takes the buffer's new text whole and works out the one range
that changed (the common prefix and suffix of the old and new bytes, found by bisecting
`memoryview` comparisons). Either way the old tree is told what changed (`tree.edit`) and
the text is re-parsed with it (`parser.parse(new, old_tree)`), so only the edited region
is parsed again. Everything reads the new tree (the edited old tree has no text).
`full_parses` and `incremental_parses` count the parses a document made.
"""

from __future__ import annotations

from dataclasses import dataclass

from tree_sitter import Point, Tree

from cairn.code.languages import language_for_path, new_parser, parse_bytes
from cairn.code.outlines import ENCODE_ERRORS, TEXT_ENCODING, outline_from_tree
from cairn.code.tags import Definition, find_definitions
from cairn.errors import InvalidRequestError
from cairn.files.text import LINE_BREAK, utf16_to_index


@dataclass(frozen=True, slots=True)
class TextEdit:
    """Replace the range (start line/character)–(end line/character) by `text` (LSP units)."""

    start_line: int
    start_character: int
    end_line: int
    end_character: int
    text: str


def _encode(text: str) -> bytes:
    return text.encode(TEXT_ENCODING, ENCODE_ERRORS)


def _line_starts(text: str) -> list[int]:
    """String index where each LSP line starts (`\\n`, `\\r\\n` and `\\r` end a line)."""
    return [0, *(match.end() for match in LINE_BREAK.finditer(text))]


def _point(data: bytes, offset: int) -> Point:
    """tree-sitter row/column (bytes) of the byte `offset` in `data`."""
    row = data.count(b"\n", 0, offset)
    line_start = data.rfind(b"\n", 0, offset) + 1
    return Point(row, offset - line_start)


def _common_prefix(old: bytes, new: bytes, limit: int) -> int:
    """Length of the longest common prefix of `old` and `new`, at most `limit`."""
    first, second = memoryview(old), memoryview(new)
    low, high = 0, limit
    while low < high:
        middle = (low + high + 1) // 2
        if first[:middle] == second[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _common_suffix(old: bytes, new: bytes, limit: int) -> int:
    """Length of the longest common suffix of `old` and `new`, at most `limit`."""
    first, second = memoryview(old), memoryview(new)
    low, high = 0, limit
    while low < high:
        middle = (low + high + 1) // 2
        if first[len(old) - middle :] == second[len(new) - middle :]:
            low = middle
        else:
            high = middle - 1
    return low


def changed_span(old: bytes, new: bytes) -> tuple[int, int, int]:
    """(start, old end, new end): the one byte range that turns `old` into `new`."""
    shortest = min(len(old), len(new))
    start = _common_prefix(old, new, shortest)
    suffix = _common_suffix(old, new, shortest - start)
    return start, len(old) - suffix, len(new) - suffix


class ParsedDocument:
    """The text of one file and its syntax tree, updated by edits."""

    def __init__(self, text: str, path: str) -> None:
        language = language_for_path(path)
        if language is None:
            raise InvalidRequestError(f"no grammar for {path!r}: cannot parse it")
        self.path = path
        self.language = language
        self._parser = new_parser(language)
        self._text = text
        self._data = _encode(text)
        self._tree = parse_bytes(self._parser, self._data)
        self.full_parses = 1
        self.incremental_parses = 0

    @property
    def data(self) -> bytes:
        """The text's bytes as parsed (UTF-8, lone surrogates kept)."""
        return self._data

    @property
    def text(self) -> str:
        return self._text

    @property
    def tree(self) -> Tree:
        return self._tree

    def _index(self, line: int, character: int) -> int:
        """String index of an LSP position (clamped to the text)."""
        starts = _line_starts(self._text)
        if line >= len(starts):
            return len(self._text)
        start = starts[line]
        end = starts[line + 1] if line + 1 < len(starts) else len(self._text)
        body = self._text[start:end].rstrip("\r\n")
        return start + utf16_to_index(body, character)

    def apply_edit(self, edit: TextEdit) -> None:
        """Apply one edit and re-parse incrementally."""
        start = self._index(edit.start_line, edit.start_character)
        end = max(start, self._index(edit.end_line, edit.end_character))
        start_byte = len(_encode(self._text[:start]))
        old_end_byte = start_byte + len(_encode(self._text[start:end]))
        new_text = self._text[:start] + edit.text + self._text[end:]
        self._reparse(new_text, start_byte, old_end_byte, start_byte + len(_encode(edit.text)))

    def replace_text(self, text: str) -> bool:
        """Make `text` the document's text, re-parsing only the range that changed;
        False when it was the text already (nothing parsed)."""
        if text == self._text:
            return False
        start, old_end, new_end = changed_span(self._data, _encode(text))
        self._reparse(text, start, old_end, new_end)
        return True

    def _reparse(
        self, new_text: str, start_byte: int, old_end_byte: int, new_end_byte: int
    ) -> None:
        new_data = _encode(new_text)
        self._tree.edit(
            start_byte=start_byte,
            old_end_byte=old_end_byte,
            new_end_byte=new_end_byte,
            start_point=_point(self._data, start_byte),
            old_end_point=_point(self._data, old_end_byte),
            new_end_point=_point(new_data, new_end_byte),
        )
        self._tree = parse_bytes(self._parser, new_data, self._tree)
        self.incremental_parses += 1
        self._text = new_text
        self._data = new_data

    def apply_edits(self, edits: list[TextEdit]) -> None:
        """Apply edits in order (each relative to the text left by the previous one)."""
        for edit in edits:
            self.apply_edit(edit)

    def definitions(self) -> list[Definition]:
        """The definitions of the current text."""
        return find_definitions(self._tree, self.language)

    def outline(self) -> str:
        """The outline of the current text."""
        return outline_from_tree(self._tree, self.language, self._text)
