"""Outlines remembered by content hash, so an unchanged file is parsed once, not per build.

Degrading a code block parses it with tree-sitter (`cairn.code.outline_forms`);
with many large open files, that parse is most of a context build, and the
same texts come back on every call. `OutlineMemo` keeps the outline forms of
recent texts, keyed by the text's content hash and the grammar its path
selects, least recently used first out, bounded by `OUTLINE_MEMO_CHARS` of
outline text (and `OUTLINE_MEMO_ENTRIES` entries). A text without a grammar
or whose parse failed is remembered as None. Safe to share between threads
(builds run off the event loop).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import TYPE_CHECKING

from cairn.files.languages import grammar_of
from cairn.files.text import content_hash

if TYPE_CHECKING:
    from cairn.code.outlines import OutlineForms

# Most outline characters kept, over all remembered texts ...
OUTLINE_MEMO_CHARS = 16 * 1024 * 1024
# ... and most texts remembered.
OUTLINE_MEMO_ENTRIES = 1024

_Key = tuple[str, str]


def _parse(text: str, path: str) -> OutlineForms | None:
    try:
        from cairn.code.outlines import outline_forms  # loads tree-sitter on first use

        return outline_forms(text, path)
    except Exception:  # a grammar that fails on odd input must not fail the build
        return None


def _chars(forms: OutlineForms | None) -> int:
    return 0 if forms is None else len(forms.full) + len(forms.top_level)


class OutlineMemo:
    """Outline forms by (content hash, grammar), least recently used evicted first."""

    def __init__(
        self, max_chars: int = OUTLINE_MEMO_CHARS, max_entries: int = OUTLINE_MEMO_ENTRIES
    ) -> None:
        self.max_chars = max_chars
        self.max_entries = max_entries
        self._entries: OrderedDict[_Key, OutlineForms | None] = OrderedDict()
        self._chars = 0
        self._lock = threading.Lock()
        self.parses = 0

    def get(self, text: str, path: str) -> OutlineForms | None:
        """The outline forms of `text` (the content of `path`), parsed at most once."""
        language = grammar_of(path) if path else None
        if language is None:
            return None
        key = (content_hash(text), language)
        with self._lock:
            if key in self._entries:
                self._entries.move_to_end(key)
                return self._entries[key]
        forms = _parse(text, path)
        with self._lock:
            self.parses += 1
            if key not in self._entries:
                self._entries[key] = forms
                self._chars += _chars(forms)
            self._evict()
        return forms

    def _evict(self) -> None:
        while len(self._entries) > 1 and (
            self._chars > self.max_chars or len(self._entries) > self.max_entries
        ):
            _key, forms = self._entries.popitem(last=False)
            self._chars -= _chars(forms)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._chars = 0


OUTLINES = OutlineMemo()
"""The memo every build shares (outlines depend only on the text and its grammar)."""
