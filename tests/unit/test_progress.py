"""Progress on the engine's waits: the map's scan (files scanned of the total), MCP servers
starting, a retry's wait; `cairn run`'s live status line on a terminal, and nothing of it off
one or with `--quiet`. The events are asserted, never their timing."""

from __future__ import annotations

import asyncio
import io
import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

from cairn.agent.engine import Engine
from cairn.commands.status_line import StatusLine, Wait
from cairn.repomap.index import PROGRESS_MIN_FILES, TagIndex
from cairn.settings import Settings
from tests.fakes.mcp_fixture import fixture_server
from tests.unit.test_agent_support import Recorder

CLI_TIMEOUT_S = 240
# Enough files for several progress reports of the first scan (each report a batch).
TREE_FILES = 3 * PROGRESS_MIN_FILES
MAP_STATUS = "Building the repository map"


def large_tree(root: Path, files: int = TREE_FILES) -> Path:
    for i in range(files):
        folder = root / f"pkg{i // 100}"
        folder.mkdir(parents=True, exist_ok=True)
        body = "".join(f"def f{i}_{j}(x):\n    return g{j}(x) + {j}\n\n" for j in range(8))
        (folder / f"mod{i}.py").write_text(body, encoding="utf-8")
    return root


def scripted_workspace(root: Path, *replies: dict[str, object]) -> Path:
    (root / "script.jsonl").write_text(
        "".join(json.dumps(reply) + "\n" for reply in replies), encoding="utf-8"
    )
    (root / "cairn.toml").write_text('model = "scripted/script.jsonl"\n', encoding="utf-8")
    return root


def test_a_large_scan_reports_its_batches_and_scans_the_same(tmp_path: Path) -> None:
    tree = large_tree(tmp_path / "tree")
    files = sorted(tree.rglob("*.py"))
    calls: list[tuple[int, int]] = []
    first, second, third = (TagIndex(tree, None) for _ in range(3))
    try:
        reported = first.refresh(files, lambda d, t: calls.append((d, t)))
        silent = second.refresh(files)
        small: list[tuple[int, int]] = []
        third.refresh(files[: PROGRESS_MIN_FILES - 1], lambda d, t: small.append((d, t)))
    finally:
        for index in (first, second, third):
            index.close()
    assert calls[0] == (0, TREE_FILES) and calls[-1] == (TREE_FILES, TREE_FILES)
    assert len(calls) > 2 and [done for done, _ in calls] == sorted(done for done, _ in calls)
    assert reported.keys() == silent.keys()
    assert small == []  # a small scan says nothing


def test_a_turn_on_a_large_tree_reports_the_maps_scan_for_its_session(tmp_path: Path) -> None:
    root = scripted_workspace(large_tree(tmp_path), {"text": "Done."})
    recorder = Recorder()
    engine = Engine([root], Settings(model="scripted/script.jsonl"), listener=recorder)
    try:
        result = asyncio.run(engine.turn("look around"))
    finally:
        engine.close()
    steps = [e for e in recorder.progress if e.key == "map"]
    assert steps[0].stage == "begin" and steps[-1].stage == "end"
    assert {e.stage for e in steps[1:-1]} == {"report"}
    assert steps[-1].done == steps[-1].total == TREE_FILES
    assert steps[-1].message == f"{TREE_FILES:,} files scanned"
    assert {e.session_id for e in steps} == {result.session_id}
    assert steps[0].title == MAP_STATUS and steps[1].percentage is not None


def test_mcp_servers_starting_and_a_retrys_wait_are_reported(tmp_path: Path) -> None:
    root = scripted_workspace(tmp_path, {"error": "rate_limit"}, {"text": "Recovered."})
    settings = Settings.model_validate(
        {"model": "scripted/script.jsonl", "mcp": {"servers": {"fx": fixture_server()}}}
    )
    recorder = Recorder()
    engine = Engine([root], settings, listener=recorder)

    async def turn() -> str:
        try:
            return (await engine.turn("hello")).session_id
        finally:
            await engine.mcp.aclose()

    try:
        session_id = asyncio.run(turn())
    finally:
        engine.close()
    mcp = [e for e in recorder.progress if e.key == "mcp"]
    assert [(e.stage, e.message) for e in mcp] == [("begin", "fx"), ("end", "1 of 1 ready")]
    retry = [e for e in recorder.progress if e.key == "retry"]
    assert [e.stage for e in retry] == ["begin", "end"]
    assert retry[0].wait_s is not None and retry[0].wait_s > 0
    assert retry[0].message is not None and "rate limited" in retry[0].message
    assert {e.session_id for e in [*mcp, *retry]} == {session_id}


def test_the_status_line_is_off_the_terminal_and_counts_down() -> None:
    stream = io.StringIO()
    line = StatusLine.for_terminal(stream, quiet=False)
    assert line.enabled is False  # not a terminal
    line.show("map", "Building the repository map: 1 of 2 files")
    assert line.text() == "Building the repository map: 1 of 2 files"
    line.drop("map")
    assert stream.getvalue() == ""
    assert Wait("retrying", time.monotonic() + 2.5).shown(time.monotonic()) == "retrying (3 s)"
    assert Wait("retrying", time.monotonic() - 1).shown(time.monotonic()) == "retrying (0 s)"


def _run_on_a_terminal(root: Path, *args: str) -> str:
    """`cairn run` with its output on a pseudo-terminal; everything it wrote."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: the CLI, on the terminal
        os.chdir(root)
        os.execv(sys.executable, [sys.executable, "-m", "cairn", "run", *args])
    out = b""
    deadline = time.monotonic() + CLI_TIMEOUT_S
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if not ready:
            continue
        try:
            data = os.read(fd, 65536)
        except OSError:  # the child exited and closed the terminal
            break
        if not data:
            break
        out += data
    os.waitpid(pid, 0)
    os.close(fd)
    return out.decode("utf-8", errors="replace")


def test_cairn_run_shows_the_maps_progress_on_a_terminal_and_nothing_off_it(
    tmp_path: Path,
) -> None:
    root = scripted_workspace(large_tree(tmp_path / "w"), {"text": "Done."}, {"text": "Done."})
    shown = _run_on_a_terminal(root, "look around")
    assert f"{MAP_STATUS}: 0 of {TREE_FILES:,} files" in shown
    assert "Done." in shown
    piped = subprocess.run(
        [sys.executable, "-m", "cairn", "run", "--trust", "again"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=CLI_TIMEOUT_S,
        check=False,
    )
    assert piped.returncode == 0, piped.stderr
    assert MAP_STATUS not in piped.stderr and "\x1b[" not in piped.stderr


def test_quiet_keeps_the_terminal_free_of_the_status_line(tmp_path: Path) -> None:
    root = scripted_workspace(large_tree(tmp_path / "w"), {"text": "Done."})
    shown = _run_on_a_terminal(root, "--quiet", "look around")
    assert "Done." in shown and MAP_STATUS not in shown
