"""One-line tool errors, no traceback (issue 26 item 8): a NUL byte in a path, a write the
system refuses (EACCES, ENOSPC); grep over files past its read limit."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import pytest

import cairn.agent.tools.edit_file as edit_file_module
import cairn.agent.tools.grep as grep_module
from cairn.agent.tools import ToolContext, default_registry
from cairn.files.guard import MAX_FILE_BYTES
from cairn.trace import Trace
from tests.unit.conftest import tool_context

REGISTRY = default_registry()


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    (folder / "a.txt").write_text("one\ntwo\n")
    return folder


@pytest.fixture
def ctx(root: Path, trace: Trace) -> ToolContext:
    return tool_context(root, trace)


async def run(ctx: ToolContext, tool: str, **args: Any) -> Any:
    return await REGISTRY.run(tool, args, ctx)


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("read_file", {"path": "a\x00.txt"}),
        ("edit_file", {"path": "a.txt\x00", "new": "x"}),
        ("edit_file", {"path": "b\x00.txt", "old": "one", "new": "x"}),
        ("grep", {"pattern": "one", "path": "a\x00"}),
        ("list_dir", {"path": "a\x00"}),
    ],
)
async def test_a_nul_byte_in_a_path_is_a_one_line_error(
    ctx: ToolContext, caplog: pytest.LogCaptureFixture, tool: str, args: dict[str, Any]
) -> None:
    outcome = await run(ctx, tool, **args)
    assert not outcome.ok
    assert "\n" not in outcome.output and "\x00" not in outcome.output
    assert outcome.output.endswith("a path cannot contain a NUL byte")
    assert args["path"].replace("\x00", "\\x00") in outcome.output
    assert not any(record.exc_info for record in caplog.records), "no traceback logged"


def _refuse(code: int) -> Any:
    def atomic_write(path: Path, data: bytes) -> None:
        raise OSError(code, os.strerror(code), str(path))

    return atomic_write


@pytest.mark.parametrize(("code", "name"), [(errno.ENOSPC, "ENOSPC"), (errno.EACCES, "EACCES")])
async def test_a_refused_write_is_a_one_line_error(
    ctx: ToolContext,
    root: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    code: int,
    name: str,
) -> None:
    monkeypatch.setattr(edit_file_module, "atomic_write", _refuse(code))
    await run(ctx, "read_file", path="a.txt")
    outcome = await run(ctx, "edit_file", path="a.txt", old="one", new="ONE")
    assert not outcome.ok
    assert outcome.output == (
        f"error: a.txt: cannot be written: {os.strerror(code)} ({name}); it is left as it was"
    )
    assert (root / "a.txt").read_text() == "one\ntwo\n"
    assert not any(record.exc_info for record in caplog.records)


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a 0500 folder")
async def test_a_new_file_in_a_read_only_folder_is_a_one_line_error(
    ctx: ToolContext, root: Path
) -> None:
    locked = root / "locked"
    locked.mkdir(mode=0o500)
    try:
        outcome = await run(ctx, "edit_file", path="locked/new.txt", new="x")
    finally:
        locked.chmod(0o700)
    assert not outcome.ok and "\n" not in outcome.output
    assert "locked/new.txt: cannot be written: Permission denied (EACCES)" in outcome.output


def _big_file(ctx: ToolContext, path: Path, tail: str) -> int:
    line = "x" * 99 + "\n"
    count = MAX_FILE_BYTES // len(line) + 500
    with path.open("w") as out:
        for _ in range(count):
            out.write(line)
        out.write(tail + "\n")
    ctx.refresh_files()
    return count + 1


async def test_grep_streams_a_file_over_its_read_limit(ctx: ToolContext, root: Path) -> None:
    number = _big_file(ctx, root / "big.txt", "needle at the end")
    assert (root / "big.txt").stat().st_size > MAX_FILE_BYTES
    outcome = await run(ctx, "grep", pattern="needle")
    assert outcome.ok
    assert outcome.output == f"big.txt:{number}: needle at the end"
    named = await run(ctx, "grep", pattern="needle", path="big.txt")
    assert named.output == f"big.txt:{number}: needle at the end"


async def test_grep_names_the_files_it_skipped_and_why(
    ctx: ToolContext, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _big_file(ctx, root / "big.txt", "needle at the end")
    size = (root / "big.txt").stat().st_size
    monkeypatch.setattr(grep_module, "MAX_STREAM_BYTES", MAX_FILE_BYTES + 10)
    outcome = await run(ctx, "grep", pattern="needle")
    assert outcome.ok
    assert outcome.output == (
        "no matches for 'needle' in the files searched\n"
        f"[not searched: big.txt ({size} bytes > the {MAX_FILE_BYTES + 10}-byte limit)]"
    )
    assert outcome.data["skipped"] == [
        f"big.txt ({size} bytes > the {MAX_FILE_BYTES + 10}-byte limit)"
    ]
    found = await run(ctx, "grep", pattern="two")
    first, note = found.output.splitlines()
    assert first == "a.txt:2: two" and note.startswith("[not searched: big.txt (")
