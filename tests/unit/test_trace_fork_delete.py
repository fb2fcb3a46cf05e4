"""Forking a session at a message, and deleting a session."""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn.errors import InvalidRequestError, UnknownSessionError
from cairn.goals import apply_goal
from cairn.models.goals import GoalTree
from cairn.models.messages import Message, TextPart
from cairn.models.session import Turn, Usage
from cairn.trace import Trace, TraceStore


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != "lock"
    }


@pytest.fixture
def store(tmp_path: Path) -> TraceStore:
    return TraceStore(tmp_path / ".cairn")


@pytest.fixture
def parent(store: TraceStore) -> Trace:
    trace = store.create("parent", model="scripted/x.jsonl")
    for i in range(5):
        trace.append_message(Message(id=f"m{i}", role="user", parts=[TextPart(text=f"t{i}")]))
    trace.save_goals(apply_goal(GoalTree(mission="mission"), add="a, b"))
    meta = trace.meta()
    meta.turns = [
        Turn(id="t1", user_message_id="m0", usage=Usage(input_tokens=10, output_tokens=1)),
        Turn(id="t2", user_message_id="m3", usage=Usage(input_tokens=20, output_tokens=2)),
    ]
    trace.save_meta(meta)
    trace.write_artifact("a large tool output")
    trace.close()
    return trace


def test_fork_at_a_message(store: TraceStore, parent: Trace) -> None:
    before = _snapshot(parent.dir)
    then = GoalTree(mission="as it was at m2")
    child = store.fork(parent.id, at_message_id="m2", goals=then)
    assert child.id != parent.id
    assert [m.id for m in child.messages()] == ["m0", "m1", "m2"]
    meta = child.meta()
    assert (meta.parent_id, meta.fork_message_id, meta.title) == (parent.id, "m2", "parent")
    assert [t.id for t in meta.turns] == ["t1"]
    assert meta.usage.input_tokens == 10
    assert child.goals() == then
    assert child.artifact_ids() == parent.artifact_ids()
    artifact = parent.artifact_ids()[0]
    assert child.read_artifact(artifact) == b"a large tool output"
    assert _snapshot(parent.dir) == before


def test_forked_session_is_independent(store: TraceStore, parent: Trace) -> None:
    before = _snapshot(parent.dir)
    child = store.fork(parent.id, at_message_id="m1", goals=GoalTree())
    child.append_message(Message(id="m2", role="user", parts=[TextPart(text="other")]))
    child.save_goals(GoalTree(mission="changed"))
    child.close()
    assert _snapshot(parent.dir) == before
    reloaded = TraceStore(store.root).open(child.id)
    assert [m.text() for m in reloaded.messages()] == ["t0", "t1", "other"]


def test_fork_without_a_message_copies_everything(store: TraceStore, parent: Trace) -> None:
    child = store.fork(parent.id[:-3])  # a unique prefix is enough
    assert [m.id for m in child.messages()] == [f"m{i}" for i in range(5)]
    assert child.goals() == parent.goals()
    assert child.meta().fork_message_id == "m4"
    assert store.list()[0].id == child.id


def test_fork_of_an_empty_session(store: TraceStore) -> None:
    empty = store.create()
    child = store.fork(empty.id)
    assert child.messages() == [] and child.meta().fork_message_id is None


def test_fork_at_unknown_message_is_refused(store: TraceStore, parent: Trace) -> None:
    sessions = len(store.list())
    with pytest.raises(InvalidRequestError, match="message 'nope' is not in session"):
        store.fork(parent.id, at_message_id="nope", goals=GoalTree())
    assert len(store.list()) == sessions
    assert not any(p.name.startswith(".tmp") for p in store.traces_dir.iterdir())


def test_fork_at_a_message_needs_the_tree_of_that_moment(store: TraceStore, parent: Trace) -> None:
    with pytest.raises(InvalidRequestError, match="goal tree of that moment"):
        store.fork(parent.id, at_message_id="m2")


def test_fork_of_unknown_session(store: TraceStore) -> None:
    with pytest.raises(UnknownSessionError):
        store.fork("missing")


def test_delete_removes_only_that_session(store: TraceStore, parent: Trace) -> None:
    other = store.create("other")
    other.append_message(Message(id="o", role="user"))
    store.write_doc("profile.json", {"a": 1})
    child = store.fork(parent.id)
    keep = _snapshot(store.root / "traces" / other.id)
    store.delete(child.id)
    assert not child.dir.exists()
    assert sorted(m.id for m in store.list()) == sorted([parent.id, other.id])
    assert _snapshot(store.root / "traces" / other.id) == keep
    assert parent.dir.is_dir() and store.read_doc("profile.json") == {"a": 1}
    assert sorted(p.name for p in store.traces_dir.iterdir()) == sorted([parent.id, other.id])


def test_delete_of_a_live_trace_closes_it(store: TraceStore) -> None:
    trace = store.create()
    trace.append_message(Message(id="a", role="user"))
    store.delete(trace.id)
    assert store.list() == []
    with pytest.raises(UnknownSessionError):
        store.open(trace.id)


def test_delete_needs_the_exact_id(store: TraceStore, parent: Trace) -> None:
    with pytest.raises(UnknownSessionError):
        store.delete(parent.id[:-2])
    for bad in ("..", "../x", "", "traces"):
        with pytest.raises(UnknownSessionError):
            store.delete(bad)
    assert parent.dir.is_dir()
