"""Incremental re-parse of an edited buffer gives the same tree as a full parse."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cairn.code import ParsedDocument, TextEdit, outline
from cairn.code.languages import new_parser
from cairn.errors import InvalidRequestError

SOURCE = '''\
import os


class Greeter:
    """Says hello."""

    def greet(self, name):
        return f"hello {name}"


def main():
    print(Greeter().greet(os.getlogin()))
'''


def _full_tree_text(document: ParsedDocument) -> str:
    tree = new_parser(document.language).parse(document.text.encode("utf-8", "surrogatepass"))
    return str(tree.root_node)


def _position(text: str, index: int) -> tuple[int, int]:
    """LSP (line, UTF-16 character) of a string index."""
    before = text[:index]
    line = before.count("\n")
    column = before[before.rfind("\n") + 1 :]
    return line, len(column.encode("utf-16-le")) // 2


def test_single_edit_renames_a_method() -> None:
    document = ParsedDocument(SOURCE, "greet.py")
    document.apply_edit(TextEdit(6, 8, 6, 13, "welcome"))
    assert "def welcome(self, name):" in document.text
    assert str(document.tree.root_node) == _full_tree_text(document)
    assert document.outline() == outline(document.text, "greet.py")
    assert [d.name for d in document.definitions()] == ["Greeter", "welcome", "main"]


def test_multi_line_insert_and_delete() -> None:
    document = ParsedDocument(SOURCE, "greet.py")
    document.apply_edits(
        [
            TextEdit(9, 0, 9, 0, "def added(x):\n    return x * 2\n\n\n"),
            TextEdit(3, 0, 8, 0, ""),
        ]
    )
    assert "class Greeter" not in document.text
    assert str(document.tree.root_node) == _full_tree_text(document)
    assert [d.name for d in document.definitions()] == ["added", "main"]


def test_utf16_positions_after_astral_characters() -> None:
    text = 'x = "\U0001f600é"; y = 1\n'
    document = ParsedDocument(text, "emoji.py")
    start = _position(text, text.index("y"))
    document.apply_edit(TextEdit(start[0], start[1], start[0], start[1] + 1, "zed"))
    assert document.text == 'x = "\U0001f600é"; zed = 1\n'
    assert str(document.tree.root_node) == _full_tree_text(document)


def test_unknown_language_is_a_clear_error() -> None:
    with pytest.raises(InvalidRequestError, match=r"notes\.txt"):
        ParsedDocument("hello", "notes.txt")


edit_strategy = st.tuples(
    st.floats(min_value=0, max_value=1),
    st.floats(min_value=0, max_value=1),
    st.sampled_from(["", "x", "\n", "def f():\n    pass\n", "class K:\n", "(", "'''", "é😀"]),
)


@settings(max_examples=60, deadline=None)
@given(edits=st.lists(edit_strategy, min_size=1, max_size=6))
def test_random_edits_match_a_full_parse(edits: list[tuple[float, float, str]]) -> None:
    base = Path(inspect.getfile(json.decoder)).read_text(encoding="utf-8")
    document = ParsedDocument(base, "decoder.py")
    expected = base
    for start_at, span, new in edits:
        start = int(start_at * len(expected))
        end = min(len(expected), start + int(span * 200))
        (sl, sc), (el, ec) = _position(expected, start), _position(expected, end)
        document.apply_edit(TextEdit(sl, sc, el, ec, new))
        expected = expected[:start] + new + expected[end:]
    assert document.text == expected
    assert document.tree.root_node.end_byte == len(expected.encode("utf-8"))
    full = new_parser("python").parse(expected.encode("utf-8"))
    if not full.root_node.has_error:
        # With syntax errors tree-sitter's error recovery may legitimately differ between
        # an incremental and a full parse (raw tree-sitter does the same); without, never.
        assert str(document.tree.root_node) == str(full.root_node)
        assert document.outline() == outline(expected, "decoder.py")


@settings(max_examples=40, deadline=None)
@given(
    edits=st.lists(
        st.tuples(
            st.integers(min_value=0, max_value=10_000),
            st.sampled_from(["# note\n", "x = 1\n", "def added():\n    return 2\n", "\n"]),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_random_valid_line_inserts_match_a_full_parse(edits: list[tuple[int, str]]) -> None:
    base = Path(inspect.getfile(json.decoder)).read_text(encoding="utf-8")
    document = ParsedDocument(base, "decoder.py")
    expected = base
    for line_seed, new in edits:
        lines = expected.split("\n")
        line = line_seed % len(lines)
        while line > 0 and lines[line].startswith((" ", ")", "]", "}")):
            line -= 1
        document.apply_edit(TextEdit(line, 0, line, 0, new))
        expected = "\n".join(lines[:line]) + ("\n" if line else "") + new + "\n".join(lines[line:])
    assert document.text == expected
    assert str(document.tree.root_node) == _full_tree_text(document)
    assert document.outline() == outline(expected, "decoder.py")
