"""Walks and reads that cannot hang or crash: symlink loops, dangling links, FIFOs, sockets,
unreadable folders and over-size files, in a plain folder and in a git repository.

Each workspace holds `loop1 -> loop2 -> loop1`, a dangling link, a FIFO named like code
(`pipe.py`) and a Unix socket; before this change `Path.resolve()` raised `RuntimeError`
from the listing (context, run, profile and map all failed) and every read of the FIFO
blocked forever (a hang here ends in the suite's timeout, a failure).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from cairn.agent.tools import ToolContext, default_registry
from cairn.context.builder import ContextBuilder, GatherRequest
from cairn.context.references import reference_blocks
from cairn.context.rules import rules_blocks
from cairn.files.guard import PathRefusal, guard_path, is_binary, is_secret, read_text_guarded
from cairn.files.ignore import IgnoreRules
from cairn.files.reading import UnsafeFileError, read_bytes_bounded, regular_file_size
from cairn.files.rules import applicable_rules_files
from cairn.files.workspace import LinkLoopError, Workspace
from cairn.profile.scan import scan_profile
from cairn.settings import Settings, SettingsRef
from cairn.tokens.counter import counter_for
from cairn.trace import Trace
from tests.unit.test_agent_support import call, reply, write_script

CLI_TIMEOUT_S = 240
SPARSE_BYTES = 2 * 1024**3
COUNT = counter_for("gpt-4o")


def _git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=t@example.com", "-c", "user.name=t", *args],
        cwd=root,
        check=True,
        capture_output=True,
    )


def make_hostile(root: Path, *, git: bool) -> Path:
    """A small project plus every kind of entry that must not be followed or opened."""
    root.mkdir(parents=True)
    (root / "app.py").write_text("def main():\n    return 1\n")
    (root / "AGENTS.md").write_text("# Rules\nBe brief.\n")
    (root / "pyproject.toml").write_text('[project]\nname = "demo"\n')
    (root / "loop1").symlink_to("loop2")
    (root / "loop2").symlink_to("loop1")
    (root / "dangling.py").symlink_to("missing.py")
    if git:
        _git(root, "init", "-q")
        _git(root, "add", "-A")  # the loop and the dangling link are tracked
        _git(root, "commit", "-qm", "init")
    os.mkfifo(root / "pipe.py")
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(root / "server.sock"))
    listener.close()
    return root


@pytest.fixture(params=["plain", "git"])
def hostile(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    return make_hostile(tmp_path / "ws", git=request.param == "git")


@pytest.fixture
def tool_ctx(hostile: Path, trace: Trace) -> Iterator[ToolContext]:
    yield ToolContext(
        workspace=Workspace([hostile]),
        config=SettingsRef(Settings()),
        trace=trace,
        ignore=IgnoreRules.for_folder(hostile),
        allowed_commands=[],
    )


def test_listing_skips_loops_dangling_links_and_special_files_with_reasons(hostile: Path) -> None:
    rules = IgnoreRules.for_folder(hostile)
    names = {path.name for path in rules.files()}
    assert {"app.py", "AGENTS.md", "pyproject.toml"} <= names
    assert not names & {"loop1", "loop2", "dangling.py", "pipe.py", "server.sock"}
    skipped = rules.skipped
    assert skipped.get("loop1") == "symlink loop" and skipped.get("loop2") == "symlink loop"
    assert skipped.get("dangling.py") == "dangling symlink"
    if not rules.in_git:  # git lists only what it tracks (neither the FIFO nor the socket)
        assert skipped["pipe.py"] == "a FIFO, not a regular file"
        assert skipped["server.sock"] == "a socket, not a regular file"


def test_guard_refuses_loops_and_special_files_before_opening_them(hostile: Path) -> None:
    workspace = Workspace([hostile])
    expected = {
        "loop1": ("link_loop", "symlink loop"),
        "pipe.py": ("special", "not a regular file (a FIFO)"),
        "server.sock": ("special", "not a regular file (a socket)"),
        "dangling.py": ("not_found", "not found"),
    }
    for ref, (reason, words) in expected.items():
        with pytest.raises(PathRefusal) as caught:
            read_text_guarded(workspace, ref)
        assert caught.value.reason == reason
        assert str(caught.value) == f"{ref}: {words}"
    assert guard_path(workspace, "app.py") == hostile / "app.py"
    with pytest.raises(LinkLoopError):
        workspace.resolve("loop1")
    assert not is_secret(hostile / "loop1")  # the secret check follows links: no crash


def test_reads_refuse_a_fifo_and_a_device_and_check_the_size_first(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    for path in (tmp_path / "pipe", Path("/dev/zero")):
        with pytest.raises(UnsafeFileError) as caught:
            read_bytes_bounded(path)
        assert caught.value.problem == "special"
        with pytest.raises(UnsafeFileError):
            is_binary(path)
    huge = tmp_path / "huge.py"
    with huge.open("wb") as handle:  # sparse: no disk used, 2 GB by its size
        handle.truncate(SPARSE_BYTES)
    assert regular_file_size(huge) == SPARSE_BYTES
    with pytest.raises(UnsafeFileError) as caught:
        read_bytes_bounded(huge)
    assert caught.value.problem == "too_large"
    assert f"{SPARSE_BYTES} bytes" in str(caught.value)
    assert read_bytes_bounded(huge, 16, head=True) == b"\0" * 16
    with pytest.raises(OSError):  # an editor-less read goes through the same bound
        Workspace([tmp_path]).read_text(huge)


def test_references_and_rules_survive_loops_and_fifos(hostile: Path) -> None:
    workspace = Workspace([hostile])
    ignore = IgnoreRules.for_folder(hostile)
    blocks = reference_blocks(
        workspace, ["loop1", "@pipe.py", ".", "app.py"], ignore=ignore, count=COUNT
    )
    by_ref = {block.ref: block for block in blocks}
    assert by_ref["loop1"].reason == "loop1: symlink loop"
    assert by_ref["pipe.py"].reason == "pipe.py: not a regular file (a FIFO)"
    assert by_ref["app.py"].included and "def main" in by_ref["app.py"].text
    listing = by_ref["."].text
    assert "app.py" in listing and "loop1" not in listing
    in_play = [hostile / "loop1", hostile / "pipe.py", hostile / "app.py"]
    assert applicable_rules_files(workspace, in_play) == [hostile / "AGENTS.md"]
    assert [b.ref for b in rules_blocks(workspace, in_play, COUNT)] == ["AGENTS.md"]


def test_a_fifo_rules_file_is_refused_without_blocking(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "sub").mkdir(parents=True)
    (root / "AGENTS.md").write_text("root rules\n")
    (root / "sub" / "AGENTS.md").symlink_to("pipe")
    os.mkfifo(root / "sub" / "pipe")
    (root / "sub" / "x.py").write_text("x = 1\n")
    workspace = Workspace([root])
    # The FIFO behind the link is not a file: it applies to nobody, and is never opened.
    blocks = rules_blocks(workspace, [root / "sub" / "x.py"], COUNT)
    assert [b.ref for b in blocks] == ["AGENTS.md"]


def test_profile_scan_keeps_working_next_to_a_loop(hostile: Path) -> None:
    profile = scan_profile(hostile, IgnoreRules.for_folder(hostile))
    assert profile.languages == ["python"]
    assert "pyproject.toml" in profile.important_paths
    assert [r.path for r in profile.rules_files] == ["AGENTS.md"]


async def test_file_tools_refuse_fifos_and_loops_and_keep_listing(tool_ctx: ToolContext) -> None:
    registry = default_registry()

    async def run(name: str, **arguments: object) -> tuple[bool, str]:
        outcome = await registry.run(name, arguments, tool_ctx)
        return outcome.ok, outcome.output

    fifo = (False, "error: pipe.py: not a regular file (a FIFO)")
    assert await run("read_file", path="pipe.py") == fifo
    assert await run("read_file", path="loop1") == (False, "error: loop1: symlink loop")
    assert await run("edit_file", path="pipe.py", old="a", new="b") == fifo
    assert await run("edit_file", path="pipe.py", new="b") == fifo
    assert await run("grep", pattern="x", path="pipe.py") == fifo
    ok, found = await run("grep", pattern="main")
    assert ok and found == "app.py:1: def main():"
    ok, names = await run("glob", pattern="*")
    assert ok and "app.py" in names.splitlines() and "pipe.py" not in names
    ok, listing = await run("list_dir")
    assert ok
    lines = {line.strip() for line in listing.splitlines()}
    assert "loop1  (symlink loop: not readable)" in lines
    assert "dangling.py  (dangling symlink: not readable)" in lines
    assert "pipe.py  (a FIFO: not readable)" in lines
    assert "server.sock  (a socket: not readable)" in lines


def test_context_build_with_a_fifo_in_play_and_referenced(hostile: Path) -> None:
    workspace = Workspace([hostile])
    builder = ContextBuilder(workspace, Settings())
    built = builder.build(
        GatherRequest(
            session_id="s",
            model="gpt-4o",
            user_message="look",
            references=("pipe.py", "loop1"),
            files_in_play=(hostile / "server.sock", hostile / "app.py"),
        )
    )
    reasons = {(b.source, b.ref): b.reason for b in built.blocks if not b.included}
    assert reasons[("reference", "pipe.py")] == "pipe.py: not a regular file (a FIFO)"
    assert reasons[("reference", "loop1")] == "loop1: symlink loop"
    assert reasons[("buffer", "server.sock")] == (
        f"refused: {hostile / 'server.sock'}: not a regular file (a socket)"
    )
    [code] = [b for b in built.blocks if b.source == "buffer" and b.included]
    assert code.ref == "app.py" and "def main" in code.text


def cairn(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cairn", *args],
        cwd=root,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=CLI_TIMEOUT_S,
        check=False,
    )


def test_cli_context_and_run_work_next_to_a_loop_and_a_fifo(hostile: Path) -> None:
    # A dry run needs a model (chosen explicitly; no call is made).
    dry = ("--model", "scripted/script.jsonl")
    done = cairn(hostile, "context", "-w", str(hostile), *dry, "-m", "hi", "--json")
    assert done.returncode == 0, done.stderr
    sources = {block["source"] for block in json.loads(done.stdout)["blocks"]}
    assert {"rules", "profile", "repomap"} <= sources

    fifo = cairn(
        hostile, "context", "-w", str(hostile), *dry, "-m", "hi", "--file", "pipe.py", "--json"
    )
    assert fifo.returncode == 0, fifo.stderr
    [buffer] = [b for b in json.loads(fifo.stdout)["blocks"] if b["source"] == "reference"]
    assert not buffer["included"] and "not a regular file (a FIFO)" in buffer["reason"]

    model = write_script(
        hostile,
        [
            reply("", call("read_file", path="pipe.py")),
            reply("", call("grep", pattern="main")),
            reply("All read."),
        ],
    )
    run = cairn(hostile, "run", "-w", str(hostile), "--model", model, "read everything")
    assert run.returncode == 0, run.stderr
    assert "All read." in run.stdout
    assert "✗ read_file: error: pipe.py: not a regular file (a FIFO)" in run.stderr
    assert "✓ grep: app.py:1: def main():" in run.stderr
