"""edit_file: exact-match replacement rules, whole-file writes, diffs, the editor path."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from unidiff.patch import PatchSet

from cairn.agent.api import CallSite
from cairn.agent.tools import ToolContext, default_registry
from cairn.files.patches import file_patch
from cairn.trace import Trace
from tests.unit.conftest import tool_context

FIXTURE = Path(__file__).parent.parent / "workspaces" / "tools_small"
REGISTRY = default_registry()
UTIL = "src/pkg/util.py"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    target = tmp_path / "ws"
    shutil.copytree(FIXTURE, target, symlinks=True)
    return target


@pytest.fixture
def ctx(root: Path, trace: Trace) -> ToolContext:
    return tool_context(root, trace)


async def edit(ctx: ToolContext, **args: Any) -> Any:
    return await REGISTRY.run("edit_file", args, ctx)


async def test_replaces_the_one_exact_occurrence_and_returns_a_diff(
    ctx: ToolContext, root: Path, trace: Trace
) -> None:
    outcome = await edit(ctx, path=UTIL, old='return f"hello {name}"', new='return f"hi {name}"')
    assert outcome.ok, outcome.output
    text = (root / UTIL).read_text()
    assert 'return f"hi {name}"' in text
    assert "hello" not in text
    assert outcome.output.startswith("edited src/pkg/util.py (+1 -1)\n--- a/src/pkg/util.py")
    assert '-    return f"hello {name}"' in outcome.output.splitlines()
    patch = trace.read_artifact(outcome.data["patch_artifact_id"]).decode()
    parsed = PatchSet(patch)
    assert parsed[0].path == UTIL
    assert (parsed[0].added, parsed[0].removed) == (1, 1)
    assert outcome.data["path"] == UTIL
    assert outcome.data["created"] is False


async def test_zero_matches_is_an_error_naming_the_count(ctx: ToolContext, root: Path) -> None:
    before = (root / UTIL).read_text()
    outcome = await edit(ctx, path=UTIL, old="def missing():", new="x")
    assert not outcome.ok
    assert "0 matches" in outcome.output
    assert (root / UTIL).read_text() == before


async def test_several_matches_is_an_error_naming_the_count(ctx: ToolContext, root: Path) -> None:
    before = (root / UTIL).read_text()
    outcome = await edit(ctx, path=UTIL, old="(name: str) -> str:", new="(name):")
    assert not outcome.ok
    assert "matches 2 times" in outcome.output
    assert (root / UTIL).read_text() == before


async def test_plain_newlines_match_a_crlf_file(ctx: ToolContext, root: Path) -> None:
    crlf = root / "win.txt"
    crlf.write_bytes(b"first\r\nsecond\r\nthird\r\n")
    outcome = await edit(ctx, path="win.txt", old="first\nsecond", new="one\ntwo")
    assert outcome.ok, outcome.output
    assert crlf.read_bytes() == b"one\r\ntwo\r\nthird\r\n"


async def test_match_is_exact_including_whitespace(ctx: ToolContext) -> None:
    outcome = await edit(ctx, path=UTIL, old="def  greet", new="def welcome")
    assert not outcome.ok
    assert "0 matches" in outcome.output


async def test_without_old_writes_the_whole_file(ctx: ToolContext, root: Path) -> None:
    outcome = await edit(ctx, path="README.md", new="# replaced\n")
    assert outcome.ok
    assert (root / "README.md").read_text() == "# replaced\n"
    assert "-# tools_small" in outcome.output.splitlines()


async def test_creates_a_new_file_and_its_folders(ctx: ToolContext, root: Path) -> None:
    outcome = await edit(ctx, path="src/new/mod.py", new="VALUE = 1\n")
    assert outcome.ok, outcome.output
    assert (root / "src" / "new" / "mod.py").read_text() == "VALUE = 1\n"
    assert outcome.output.startswith("created src/new/mod.py (+1 -0)")
    assert outcome.data["created"] is True
    listed = await REGISTRY.run("glob", {"pattern": "src/new/*"}, ctx)
    assert listed.output == "src/new/mod.py"


async def test_old_on_a_missing_file_is_an_error(ctx: ToolContext) -> None:
    outcome = await edit(ctx, path="nope.py", old="a", new="b")
    assert not outcome.ok
    assert "not found" in outcome.output


async def test_an_edit_that_changes_nothing_is_an_error(ctx: ToolContext) -> None:
    outcome = await edit(ctx, path=UTIL, old="def shout", new="def shout")
    assert not outcome.ok
    assert "changes nothing" in outcome.output


async def test_edits_the_unsaved_buffer_text(ctx: ToolContext, root: Path) -> None:
    path = root / UTIL
    ctx.workspace.open_buffer(path, "unsaved = 1\n")
    outcome = await edit(ctx, path=UTIL, old="unsaved = 1", new="unsaved = 2")
    assert outcome.ok
    assert path.read_text() == "unsaved = 2\n"


async def test_goes_through_the_editor_when_one_is_attached(ctx: ToolContext, root: Path) -> None:
    applied: list[tuple[Path, str]] = []

    async def apply_edit(site: CallSite, path: Path, text: str) -> bool:
        applied.append((path, text))
        return True

    ctx.apply_edit = apply_edit
    before = (root / UTIL).read_text()
    outcome = await edit(ctx, path=UTIL, old="def shout", new="def yell")
    assert outcome.ok
    assert applied == [((root / UTIL), before.replace("def shout", "def yell"))]
    assert (root / UTIL).read_text() == before
    assert outcome.data["via_editor"] is True


async def test_reads_the_editor_text_when_the_editor_serves_reads(
    ctx: ToolContext, root: Path
) -> None:
    reads: list[Path] = []

    async def read_editor(site: CallSite, path: Path) -> str | None:
        reads.append(path)
        return "in the editor = 1\n"

    ctx.read_editor = read_editor
    outcome = await edit(ctx, path=UTIL, old="in the editor = 1", new="in the editor = 2")
    assert outcome.ok
    assert reads == [root / UTIL]
    assert (root / UTIL).read_text() == "in the editor = 2\n"


async def test_falls_back_to_disk_when_the_editor_declines(ctx: ToolContext, root: Path) -> None:
    async def no_editor(site: CallSite, path: Path, text: str) -> bool:
        return False

    ctx.apply_edit = no_editor
    outcome = await edit(ctx, path=UTIL, old="def shout", new="def yell")
    assert outcome.ok
    assert "def yell" in (root / UTIL).read_text()
    assert outcome.data["via_editor"] is False


async def test_keeps_the_file_mode(ctx: ToolContext, root: Path) -> None:
    script = root / "run.sh"
    script.write_text("echo one\n")
    script.chmod(0o755)
    outcome = await edit(ctx, path="run.sh", old="one", new="two")
    assert outcome.ok
    assert script.stat().st_mode & 0o777 == 0o755
    assert not [p for p in root.iterdir() if p.name.endswith(".tmp")]


async def test_a_created_file_gets_the_usual_mode_not_a_private_temp_mode(
    ctx: ToolContext, root: Path
) -> None:
    umask = os.umask(0o022)
    try:
        outcome = await edit(ctx, path="new/tool.py", new="print('hi')\n")
    finally:
        os.umask(umask)
    assert outcome.ok, outcome.output
    assert (root / "new" / "tool.py").stat().st_mode & 0o777 == 0o644
    assert not [p for p in (root / "new").iterdir() if p.name.endswith(".tmp")]


async def test_refuses_binary_files(ctx: ToolContext) -> None:
    outcome = await edit(ctx, path="docs/logo.png", new="text")
    assert not outcome.ok
    assert "binary" in outcome.output


def test_unified_diff_marks_a_missing_final_newline() -> None:
    diff = file_patch("f.txt", "a\nb", "a\nc")
    assert "\\ No newline at end of file" in diff
    assert PatchSet(diff)[0].added == 1
