"""Edits never corrupt and never overwrite unseen changes (issue 26, item 6).

`edit_file` keeps every byte it was not asked to change — a Latin-1 `é`, a
UTF-16 file, a UTF-8 BOM with CRLF lines round-trip byte for byte — and
refuses, naming the fix: a file changed since the model last read it (whole
file and partial edits), a read-only file, new text the file's encoding
cannot hold, a path starting with `~`.
"""

from __future__ import annotations

import codecs
from pathlib import Path
from typing import Any

import pytest

from cairn.agent.tools import ToolContext, default_registry
from cairn.trace import Trace
from tests.unit.conftest import tool_context

REGISTRY = default_registry()


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    return folder


@pytest.fixture
def ctx(root: Path, trace: Trace) -> ToolContext:
    return tool_context(root, trace)


async def call(ctx: ToolContext, tool: str, **args: Any) -> Any:
    return await REGISTRY.run(tool, args, ctx)


@pytest.mark.parametrize(
    ("name", "data", "old", "new", "expected"),
    [
        (
            "latin1.txt",
            "café = 1\nna\xefve = 2\nlast line\n".encode("latin-1"),
            "last line",
            "final line",
            "café = 1\nna\xefve = 2\nfinal line\n".encode("latin-1"),
        ),
        (
            "cp1252.txt",
            "price \u20ac5 \u2014 ok\nx = 1\n".encode("cp1252"),
            "x = 1",
            "x = 2",
            "price \u20ac5 \u2014 ok\nx = 2\n".encode("cp1252"),
        ),
        (
            "utf16.txt",
            codecs.BOM_UTF16_LE + "héllo\r\nwörld\r\n".encode("utf-16-le"),
            "wörld",
            "welt",
            codecs.BOM_UTF16_LE + "héllo\r\nwelt\r\n".encode("utf-16-le"),
        ),
        (
            "bom_crlf.py",
            codecs.BOM_UTF8 + b"a = 1\r\nb = 2\r\nc = 3\r\n",
            "b = 2\n",
            "b = 20\n",
            codecs.BOM_UTF8 + b"a = 1\r\nb = 20\r\nc = 3\r\n",
        ),
    ],
)
async def test_an_edit_keeps_every_byte_it_was_not_asked_to_change(
    ctx: ToolContext, root: Path, name: str, data: bytes, old: str, new: str, expected: bytes
) -> None:
    (root / name).write_bytes(data)
    read = await call(ctx, "read_file", path=name)
    assert read.ok and "\ufffd" not in read.output, read.output
    outcome = await call(ctx, "edit_file", path=name, old=old, new=new)
    assert outcome.ok, outcome.output
    assert (root / name).read_bytes() == expected
    assert "+1 -1" in outcome.output  # the diff shows the one changed line, nothing else


async def test_new_text_the_encoding_cannot_hold_is_refused(ctx: ToolContext, root: Path) -> None:
    data = "café\n".encode("latin-1")
    (root / "l.txt").write_bytes(data)
    outcome = await call(ctx, "edit_file", path="l.txt", old="café", new="café ☕")
    assert not outcome.ok and "cannot hold U+2615" in outcome.output
    assert (root / "l.txt").read_bytes() == data


@pytest.mark.parametrize("partial", [True, False])
async def test_a_file_changed_since_the_read_is_not_overwritten(
    ctx: ToolContext, root: Path, partial: bool
) -> None:
    (root / "a.py").write_text("x = 1\ny = 2\n", encoding="utf-8")
    assert (await call(ctx, "read_file", path="a.py")).ok
    (root / "a.py").write_text("x = 1\ny = 2\nz = 3  # the user's\n", encoding="utf-8")
    args = {"old": "y = 2", "new": "y = 3"} if partial else {"new": "x = 9\n"}
    outcome = await call(ctx, "edit_file", path="a.py", **args)
    assert not outcome.ok and "changed since you last read it" in outcome.output
    assert "read it again" in outcome.output
    assert "the user's" in (root / "a.py").read_text(encoding="utf-8")
    # Read again: the edit goes through, and a second edit after its own needs no read.
    assert (await call(ctx, "read_file", path="a.py")).ok
    assert (await call(ctx, "edit_file", path="a.py", old="y = 2", new="y = 3")).ok
    assert (await call(ctx, "edit_file", path="a.py", old="y = 3", new="y = 4")).ok
    assert (root / "a.py").read_text(encoding="utf-8").count("the user's") == 1


async def test_a_read_only_file_is_refused(ctx: ToolContext, root: Path) -> None:
    target = root / "locked.txt"
    target.write_text("keep\n", encoding="utf-8")
    target.chmod(0o444)
    outcome = await call(ctx, "edit_file", path="locked.txt", new="gone\n")
    assert not outcome.ok and "read-only (mode 0444)" in outcome.output
    assert target.read_text(encoding="utf-8") == "keep\n"


async def test_a_path_starting_with_a_tilde_is_refused_as_such(
    ctx: ToolContext, root: Path
) -> None:
    outcome = await call(ctx, "edit_file", path="~/notes.txt", new="x\n")
    assert not outcome.ok and "`~` is not expanded" in outcome.output
    assert not (root / "~").exists()
