"""Whole-block chunks: exact tiling of the file, cuts at line starts, no definition cut."""

from __future__ import annotations

import inspect
import typing
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from cairn.code import Chunk, chunk_text
from cairn.code.languages import new_parser
from cairn.code.tags import find_definitions


def _count(text: str) -> int:
    """A stand-in tokenizer: a token per four characters, rounded up (so sub-additive)."""
    return (len(text) + 3) // 4


def _assert_tiles(text: str, chunks: list[Chunk]) -> None:
    assert "".join(chunk.text for chunk in chunks) == text
    data = text.encode("utf-8", "surrogatepass")
    position = 0
    line = 1
    for chunk in chunks:
        assert chunk.start_byte == position
        assert data[chunk.start_byte : chunk.end_byte] == chunk.text.encode(
            "utf-8", "surrogatepass"
        )
        assert chunk.start_line == line
        assert chunk.start_byte == 0 or data[chunk.start_byte - 1 : chunk.start_byte] == b"\n"
        newlines = chunk.text.count("\n")
        assert chunk.end_line == chunk.start_line + newlines - (
            1 if chunk.text.endswith("\n") else 0
        )
        position = chunk.end_byte
        line = chunk.start_line + newlines
    assert position == len(data)


def _definition_rows(text: str) -> list[tuple[int, int, int]]:
    tree = new_parser("python").parse(text.encode("utf-8"))
    return [
        (
            d.start_row + 1,
            d.end_row + 1,
            len(text.splitlines(keepends=True)[d.start_row : d.end_row + 1]),
        )
        for d in find_definitions(tree, "python")
    ]


line_text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40)


@settings(max_examples=150, deadline=None)
@given(
    lines=st.lists(line_text, max_size=30),
    ending=st.sampled_from(["\n", "\r\n"]),
    trailing=st.booleans(),
    path=st.sampled_from(["a.py", "a.js", "notes.txt", "a.go"]),
    max_tokens=st.integers(min_value=1, max_value=60),
)
def test_chunks_tile_random_text_exactly(
    lines: list[str], ending: str, trailing: bool, path: str, max_tokens: int
) -> None:
    text = ending.join(lines) + (ending if trailing and lines else "")
    _assert_tiles(text, chunk_text(text, path, max_tokens, _count))


@settings(max_examples=60, deadline=None)
@given(
    names=st.lists(st.from_regex(r"[a-z]{1,8}", fullmatch=True), min_size=1, max_size=8),
    body_lines=st.lists(st.integers(min_value=0, max_value=12), min_size=8, max_size=8),
    max_tokens=st.integers(min_value=20, max_value=200),
)
def test_generated_python_functions_are_never_cut_when_they_fit(
    names: list[str], body_lines: list[int], max_tokens: int
) -> None:
    parts = []
    for name, size in zip(names, body_lines, strict=False):
        body = "".join(f"    value_{i} = {name}_{i} + {i}\n" for i in range(size))
        parts.append(f"def {name}(a, b):\n{body}    return a\n\n# between\n")
    text = "import os\n\n" + "".join(parts)
    chunks = chunk_text(text, "gen.py", max_tokens, _count)
    _assert_tiles(text, chunks)
    _assert_no_fitting_definition_cut(text, chunks, max_tokens)


def _assert_no_fitting_definition_cut(text: str, chunks: list[Chunk], max_tokens: int) -> None:
    starts = {chunk.start_line for chunk in chunks[1:]}
    lines = text.splitlines(keepends=True)
    for first, last, _ in _definition_rows(text):
        if _count("".join(lines[first - 1 : last])) > max_tokens:
            continue
        assert not [s for s in starts if first < s <= last], (first, last)


def test_large_real_python_file_tiles_and_keeps_fitting_functions_whole() -> None:
    text = Path(inspect.getfile(typing)).read_text(encoding="utf-8")
    assert len(text) > 100_000
    chunks = chunk_text(text, "typing.py", 800, _count)
    _assert_tiles(text, chunks)
    _assert_no_fitting_definition_cut(text, chunks, 800)
    assert len(chunks) > 10


def test_real_file_with_crlf_and_no_trailing_newline() -> None:
    source = Path(inspect.getfile(inspect)).read_text(encoding="utf-8")
    text = source.replace("\n", "\r\n").rstrip("\r\n")
    chunks = chunk_text(text, "inspect.py", 500, _count)
    _assert_tiles(text, chunks)
    _assert_no_fitting_definition_cut(text, chunks, 500)


def test_oversized_function_is_split_at_line_starts_and_others_stay_whole() -> None:
    big_body = "".join(f"    x{i} = compute({i}, {i + 1}, {i + 2})\n" for i in range(200))
    text = f"def small():\n    return 1\n\n\ndef big():\n{big_body}    return x0\n\n\ndef tail():\n    return 2\n"
    chunks = chunk_text(text, "m.py", 100, _count)
    _assert_tiles(text, chunks)
    assert len(chunks) > 3
    starts = [chunk.start_line for chunk in chunks]
    assert 2 not in starts
    tail_line = text.splitlines().index("def tail():") + 1
    assert tail_line + 1 not in starts


def test_class_too_large_is_split_between_its_methods() -> None:
    methods = "".join(
        f"    def method_{i}(self):\n"
        + "".join(f"        v = {j}\n" for j in range(6))
        + "        return v\n\n"
        for i in range(12)
    )
    text = f"class Big:\n{methods}"
    chunks = chunk_text(text, "big.py", 80, _count)
    _assert_tiles(text, chunks)
    _assert_no_fitting_definition_cut(text, chunks, 80)
    assert len(chunks) > 1


def test_unknown_language_packs_lines() -> None:
    text = "".join(f"line {i} of plain text\n" for i in range(50))
    chunks = chunk_text(text, "notes.txt", 30, _count)
    _assert_tiles(text, chunks)
    assert all(_count(chunk.text) <= 30 for chunk in chunks)
    assert len(chunks) > 5


def test_empty_text_gives_no_chunk() -> None:
    assert chunk_text("", "a.py", 10, _count) == []
