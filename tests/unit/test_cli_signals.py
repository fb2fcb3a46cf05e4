"""Signals to `cairn run`: SIGTERM, SIGHUP and Ctrl-C cancel the turn, kill its command, record it."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cairn.trace import TraceStore
from tests.unit.test_agent_support import call, reply, write_script

WAIT_S = 240
WAIT_STEP_S = 0.02
# The command sleeps this long unless killed (the test never waits for it).
SLEEP_S = 120
# Its last argument is the workspace, so its process can be told apart in /proc (in a
# sandbox, the pid it writes is the one of its own PID namespace).
SLOW_COMMAND = (
    f'{sys.executable} -c "import os, pathlib, time; '
    "pathlib.Path('child.pid').write_text(str(os.getpid())); "
    f"time.sleep({SLEEP_S}); pathlib.Path('late.txt').write_text('still ran')\""
)


def _alive(pid: int) -> bool:
    """True while `pid` exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _start(root: Path, *extra: str) -> subprocess.Popen[str]:
    model = write_script(
        root,
        [
            reply("Running it.", call("run_command", command=f"{SLOW_COMMAND} {root}")),
            reply("never"),
        ],
    )
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "cairn",
            "run",
            "-w",
            str(root),
            "--model",
            model,
            "--yes",
            *extra,
            "go",
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _child_pid(root: Path, process: subprocess.Popen[str]) -> int:
    marker = root / "child.pid"
    deadline = time.monotonic() + WAIT_S
    while not (marker.exists() and marker.read_text()):
        if process.poll() is not None or time.monotonic() > deadline:
            raise AssertionError(f"the command never started: {process.communicate()}")
        time.sleep(WAIT_STEP_S)
    return _host_pid(root)


def _host_pid(root: Path) -> int:
    """The pid, as this process sees it, of the command whose last argument is `root`."""
    for entry in Path("/proc").iterdir():
        try:
            arguments = (entry / "cmdline").read_bytes().rstrip(b"\0").split(b"\0")
        except OSError:
            continue
        if entry.name.isdigit() and arguments[-1] == str(root).encode():
            return int(entry.name)
    raise AssertionError(f"no process runs the command of {root}")


@pytest.mark.parametrize(
    ("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129), (signal.SIGINT, 130)]
)
def test_a_signal_during_a_slow_command_kills_it_and_records_the_cancel(
    tmp_path: Path, signum: int, code: int
) -> None:
    process = _start(tmp_path)
    child = _child_pid(tmp_path, process)
    assert _alive(child)
    process.send_signal(signum)
    _, err = process.communicate(timeout=WAIT_S)
    assert process.returncode == code, err
    assert not _alive(child), "the command outlived cairn run"
    [meta] = TraceStore(tmp_path / ".cairn").list()
    [turn] = meta.turns
    assert turn.finish_reason == "cancelled" and turn.ended_at is not None
    assert "turn cancelled" in err
    assert f'resume with: cairn run --session {meta.id} "…"' in err
    if signum != signal.SIGINT:
        assert signal.Signals(signum).name in err
    assert not (tmp_path / "late.txt").exists()
    # The trace is consistent: the session continues.
    model = write_script(tmp_path, [reply("Back.")], name="again.jsonl")
    again = subprocess.run(
        [
            sys.executable,
            "-m",
            "cairn",
            "run",
            "-w",
            str(tmp_path),
            "--model",
            model,
            "--session",
            meta.id,
            "again",
        ],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=WAIT_S,
        check=False,
    )
    assert again.returncode == 0, again.stderr
    turns = TraceStore(tmp_path / ".cairn").open(meta.id).meta().turns
    assert [t.finish_reason for t in turns] == ["cancelled", "stop"]


def test_a_second_ctrl_c_exits_at_once_and_the_cancel_is_still_recorded(tmp_path: Path) -> None:
    process = _start(tmp_path)
    child = _child_pid(tmp_path, process)
    process.send_signal(signal.SIGINT)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=WAIT_S)
    assert process.returncode == 130, err
    assert not _alive(child)
    [meta] = TraceStore(tmp_path / ".cairn").list()
    assert [t.finish_reason for t in meta.turns] == ["cancelled"]
    assert "resume with: cairn run --session" in err


def test_the_first_line_comes_before_the_engine(tmp_path: Path) -> None:
    model = write_script(tmp_path, [reply("hello")])
    done = subprocess.run(
        [sys.executable, "-m", "cairn", "run", "-w", str(tmp_path), "--model", model, "hi"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=WAIT_S,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    first = done.stderr.splitlines()[0]
    assert first == f"cairn · build mode · model {model} · new session · preparing the context…"
