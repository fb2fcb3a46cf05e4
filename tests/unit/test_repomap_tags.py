"""Repository-map tags: the parser-free Python definition finder and the lexical scan."""

from __future__ import annotations

import re
from pathlib import Path

from cairn.repomap.tags import python_defined_names, scan

REPOSITORY = Path(__file__).resolve().parents[2]

ONE_PATTERN = re.compile(
    rb"\n[ \t]*(?:(?:async[ \t]+)?def[ \t]+([A-Za-z_][A-Za-z0-9_]*)[ \t]*[(\[]"
    rb"|class[ \t]+([A-Za-z_][A-Za-z0-9_]*)[ \t]*[(:\[])"
    rb"|\n([A-Za-z_][A-Za-z0-9_]*)[ \t]*(?::[^=\n]*)?=(?!=)"
)
"""The definition grammar as one pattern anchored at each line start (the reference)."""

TRICKY = b"""\
def top(a):
    pass
async def fetch():
    async  def inner(): pass
asyncdef not_a_def(): pass
x: int = 3
y == 3
z=4
def generic[T](x: T) -> T: ...
class Box[T]:
    def method(self): ...
class Plain:
\tclass Tabbed(Base): pass
undef not_this(x)
subclass NotThis:
s = "def not_this_either("
    # def nor_this(
CONSTANT = {"def": 1}
"""


def _reference(data: bytes) -> list[str]:
    return sorted(
        next(group for group in groups if group).decode("ascii")
        for groups in ONE_PATTERN.findall(b"\n" + data)
    )


def test_finds_the_names_one_line_anchored_pattern_finds() -> None:
    assert sorted(python_defined_names(TRICKY)) == _reference(TRICKY)
    assert set(python_defined_names(TRICKY)) == {
        "top",
        "fetch",
        "inner",
        "x",
        "z",
        "generic",
        "Box",
        "method",
        "Plain",
        "Tabbed",
        "s",
        "CONSTANT",
    }


def test_same_names_as_the_anchored_pattern_on_this_repository() -> None:
    sources = sorted((REPOSITORY / "server").rglob("*.py"))
    assert len(sources) > 50
    for path in sources:
        data = path.read_bytes()
        assert sorted(python_defined_names(data)) == _reference(data), path


def test_scan_counts_uses_outside_comments_and_docstrings() -> None:
    tags = scan(
        b'def run():\n    """Calls helper."""\n    helper()  # helper\n    helper()\n', "python"
    )
    assert tags.names == ("run",)
    assert tags.references["helper"] == 2
    assert "Calls" not in tags.references  # docstring prose is not a use
    assert "run" not in tags.references  # its definition is not a use
    assert tags.definitions is None
