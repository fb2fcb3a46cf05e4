"""Workspace state: incremental buffer edits, editor text over disk, path confinement."""

from pathlib import Path

import pytest

from cairn.errors import PathRefusedError
from cairn.files.buffers import Buffer, TextChange
from cairn.files.workspace import Workspace


def test_incremental_edits_match_a_full_rewrite() -> None:
    buffer = Buffer("abc\ndef\nghi\n")
    buffer.apply(TextChange("X", (1, 1), (1, 2)))
    assert buffer.text == "abc\ndXf\nghi\n"
    buffer.apply(TextChange("", (0, 3), (1, 0)))
    assert buffer.text == "abcdXf\nghi\n"
    buffer.apply(TextChange("new\nlines\n", (2, 0), (2, 0)))
    assert buffer.text == "abcdXf\nghi\nnew\nlines\n"


def test_utf16_offsets_are_honoured() -> None:
    buffer = Buffer("a😀b\n")
    # 😀 is two UTF-16 code units: 'b' starts at character 3.
    buffer.apply(TextChange("c", (0, 3), (0, 4)))
    assert buffer.text == "a😀c\n"


def test_crlf_lines_keep_their_endings() -> None:
    buffer = Buffer("one\r\ntwo\r\n")
    buffer.apply(TextChange("2", (1, 0), (1, 3)))
    assert buffer.text == "one\r\n2\r\n"


def test_editor_text_wins_over_disk(tmp_path: Path) -> None:
    f = tmp_path / "a.py"
    f.write_text("disk\n")
    ws = Workspace([tmp_path])
    assert ws.read_text(f) == "disk\n"
    ws.open_buffer(f, "unsaved\n", 1)
    assert ws.read_text(f) == "unsaved\n"


def test_symlink_escape_is_refused(tmp_path: Path) -> None:
    inside = tmp_path / "ws"
    outside = tmp_path / "secret.txt"
    inside.mkdir()
    outside.write_text("s")
    (inside / "link").symlink_to(outside)
    ws = Workspace([inside])
    with pytest.raises(PathRefusedError, match="outside the workspace"):
        ws.resolve("link")
    with pytest.raises(PathRefusedError):
        ws.resolve("../secret.txt")
    assert ws.resolve("a.py") == inside / "a.py"


def test_a_secondary_folder_file_named_as_relative_names_it_resolves_back(tmp_path: Path) -> None:
    root, extra = tmp_path / "root", tmp_path / "extra"
    (root / "pkg").mkdir(parents=True)
    extra.mkdir()
    (extra / "lib.md").write_text("x")
    workspace = Workspace([root, extra])
    name = workspace.relative(extra / "lib.md")
    assert name == "extra/lib.md"
    assert workspace.resolve(name) == (extra / "lib.md").resolve()
    # A new file with no folder prefix goes to the root, not the last folder.
    assert workspace.resolve("pkg/new.py") == (root / "pkg" / "new.py").resolve()
    assert workspace.resolve("extra/new.md") == (extra / "new.md").resolve()
