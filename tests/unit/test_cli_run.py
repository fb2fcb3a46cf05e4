"""`cairn run` as a user runs it: a subprocess, text on stdout, activity on stderr."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from cairn.trace import TraceStore
from tests.unit.test_agent_support import call, reply, write_script

CLI_TIMEOUT_S = 240


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


def test_run_streams_text_and_activity_and_saves_the_trace(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("remember the milk\n")
    model = write_script(
        tmp_path,
        [
            reply("Let me plan.", call("goal", add="Read the notes")),
            reply("", call("read_file", path="notes.md")),
            reply("", call("run_command", command="echo hi")),
            reply("The notes say: remember the milk."),
            reply("Still here."),
        ],
    )
    done = cairn(tmp_path, "run", "--workspace", str(tmp_path), "--model", model, "read notes")
    assert done.returncode == 0, done.stderr
    assert "Let me plan." in done.stdout and "remember the milk." in done.stdout
    assert "→ read_file" in done.stderr and "✓ read_file" in done.stderr
    # No TTY and no --yes: the command is refused, the turn goes on.
    assert "✗ run_command: error: command not allowed: echo hi" in done.stderr
    assert "Read the notes" in done.stderr  # the goal tree at the end
    [meta] = TraceStore(tmp_path / ".cairn").list()
    assert meta.turns[0].finish_reason == "stop"

    # The resumed session, in a new process, continues its script where it stopped.
    again = cairn(
        tmp_path, "run", "-w", str(tmp_path), "--model", model, "--session", meta.id, "more?"
    )
    assert again.returncode == 0, again.stderr
    assert "Still here." in again.stdout
    assert len(TraceStore(tmp_path / ".cairn").open(meta.id).meta().turns) == 2


def test_yes_approves_commands(tmp_path: Path) -> None:
    model = write_script(
        tmp_path, [reply("", call("run_command", command="echo approved-run")), reply("ok")]
    )
    done = cairn(tmp_path, "run", "-w", str(tmp_path), "--model", model, "--yes", "echo")
    assert done.returncode == 0, done.stderr
    assert "✓ run_command: $ echo approved-run" in done.stderr


def test_a_failing_command_is_shown_failed_and_explore_shows_its_branches(tmp_path: Path) -> None:
    model = write_script(
        tmp_path,
        [
            reply("", call("run_command", command="echo broken; exit 3")),
            reply("", call("explore", branches=["Look at A", "Look at B"], background="x")),
            reply("A is fine.\nMore detail.", agent="0"),
            reply("B holds the bug.", agent="1"),
            reply("done"),
        ],
    )
    done = cairn(tmp_path, "run", "-w", str(tmp_path), "--model", model, "--yes", "check")
    assert done.returncode == 0, done.stderr
    assert "✗ run_command: $ echo broken; exit 3 (exit code 3)" in done.stderr
    assert "  ✓ explore\n" in done.stderr and '{"branches"' not in done.stderr
    assert "    ✓ Look at A: A is fine.\n" in done.stderr
    assert "    ✓ Look at B: B holds the bug.\n" in done.stderr


def test_model_error_exits_non_zero_with_one_line(tmp_path: Path) -> None:
    model = write_script(tmp_path, [{"error": "auth"}])
    done = cairn(tmp_path, "run", "-w", str(tmp_path), "--model", model, "hello")
    assert done.returncode == 1
    assert "error: model" in done.stderr
    assert "Traceback" not in done.stderr


def test_bad_mode_is_a_clear_error(tmp_path: Path) -> None:
    done = cairn(tmp_path, "run", "-w", str(tmp_path), "--mode", "yolo", "hello")
    assert done.returncode == 1
    assert "unknown mode 'yolo'" in done.stderr
