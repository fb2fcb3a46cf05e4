"""The per-trace write lock: a second process cannot write; a dead writer frees it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from cairn.errors import TraceLockedError
from cairn.models.messages import Message
from cairn.trace import TraceStore

# Appends one message to a session from another process; prints the outcome.
WRITER = """
import sys
from pathlib import Path
from cairn.errors import TraceLockedError
from cairn.models.messages import Message
from cairn.trace import TraceStore
trace = TraceStore(Path(sys.argv[1])).open(sys.argv[2])
try:
    trace.append_message(Message(id=sys.argv[3], role="user"))
except TraceLockedError as exc:
    print("locked:", exc)
else:
    print("written")
"""

# Takes the lock, reports it, then waits to be killed.
HOLDER = """
import sys
from pathlib import Path
from cairn.models.messages import Message
from cairn.trace import TraceStore
trace = TraceStore(Path(sys.argv[1])).open(sys.argv[2])
trace.append_message(Message(id="held", role="user"))
print("holding", flush=True)
sys.stdin.read()
"""


def _other_process(root: Path, session_id: str, message_id: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", WRITER, str(root), session_id, message_id],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def test_second_process_gets_trace_locked(tmp_path: Path) -> None:
    store = TraceStore(tmp_path / ".cairn")
    trace = store.create()
    trace.append_message(Message(id="a", role="user"))
    out = _other_process(store.root, trace.id, "b")
    assert out == (
        f"locked: session {trace.id} is being written by another process (pid {os.getpid()})"
    )
    trace.close()
    assert _other_process(store.root, trace.id, "b") == "written"
    assert [m.id for m in TraceStore(store.root).open(trace.id).messages()] == ["a", "b"]


def test_reads_need_no_lock(tmp_path: Path) -> None:
    store = TraceStore(tmp_path / ".cairn")
    trace = store.create()
    trace.append_message(Message(id="a", role="user"))
    other = TraceStore(store.root)
    assert [m.id for m in other.open(trace.id).messages()] == ["a"]
    assert other.list()[0].id == trace.id


def test_lock_is_retaken_after_close(tmp_path: Path) -> None:
    store = TraceStore(tmp_path / ".cairn")
    trace = store.create()
    trace.append_message(Message(id="a", role="user"))
    trace.close()
    trace.append_message(Message(id="b", role="user"))
    assert _other_process(store.root, trace.id, "c").startswith("locked:")


def test_killed_writer_frees_the_lock_and_delete_respects_it(tmp_path: Path) -> None:
    store = TraceStore(tmp_path / ".cairn")
    trace = store.create()
    trace.close()
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(store.root), trace.id],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
        with pytest.raises(TraceLockedError, match=f"pid {holder.pid}"):
            trace.append_message(Message(id="mine", role="user"))
        with pytest.raises(TraceLockedError):
            store.delete(trace.id)
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
        if holder.stdin is not None:
            holder.stdin.close()
        if holder.stdout is not None:
            holder.stdout.close()
    trace.append_message(Message(id="mine", role="user"))
    assert [m.id for m in trace.messages()] == ["held", "mine"]
    trace.close()
    store.delete(trace.id)
    assert store.list() == []


def test_two_stores_in_one_process_are_told_apart(tmp_path: Path) -> None:
    first = TraceStore(tmp_path / ".cairn")
    trace = first.create()
    trace.append_message(Message(id="a", role="user"))
    other = TraceStore(first.root).open(trace.id)
    with pytest.raises(TraceLockedError, match="already open for writing in this process"):
        other.append_message(Message(id="b", role="user"))
    assert [m.id for m in other.messages()] == ["a"]
