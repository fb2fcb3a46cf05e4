"""The read-only file tools: read_file, list_dir, glob, grep — and confinement for every file tool."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import Any

import pytest

from cairn.agent.api import CallSite
from cairn.agent.tools import ToolContext, default_registry
from cairn.agent.tools import grep as grep_tool
from cairn.agent.tools.base import MAX_INLINE_OUTPUT_CHARS
from cairn.agent.tools.grep import MAX_GREP_MATCHES
from cairn.files.guard import MAX_FILE_BYTES
from cairn.trace import Trace
from tests.unit.conftest import tool_context

FIXTURE = Path(__file__).parent.parent / "workspaces" / "tools_small"
REGISTRY = default_registry()


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A private copy of the `tools_small` workspace, plus a file outside it."""
    target = tmp_path / "ws"
    shutil.copytree(FIXTURE, target, symlinks=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("outside secret\n", encoding="utf-8")
    return target


@pytest.fixture
def ctx(root: Path, trace: Trace) -> ToolContext:
    return tool_context(root, trace)


async def call(ctx: ToolContext, name: str, **args: Any) -> Any:
    return await REGISTRY.run(name, args, ctx)


# -- read_file -----------------------------------------------------------------


async def test_read_file_numbers_lines_and_records_path_and_hash(ctx: ToolContext) -> None:
    outcome = await call(ctx, "read_file", path="src/pkg/util.py")
    assert outcome.ok
    lines = outcome.output.splitlines()
    assert lines[0] == '     1\t"""Helpers."""'
    assert lines[4] == '     5\t    return f"hello {name}"'
    assert outcome.data["path"] == "src/pkg/util.py"
    assert outcome.data["hash"]


async def test_read_file_line_range_says_which_lines(ctx: ToolContext) -> None:
    outcome = await call(ctx, "read_file", path="src/pkg/util.py", start_line=4, end_line=5)
    assert outcome.output.splitlines() == [
        "     4\tdef greet(name: str) -> str:",
        '     5\t    return f"hello {name}"',
        "[lines 4-5 of 9]",
    ]


async def test_read_file_start_past_end_is_a_tool_error(ctx: ToolContext) -> None:
    outcome = await call(ctx, "read_file", path="src/pkg/util.py", start_line=99)
    assert not outcome.ok
    assert "past the end (9 lines)" in outcome.output


async def test_read_file_reversed_range_is_invalid(ctx: ToolContext) -> None:
    outcome = await call(ctx, "read_file", path="src/app.py", start_line=5, end_line=2)
    assert not outcome.ok
    assert "end_line must not be smaller than start_line" in outcome.output


async def test_read_file_prefers_the_unsaved_editor_buffer(ctx: ToolContext, root: Path) -> None:
    ctx.workspace.open_buffer(root / "src" / "app.py", "unsaved = True\n")
    outcome = await call(ctx, "read_file", path="src/app.py")
    assert outcome.output == "     1\tunsaved = True"


async def test_read_file_asks_the_editor_when_it_serves_reads(ctx: ToolContext, root: Path) -> None:
    sites: list[tuple[CallSite, Path]] = []

    async def read_editor(site: CallSite, path: Path) -> str | None:
        sites.append((site, path))
        return "from the client = 1\n" if path.name == "app.py" else None

    ctx.read_editor = read_editor
    ctx.call_id = "call-7"
    outcome = await call(ctx, "read_file", path="src/app.py")
    assert outcome.output == "     1\tfrom the client = 1"
    assert sites == [(CallSite(session_id="", call_id="call-7"), root / "src" / "app.py")]
    declined = await call(ctx, "read_file", path="README.md")
    assert declined.output == call_output_of_disk(root / "README.md")


def call_output_of_disk(path: Path) -> str:
    lines = path.read_text(encoding="utf-8").splitlines()
    return "\n".join(f"{n:>6}\t{line}" for n, line in enumerate(lines, start=1))


async def test_read_file_of_a_long_file_shows_a_head_and_keeps_the_rest(
    ctx: ToolContext, root: Path, trace: Trace
) -> None:
    line_count = 4_000
    (root / "long.txt").write_text(
        "".join(f"line {n} of a long file\n" for n in range(1, line_count + 1)), encoding="utf-8"
    )
    outcome = await call(ctx, "read_file", path="long.txt")
    assert outcome.ok
    assert len(outcome.output) <= MAX_INLINE_OUTPUT_CHARS + 500
    last_shown = outcome.data["end_line"]
    assert 1 < last_shown < line_count
    assert f"start_line={last_shown + 1}" in outcome.output
    assert outcome.artifact_id is not None
    stored = trace.read_artifact(outcome.artifact_id).decode()
    assert stored.splitlines()[-1] == f"  {line_count}\tline {line_count} of a long file"


async def test_read_file_cuts_very_long_lines_and_keeps_them_whole(
    ctx: ToolContext, root: Path, trace: Trace
) -> None:
    minified = "var a=1;" * 2_000
    (root / "bundle.min.js").write_text(minified + "\nshort line\n", encoding="utf-8")
    outcome = await call(ctx, "read_file", path="bundle.min.js")
    lines = outcome.output.splitlines()
    assert len(lines[0]) < len(minified) / 2
    assert "line cut" in lines[0]
    assert lines[1] == "     2\tshort line"
    assert lines[2].startswith("[long lines were cut; the full text is in artifact ")
    assert minified in trace.read_artifact(outcome.artifact_id).decode()


async def test_read_file_reads_an_artifact_by_id(ctx: ToolContext, trace: Trace) -> None:
    artifact_id = trace.write_artifact("first\nsecond\nthird\n", "log")
    outcome = await call(ctx, "read_file", path=f"artifact:{artifact_id}", start_line=2)
    assert outcome.ok
    assert outcome.output.splitlines()[0] == "     2\tsecond"


async def test_read_file_unknown_artifact_is_a_tool_error(ctx: ToolContext) -> None:
    outcome = await call(ctx, "read_file", path="artifact:log-" + "0" * 32)
    assert not outcome.ok
    assert "unknown artifact" in outcome.output


async def test_read_file_artifact_ids_cannot_traverse(ctx: ToolContext) -> None:
    outcome = await call(ctx, "read_file", path="artifact:../meta.json")
    assert not outcome.ok
    assert "invalid artifact id" in outcome.output


async def test_read_file_refuses_binary_and_streams_huge_files(
    ctx: ToolContext, root: Path
) -> None:
    binary = await call(ctx, "read_file", path="docs/logo.png")
    assert not binary.ok
    assert "binary" in binary.output
    (root / "huge.txt").write_text("x" * (MAX_FILE_BYTES + 1), encoding="utf-8")
    huge = await call(ctx, "read_file", path="huge.txt")
    assert huge.ok and len(huge.output) < MAX_FILE_BYTES // 100
    assert "huge.txt" in huge.output and "read limit" in huge.output


async def test_read_file_of_an_empty_file(ctx: ToolContext) -> None:
    outcome = await call(ctx, "read_file", path="src/pkg/__init__.py")
    assert outcome.ok
    assert outcome.output == "src/pkg/__init__.py: (empty file)"


# -- list_dir / glob / grep ------------------------------------------------------


async def test_list_dir_shows_folders_and_files_but_not_ignored_ones(ctx: ToolContext) -> None:
    outcome = await call(ctx, "list_dir")
    assert outcome.ok
    entries = [line.strip() for line in outcome.output.splitlines()[1:]]
    names = [entry.split()[0] for entry in entries]
    assert names[:2] == ["docs/", "src/"]
    assert "README.md" in names
    assert "build/" not in names
    assert "debug.log" not in names


async def test_list_dir_of_a_subfolder(ctx: ToolContext) -> None:
    outcome = await call(ctx, "list_dir", path="src/pkg")
    assert outcome.output.splitlines()[0] == "src/pkg/"
    assert [line.split()[0] for line in outcome.output.splitlines()[1:]] == [
        "__init__.py",
        "util.py",
    ]


async def test_list_dir_of_a_file_is_a_tool_error(ctx: ToolContext) -> None:
    outcome = await call(ctx, "list_dir", path="README.md")
    assert not outcome.ok
    assert "not a folder" in outcome.output


async def test_glob_matches_at_any_depth_and_skips_ignored(ctx: ToolContext) -> None:
    outcome = await call(ctx, "glob", pattern="*.py")
    assert outcome.output.splitlines() == ["src/app.py", "src/pkg/__init__.py", "src/pkg/util.py"]
    logs = await call(ctx, "glob", pattern="*.log")
    assert logs.output == "no files match '*.log'"


async def test_glob_with_a_folder_pattern(ctx: ToolContext) -> None:
    outcome = await call(ctx, "glob", pattern="src/**/*.py")
    assert "src/pkg/util.py" in outcome.output.splitlines()
    assert "README.md" not in outcome.output


async def test_grep_prints_path_line_text_and_skips_secret_binary_ignored(
    ctx: ToolContext,
) -> None:
    outcome = await call(ctx, "grep", pattern=r"greet")
    lines = outcome.output.splitlines()
    assert "src/pkg/util.py:4: def greet(name: str) -> str:" in lines
    assert "src/app.py:3: from pkg.util import greet" in lines
    assert any(line.startswith("docs/notes.md:1: ") for line in lines)
    assert not any(line.startswith(("debug.log", "build/", ".env")) for line in lines)
    secret = await call(ctx, "grep", pattern="API_KEY")
    assert secret.output == "no matches for 'API_KEY'"


async def test_grep_narrowed_by_path_and_glob(ctx: ToolContext) -> None:
    by_glob = await call(ctx, "grep", pattern="greet", glob="*.md")
    assert all(line.startswith("docs/notes.md:") for line in by_glob.output.splitlines())
    by_path = await call(ctx, "grep", pattern="greet", path="src/pkg")
    assert all(line.startswith("src/pkg/util.py:") for line in by_path.output.splitlines())
    one_file = await call(ctx, "grep", pattern="def ", path="src/app.py")
    assert one_file.output == "src/app.py:6: def main() -> None:"


async def test_grep_caps_its_output(ctx: ToolContext, root: Path) -> None:
    total = MAX_GREP_MATCHES + 50
    (root / "many.txt").write_text("needle\n" * total, encoding="utf-8")
    ctx.refresh_files()  # file listings are cached until the tree is known to have changed
    outcome = await call(ctx, "grep", pattern="needle")
    lines = outcome.output.splitlines()
    assert len(lines) == MAX_GREP_MATCHES + 1
    assert lines[-1].startswith(f"[... {total - MAX_GREP_MATCHES} more matches")
    assert outcome.data["matches"] == total


async def test_grep_bad_regex_is_a_tool_error(ctx: ToolContext) -> None:
    outcome = await call(ctx, "grep", pattern="(unclosed")
    assert not outcome.ok
    assert "invalid regular expression" in outcome.output


@pytest.mark.timeout(120)  # a hang guard: Python's `re` takes hours on this pattern
async def test_grep_stops_a_backtracking_regex_and_the_event_loop_runs_meanwhile(
    ctx: ToolContext, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The model's `(a|aa)+$` on a line of 60 `a`s backtracks exponentially: the search
    fails at its time limit naming the pattern, the line and the fix, and the event loop
    kept running while it matched (the match no longer holds the GIL)."""
    monkeypatch.setattr(grep_tool, "GREP_TIMEOUT_S", 1.0)
    (root / "blob.txt").write_text("a" * 60 + "!\n", encoding="utf-8")
    ctx.refresh_files()
    ticks = 0
    search = asyncio.ensure_future(call(ctx, "grep", pattern="(a|aa)+$", glob="blob.txt"))
    while not search.done():
        await asyncio.sleep(0.01)
        ticks += 1
    outcome = search.result()
    assert not outcome.ok
    assert "'(a|aa)+$' took more than 1 s (stopped at blob.txt:1)" in outcome.output
    assert "simplify it" in outcome.output
    assert ticks > 1


# -- confinement, for every tool that takes a path -----------------------------------

PATH_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("read_file", {}),
    ("list_dir", {}),
    ("grep", {"pattern": "secret"}),
    ("edit_file", {"new": "pwned\n"}),
    ("edit_file", {"old": "outside", "new": "pwned"}),
    ("diagnostics", {}),
]


def _escape_refs(root: Path) -> dict[str, str]:
    outside = root.parent / "outside"
    (root / "link_out").symlink_to(outside / "secret.txt")
    (root / "dir_out").symlink_to(outside, target_is_directory=True)
    return {
        "dotdot": "../outside/secret.txt",
        "absolute": str(outside / "secret.txt"),
        "symlink": "link_out",
        "symlinked_dir": "dir_out/secret.txt",
    }


@pytest.mark.parametrize(("tool", "extra"), PATH_CALLS)
@pytest.mark.parametrize("kind", ["dotdot", "absolute", "symlink", "symlinked_dir"])
async def test_every_file_tool_refuses_paths_outside_the_workspace(
    ctx: ToolContext, root: Path, tool: str, extra: dict[str, Any], kind: str
) -> None:
    ref = _escape_refs(root)[kind]
    outcome = await call(ctx, tool, path=ref, **extra)
    assert not outcome.ok, outcome.output
    assert "outside the workspace" in outcome.output
    assert (root.parent / "outside" / "secret.txt").read_text() == "outside secret\n"


@pytest.mark.parametrize(("tool", "extra"), [c for c in PATH_CALLS if c[0] != "diagnostics"])
async def test_every_file_tool_refuses_secret_files(
    ctx: ToolContext, root: Path, tool: str, extra: dict[str, Any]
) -> None:
    outcome = await call(ctx, tool, path=".env", **extra)
    assert not outcome.ok
    assert "secret" in outcome.output
    assert (root / ".env").read_text() == "API_KEY=sk-not-a-real-key\n"


@pytest.mark.parametrize(("tool", "extra"), [c for c in PATH_CALLS if c[0] != "diagnostics"])
async def test_every_file_tool_refuses_ignored_files(
    ctx: ToolContext, root: Path, tool: str, extra: dict[str, Any]
) -> None:
    outcome = await call(ctx, tool, path="build/out.txt", **extra)
    assert not outcome.ok
    assert "ignored" in outcome.output
    assert (root / "build" / "out.txt").read_text() == "compiled output\n"


async def test_glob_patterns_cannot_reach_outside(ctx: ToolContext) -> None:
    outcome = await call(ctx, "glob", pattern="../outside/*")
    assert outcome.output == "no files match '../outside/*'"
