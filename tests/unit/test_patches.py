"""Whole-file patches: written once (`file_patch`), undone exactly on the current text."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cairn.files.patches import PatchConflict, file_patch, parse_patch, undo_patch

LINE = st.sampled_from(["a", "b", "c", "", "  x = 1", "\t", "é ü"])
ENDING = st.sampled_from(["\n", "\r\n"])


@st.composite
def texts(draw: st.DrawFn) -> str:
    lines = draw(st.lists(LINE, max_size=12))
    ending = draw(ENDING)
    body = ending.join(lines)
    return body + ending if lines and draw(st.booleans()) else body


@given(texts(), texts())
def test_a_patch_undoes_to_exactly_the_text_it_was_made_from(before: str, after: str) -> None:
    patch = file_patch("f.txt", before, after)
    if before == after:
        assert patch == ""
        return
    [change] = parse_patch(patch)
    assert change.path == "f.txt"
    assert undo_patch(after, change) == before


def test_a_created_file_is_deleted_and_a_deleted_one_comes_back() -> None:
    [created] = parse_patch(file_patch("new.py", None, "print(1)\n"))
    assert created.created and undo_patch("print(1)\n", created) is None
    [deleted] = parse_patch(file_patch("old.py", "x = 1\ny = 2", None))
    assert deleted.deleted and undo_patch(None, deleted) == "x = 1\ny = 2"


def test_a_hunk_moved_by_lines_added_above_it_is_still_found() -> None:
    before = "".join(f"line {i}\n" for i in range(30))
    after = before.replace("line 20\n", "line twenty\n")
    [change] = parse_patch(file_patch("f.txt", before, after))
    moved = "header\nmore header\n" + after
    assert undo_patch(moved, change) == "header\nmore header\n" + before


def test_a_file_changed_since_is_a_conflict_naming_it() -> None:
    [change] = parse_patch(file_patch("src/app.py", "a\nb\nc\n", "a\nB\nc\n"))
    with pytest.raises(PatchConflict, match=r"src/app\.py: changed since \(near line 1\)"):
        undo_patch("a\nsomething else\nc\n", change)
    with pytest.raises(PatchConflict, match="no longer exists"):
        undo_patch(None, change)
    [created] = parse_patch(file_patch("n.py", None, "x\n"))
    with pytest.raises(PatchConflict, match="changed since it was created"):
        undo_patch("x\nmore\n", created)


def test_several_files_in_one_patch() -> None:
    patch = file_patch("a.py", "1\n", "2\n") + file_patch("b.py", None, "new\n")
    assert [(c.path, c.created) for c in parse_patch(patch)] == [("a.py", False), ("b.py", True)]
