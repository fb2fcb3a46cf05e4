"""Parsing Python files in parts gives the outlines a whole-file parse gives."""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn.repomap.parts import parse_whole, python_parts
from cairn.repomap.render import file_block
from cairn.repomap.tags import (
    FileTags,
    definitions_for,
    python_defined_names,
    with_found,
)

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


def _tags_for(data: bytes, names: set[str], tags: FileTags | None = None) -> FileTags:
    tags = tags or FileTags((), {}, None)
    parts = tags.unparsed(names)
    return tags if parts == [] else with_found(tags, definitions_for(data, "python", names, parts))


def _outline(data: bytes, names: set[str]) -> str:
    return file_block("f.py", _tags_for(data, names).shown_definitions(names), names)


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
    ((start, end),) = python_parts(SAMPLE)["decorated"]
    assert SAMPLE[start:].startswith(b"@decorator(")
    assert SAMPLE[:end].endswith(b"return a + b\n\n\n")


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
    tags = _tags_for(SAMPLE, {"get"})
    assert tags.name_parts is not None
    assert tags.name_parts["get"] == tags.name_parts["fetch"]  # both are methods of Store
    assert tags.unparsed({"fetch"}) == []
    assert tags.unparsed({"last"}) == list(tags.name_parts["last"])
    assert tags.unparsed({"not_a_function"}) == []  # defined only inside a string


def test_outlines_after_several_requests_do_not_depend_on_their_order() -> None:
    names = sorted(set(python_defined_names(SAMPLE)))
    forward = backward = None
    for name in names:
        forward = _tags_for(SAMPLE, {name}, forward)
    for name in reversed(names):
        backward = _tags_for(SAMPLE, {name}, backward)
    assert forward is not None and backward is not None
    for name in names:
        expected = _whole(SAMPLE, {name})
        assert file_block("f.py", forward.shown_definitions({name}), {name}) == expected
        assert file_block("f.py", backward.shown_definitions({name}), {name}) == expected


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
