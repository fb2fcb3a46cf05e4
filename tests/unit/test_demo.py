"""`cairn demo` as a user runs it: offline, exits 0 with the tree, the compaction stats, the tests."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from cairn.trace import TraceStore

DEMO_TIMEOUT_S = 240


def demo(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cairn", "demo", *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=DEMO_TIMEOUT_S,
        check=False,
    )


def test_demo_fixes_the_bug_and_reports(tmp_path: Path) -> None:
    kept = tmp_path / "demo"
    done = demo("--keep", str(kept))
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Goal tree:" in out
    assert "[-] 3.1 Rewrite as a sweep over sorted endpoints" in out
    assert "[x] 4 Verify with the tests" in out
    assert "Compaction:" in out and "  goal: 6 ×" in out and "  summary: 1 ×" in out
    assert "final test run: passed" in out
    # The activity went to stderr: tools, the explore branches, the compactions.
    assert "→ explore" in done.stderr and "✓ edit_file" in done.stderr
    assert "[compaction summary done:" in done.stderr

    assert "start <= merged[-1][1]" in (kept / "intervals.py").read_text()
    [meta] = TraceStore(kept / ".cairn").list()
    trace = TraceStore(kept / ".cairn").open(meta.id)
    assert trace.branches() == ["explore1-0", "explore1-1"]
    assert meta.turns[0].patch_artifact_id is not None


def test_demo_refuses_a_non_empty_keep_folder(tmp_path: Path) -> None:
    (tmp_path / "something.txt").write_text("x")
    done = demo("--keep", str(tmp_path))
    assert done.returncode == 1
    assert "--keep folder is not empty" in done.stderr
