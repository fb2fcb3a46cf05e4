"""Untrusted text made safe to show: control, escape, bidi and zero-width characters made visible.

What the user is asked must be what runs, and what a tool printed must not
drive the user's terminal. `visible(text)` replaces every character a
terminal, an editor or a browser would act on instead of showing — C0 and C1
controls (`\\r`, `\\x1b`, `\\x9b`, DEL), format characters (bidi embeddings,
overrides and isolates such as `\\u202e`, zero-width spaces and joiners, the
BOM), line and paragraph separators, surrogates and private-use characters
— with its escape (`\\r`, `\\n`, `\\t`, `\\x1b`, `\\u202e`, `\\U000e0001`), so an
escape sequence is shown as text and never interpreted. `keep` names the
characters left as they are (`KEEP_LINES`: newline and tab in multi-line
output). Used by every approval (the terminal prompt, the ACP permission
title; the VS Code card has the same rules in `client-vscode/src/webview/visible.ts`)
and by everything `cairn run` echoes to the terminal.
"""

from __future__ import annotations

import unicodedata

# Unicode general categories made visible: controls, format, separators of lines
# and paragraphs, surrogates, private use, unassigned.
HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"})
SHORT_ESCAPES = {"\r": "\\r", "\n": "\\n", "\t": "\\t"}
KEEP_LINES = "\n\t"


def escape(char: str) -> str:
    """The visible escape of one character (`\\r`, `\\x1b`, `\\u202e`, `\\U0001f600`)."""
    if char in SHORT_ESCAPES:
        return SHORT_ESCAPES[char]
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def is_hidden(char: str) -> bool:
    """Whether a character acts instead of showing (or may not show at all)."""
    return unicodedata.category(char) in HIDDEN_CATEGORIES


def visible(text: str, keep: str = "") -> str:
    """`text` with every hidden character but those in `keep` replaced by its escape."""
    if text.isprintable():  # no control, format or separator character but space
        return text
    return "".join(c if c in keep or not is_hidden(c) else escape(c) for c in text)
