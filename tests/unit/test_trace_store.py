"""Trace store: sessions, layout, messages, documents, artifacts, branches, workspace docs."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from cairn.errors import InvalidRequestError, UnknownSessionError
from cairn.goals import apply_goal
from cairn.models.goals import GoalTree
from cairn.models.manifest import Manifest, ManifestBlock
from cairn.models.messages import Message, TextPart, ToolResultPart
from cairn.trace import TraceStore


def _msg(message_id: str, text: str = "hi", goal_id: str | None = None) -> Message:
    return Message(id=message_id, role="user", parts=[TextPart(text=text)], goal_id=goal_id)


@pytest.fixture
def store(tmp_path: Path) -> TraceStore:
    return TraceStore(tmp_path / ".cairn")


def test_nothing_is_written_before_the_first_write(store: TraceStore) -> None:
    assert store.list() == []
    assert store.read_doc("profile.json") is None
    with pytest.raises(UnknownSessionError):
        store.open("x")
    assert not store.root.exists()


def test_create_writes_the_layout(store: TraceStore) -> None:
    trace = store.create("first", model="scripted/a.jsonl")
    assert (store.root / ".gitignore").read_text() == "*\n"
    assert trace.dir == store.root / "traces" / trace.id
    meta = json.loads((trace.dir / "meta.json").read_text())
    assert (meta["id"], meta["title"], meta["model"]) == (trace.id, "first", "scripted/a.jsonl")
    assert "createdAt" in meta  # camelCase on disk


def test_session_ids_are_unique_and_sortable(store: TraceStore) -> None:
    ids = [store.create().id for _ in range(20)]
    assert len(set(ids)) == 20
    times = [i.rsplit("-", 1)[0] for i in ids]
    assert times == sorted(times)  # the time prefix orders them by creation


def test_list_is_newest_first_by_update(store: TraceStore) -> None:
    old = store.create("old")
    new = store.create("new")
    assert [m.title for m in store.list()] == ["new", "old"]
    meta = old.meta()
    meta.updated_at = new.meta().updated_at.replace(year=new.meta().updated_at.year + 1)
    old.save_meta(meta)
    assert [m.title for m in store.list()] == ["old", "new"]


def test_open_by_unique_prefix_and_ambiguous_prefix(store: TraceStore) -> None:
    a = store.create()
    b = store.create()
    assert store.open(a.id) is a
    assert store.open(a.id[:-3]).id == a.id
    common = next(i for i in range(len(a.id)) if a.id[i] != b.id[i])
    with pytest.raises(InvalidRequestError, match="ambiguous session id") as info:
        store.open(a.id[:common])
    assert a.id in str(info.value) and b.id in str(info.value)
    with pytest.raises(UnknownSessionError, match="unknown session: 'zzz'"):
        store.open("zzz")
    with pytest.raises(UnknownSessionError):
        store.open("")


def test_messages_round_trip_across_stores(store: TraceStore) -> None:
    trace = store.create()
    trace.append_message(_msg("m1", "one", goal_id="1"))
    trace.append_message(
        Message(
            id="m2",
            role="tool",
            parts=[ToolResultPart(call_id="c", name="grep", output="x", artifact_id=None)],
        )
    )
    trace.close()
    again = TraceStore(store.root).open(trace.id)
    assert again.messages() == trace.messages()
    assert [m.goal_id for m in again.messages()] == ["1", None]
    assert again.load_report.skipped == 0


def test_duplicate_message_id_is_rejected(store: TraceStore) -> None:
    trace = store.create()
    trace.append_message(_msg("m1"))
    with pytest.raises(InvalidRequestError, match="message id 'm1' already exists"):
        trace.append_message(_msg("m1", "other"))
    trace.close()
    reopened = TraceStore(store.root).open(trace.id)
    with pytest.raises(InvalidRequestError, match="already exists"):
        reopened.append_message(_msg("m1"))
    assert [m.text() for m in reopened.messages()] == ["hi"]


def test_goals_meta_and_manifests_round_trip(store: TraceStore) -> None:
    trace = store.create()
    assert trace.goals() == GoalTree()
    tree = apply_goal(GoalTree(mission="m"), add="a, b")
    trace.save_goals(tree)
    manifest = Manifest(
        session_id=trace.id,
        model="x",
        available_input=10,
        used_input=5,
        blocks=[ManifestBlock(source="user", priority=1, tokens=5, version="v", included=True)],
    )
    trace.append_manifest(manifest)
    meta = trace.meta()
    meta.title = "renamed"
    trace.save_meta(meta)
    trace.close()
    again = TraceStore(store.root).open(trace.id)
    assert again.goals() == tree
    assert again.manifests() == [manifest]
    assert again.meta().title == "renamed"


def test_save_meta_of_another_session_is_refused(store: TraceStore) -> None:
    a, b = store.create(), store.create()
    with pytest.raises(InvalidRequestError, match="does not match"):
        a.save_meta(b.meta())


def test_returned_documents_are_copies(store: TraceStore) -> None:
    trace = store.create()
    tree = trace.goals()
    tree.mission = "changed locally"
    assert trace.goals().mission == ""


def test_artifacts_are_content_addressed(store: TraceStore) -> None:
    trace = store.create()
    first = trace.write_artifact("big output")
    assert trace.write_artifact(b"big output") == first
    patch = trace.write_artifact("--- a\n+++ b\n", kind="patch")
    assert patch.startswith("patch-") and first.startswith("text-")
    assert trace.read_artifact(first) == b"big output"
    assert trace.artifact_ids() == sorted([first, patch])


@pytest.mark.parametrize("bad", ["../meta.json", "text-../../x", "text-zz", ""])
def test_bad_artifact_ids_are_refused(store: TraceStore, bad: str) -> None:
    trace = store.create()
    with pytest.raises(InvalidRequestError, match="invalid artifact id"):
        trace.read_artifact(bad)


def test_unknown_artifact_is_named(store: TraceStore) -> None:
    trace = store.create()
    missing = "text-" + "0" * 32
    with pytest.raises(InvalidRequestError, match=f"unknown artifact '{missing}'"):
        trace.read_artifact(missing)


def test_bad_artifact_kind_is_refused(store: TraceStore) -> None:
    with pytest.raises(InvalidRequestError, match="invalid artifact kind"):
        store.create().write_artifact("x", kind="../x")


def test_branches_live_under_the_parent(store: TraceStore) -> None:
    trace = store.create(model="m")
    branch = trace.branch("b1")
    assert branch.dir == trace.dir / "branches" / "b1"
    assert branch.id == f"{trace.id}/b1"
    assert branch.meta().parent_id == trace.id and branch.meta().model == "m"
    branch.append_message(_msg("x"))
    assert trace.branch("b1") is branch
    assert trace.branches() == ["b1"]
    assert trace.messages() == []
    trace.close()
    reopened = TraceStore(store.root).open(f"{trace.id}/b1")
    assert [m.id for m in reopened.messages()] == ["x"]
    assert [m.id for m in store.list()] == [trace.id]  # branches are not sessions
    with pytest.raises(UnknownSessionError):
        store.open(f"{trace.id}/nope")
    with pytest.raises(InvalidRequestError, match="invalid branch name"):
        trace.branch("../escape")


def test_workspace_documents(store: TraceStore) -> None:
    store.write_doc("profile.json", {"languages": ["python"]})
    assert store.read_doc("profile.json") == {"languages": ["python"]}
    assert (store.root / ".gitignore").exists()
    (store.root / "profile.json").write_text("{broken")
    with pytest.raises(InvalidRequestError, match=r"profile\.json: not valid JSON"):
        store.read_doc("profile.json")
    for bad in ("../x.json", ".hidden", "traces", "a/b"):
        with pytest.raises(InvalidRequestError, match="document name"):
            store.write_doc(bad, {})


def test_cache_dir(store: TraceStore) -> None:
    path = store.cache_dir("repomap")
    assert path == store.root / "cache" / "repomap" and path.is_dir()
    with pytest.raises(InvalidRequestError, match="invalid cache name"):
        store.cache_dir("..")


def test_no_temp_files_are_left_behind(store: TraceStore) -> None:
    trace = store.create()
    trace.save_goals(GoalTree(mission="x"))
    trace.write_artifact("y")
    leftovers = [p for p in store.root.rglob("*") if p.name.startswith((".tmp", ".goal"))]
    assert leftovers == []


def test_leftovers_of_crashed_operations_are_cleaned(store: TraceStore) -> None:
    kept = store.create()
    traces = store.traces_dir
    half_deleted = traces / ".deleted-x-1234"
    old_half_made = traces / ".tmp-y-5678"
    fresh_half_made = traces / ".tmp-z-9abc"
    for folder in (half_deleted, old_half_made, fresh_half_made):
        (folder / "artifacts").mkdir(parents=True)
    an_hour_ago = time.time() - 3_700
    os.utime(old_half_made, (an_hour_ago, an_hour_ago))
    store.create()
    names = {p.name for p in traces.iterdir()}
    assert fresh_half_made.name in names and kept.id in names
    assert half_deleted.name not in names and old_half_made.name not in names
    assert len(store.list()) == 2


def test_hand_edited_naive_timestamp_still_lists(store: TraceStore) -> None:
    trace = store.create("naive")
    meta_path = trace.dir / "meta.json"
    data = json.loads(meta_path.read_text())
    data["updatedAt"] = "2020-01-01T00:00:00"
    meta_path.write_text(json.dumps(data))
    store.create("other")
    assert [m.title for m in store.list()] == ["other", "naive"]
