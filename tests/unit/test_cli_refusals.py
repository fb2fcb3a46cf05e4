"""Small refusals of the CLI (issue 26, item 8): one line naming the problem, no traceback.

`cairn trace delete` deletes only by the exact id (a prefix unique today may
name another session tomorrow); `cairn run --session ''` is an error, not a
new session.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from cairn.trace import TraceStore

CLI_TIMEOUT_S = 120


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


def test_trace_delete_needs_the_exact_id(tmp_path: Path) -> None:
    trace = TraceStore(tmp_path / ".cairn").create(title="keep me")
    session_id = trace.id
    trace.close()
    done = cairn(tmp_path, "trace", "delete", session_id[:-3], "-w", str(tmp_path), "--yes")
    assert done.returncode != 0
    assert "only a prefix of session" in done.stderr and "Traceback" not in done.stderr
    assert [m.id for m in TraceStore(tmp_path / ".cairn").list()] == [session_id]
    exact = cairn(tmp_path, "trace", "delete", session_id, "-w", str(tmp_path), "--yes")
    assert exact.returncode == 0, exact.stderr
    assert TraceStore(tmp_path / ".cairn").list() == []


def test_an_empty_session_option_is_an_error(tmp_path: Path) -> None:
    done = cairn(
        tmp_path, "run", "-w", str(tmp_path), "--model", "scripted/s.jsonl", "--session", "", "hi"
    )
    assert done.returncode != 0
    assert "--session is empty" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / ".cairn" / "traces").exists() or not any(
        (tmp_path / ".cairn" / "traces").iterdir()
    )
