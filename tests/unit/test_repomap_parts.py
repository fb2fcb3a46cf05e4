"""Parsing Python files in parts gives the outlines a whole-file parse gives."""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn.context.repomap_parts import parse_parts, parse_whole, python_parts
from cairn.context.repomap_render import file_block
from cairn.context.repomap_tags import FileTags, python_defined_names, with_found

REPOSITORY = Path(__file__).resolve().parents[2]
NAMES_PER_FILE = 12

SAMPLE = b'''\
"""Module docstring.

def not_a_function(x):
    return x
class NotAClass:
    pass
"""
import os

LIMIT = 3


@decorator(
    option=1,
)
@other
def decorated(a, b):
    """Doc.

def also_not_a_function():
"""
    return a + b


class Store:
    items: list[int] = []

    def get(self, key):
        def inner():
            return key
        return inner()

    async def fetch(self):
        return None


async def top_level_async():
    pass

TEMPLATE = """
class Fake:
    pass
"""

def last(x): return x'''


def _outline(data: bytes, names: set[str]) -> str:
    tags = FileTags((), {}, None)
    name_parts, parts = python_parts(data, sorted(names))
    tags = with_found(tags, (None, name_parts, parse_parts(data, parts)))
    return file_block("f.py", tags.shown_definitions(names), names)


def _whole(data: bytes, names: set[str]) -> str:
    return file_block("f.py", parse_whole(data, "python"), names)


@pytest.mark.parametrize(
    "names",
    [
        {"decorated"},
        {"get"},
        {"inner"},
        {"fetch", "LIMIT"},
        {"top_level_async", "TEMPLATE"},
        {"last"},
        {"Store"},
        {"not_a_function", "NotAClass", "also_not_a_function", "Fake"},
    ],
)
def test_sample_outlines_match_a_whole_parse(names: set[str]) -> None:
    assert _outline(SAMPLE, names) == _whole(SAMPLE, names)


def test_definitions_inside_strings_are_not_shown() -> None:
    assert _outline(SAMPLE, {"not_a_function", "NotAClass", "Fake"}) == ""


def test_decorated_definition_is_one_part_with_its_decorators() -> None:
    name_parts, parts = python_parts(SAMPLE, ["decorated"])
    (start,) = name_parts["decorated"]
    assert SAMPLE[start:].startswith(b"@decorator(")
    assert [part[0] for part in parts] == [start]


def test_a_part_with_a_syntax_error_falls_back_to_the_whole_parse() -> None:
    broken = b"def good(a):\n    return a\n\n\ndef bad(:\n    pass\n\n\ndef after():\n    pass\n"
    for names in ({"good"}, {"bad"}, {"after"}):
        assert _outline(broken, names) == _whole(broken, names)


def test_crlf_and_no_final_newline() -> None:
    data = b"class A:\r\n    def m(self):\r\n        pass\r\n\r\ndef f():\r\n    return 1"
    for names in ({"A"}, {"m"}, {"f"}):
        assert _outline(data, names) == _whole(data, names)
        assert _outline(data, names)


def test_parts_already_parsed_are_not_parsed_again() -> None:
    _name_parts, parts = python_parts(SAMPLE, ["get", "fetch"])
    assert len(parts) == 1  # both are methods of Store
    assert parse_parts(SAMPLE, parts, done={parts[0][0]}) == {}


def test_outlines_match_a_whole_parse_on_this_repository() -> None:
    """Every sampled name of every Python file of the server and the tests."""
    files = sorted((REPOSITORY / "server").rglob("*.py")) + sorted(
        (REPOSITORY / "tests" / "unit").rglob("*.py")
    )
    checked = 0
    for path in files:
        data = path.read_bytes()
        names = sorted(set(python_defined_names(data)))
        step = max(1, len(names) // NAMES_PER_FILE)
        for name in names[::step]:
            assert _outline(data, {name}) == _whole(data, {name}), (path, name)
            checked += 1
    assert checked > 1000
