"""Properties of `assemble`: deterministic bytes, zone order, and an append-only prefix.

Snapshots are made from one real gather of a small workspace with random
histories (user and assistant text, tool calls and results, harness notes,
attachments, prunes and goal folds), plans, diagnostics, and files in play.
"""

from __future__ import annotations

import copy
import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cairn.context.assemble import assemble
from cairn.context.blocks import section
from cairn.context.builder import ContextBuilder, GatherRequest
from cairn.context.cache import CacheView
from cairn.context.snapshot import ContextSnapshot, FileView
from cairn.context.tool_schemas import lines_of
from cairn.context.zones import CACHED_ZONES, ZONES
from cairn.files.text import content_hash
from cairn.files.workspace import Workspace
from cairn.models.goals import Goal, GoalTree
from cairn.models.messages import (
    CompactionPart,
    FilePart,
    Message,
    Part,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from cairn.settings import Settings
from cairn.tokens.counter import counter_for

FIXTURE = Path(__file__).resolve().parents[1] / "workspaces" / "context_small"
MODEL = "scripted/script.jsonl"
EXAMPLES = 60
COUNT = counter_for(MODEL)
SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)

words = st.text(alphabet="abcdefgh ijk\n", min_size=1, max_size=40)
Step = tuple[str, str]
steps: st.SearchStrategy[Step] = st.tuples(
    st.sampled_from(["user", "text", "tool", "note", "attach", "prune", "fold"]), words
)


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> ContextSnapshot:
    root = tmp_path_factory.mktemp("assemble") / "ws"
    shutil.copytree(FIXTURE, root)
    builder = ContextBuilder(Workspace([root]), Settings())
    schemas = [
        {"type": "function", "function": {"name": n, "parameters": {"type": "object"}}}
        for n in ("read_file", "goal")
    ]
    request = GatherRequest(
        session_id="s1",
        model=MODEL,
        user_message="",
        files_in_play=(root / "app" / "util.py",),
        tools=tuple(lines_of(schemas)),
    )
    return builder.gather(request)


def history(plan: list[Step]) -> list[Message]:
    """Messages from steps (ids in order; markers refer to earlier calls and messages)."""
    out: list[Message] = []
    calls: list[str] = []
    for index, (kind, text) in enumerate(plan):
        mid = f"m{index:03d}"
        parts: list[Part]
        if kind == "user":
            out.append(Message(id=mid, role="user", parts=[TextPart(text=text)], turn_id=mid))
        elif kind == "text":
            out.append(Message(id=mid, role="assistant", parts=[TextPart(text=text)]))
        elif kind == "tool":
            call = f"c{index}"
            calls.append(call)
            args = {"path": "app/util.py"}
            parts = [ToolCallPart(call_id=call, name="read_file", arguments=args)]
            out.append(Message(id=mid, role="assistant", parts=parts, goal_id="1"))
            result = ToolResultPart(call_id=call, name="read_file", output=text, artifact_id="a")
            out.append(Message(id=mid + "r", role="tool", parts=[result], goal_id="1"))
        elif kind == "note":
            out.append(Message(id=mid, role="system", parts=[TextPart(text=text)]))
        elif kind == "attach":
            part = FilePart(path=f"f{index}.txt", hash=content_hash(text), text=text)
            out.append(Message(id=mid, role="system", parts=[part]))
        elif kind == "prune" and calls:
            marker = CompactionPart(kind="prune", pruned_call_ids=[calls[0]])
            out.append(Message(id=mid, role="system", parts=[marker]))
        elif kind == "fold":
            covered = [m.id for m in out if m.goal_id == "1"]
            if covered:
                marker = CompactionPart(kind="goal", covers=covered, goal_id="1", text=text)
                out.append(Message(id=mid, role="system", parts=[marker]))
    return out


def snapshot_of(
    base: ContextSnapshot, plan: list[Step], goal: str, diagnostic: str, attached: str
) -> ContextSnapshot:
    goals = GoalTree(
        mission="m", current_id="1", goals=[Goal(id="1", description=goal, status="in_progress")]
    )
    diagnostics = (
        section("diagnostics", 70, "Diagnostics: app/util.py", diagnostic, count=COUNT, ref="a"),
    )
    view = FileView(
        source="buffer",
        rel="app/extra.py",
        text=attached,
        version=content_hash(attached),
        kind="code",
        priority=62,
        origin="editor buffer",
    )
    return replace(
        base,
        history=tuple(history(plan)),
        goals=goals,
        diagnostics=diagnostics,
        files=(*base.files, view),
    )


def wire(snapshot: ContextSnapshot, view: CacheView | None = None) -> str:
    built = assemble(snapshot, view)
    return json.dumps([built.messages, built.manifest.wire(), built.breakpoints], sort_keys=True)


@SETTINGS
@given(st.lists(steps, max_size=14), words, words, words)
def test_any_snapshot_assembled_twice_gives_the_same_bytes(
    base: ContextSnapshot, plan: list[Step], goal: str, diagnostic: str, attached: str
) -> None:
    snapshot = snapshot_of(base, plan, goal, diagnostic, attached)
    first = wire(snapshot)
    assert wire(snapshot) == first
    assert wire(copy.deepcopy(snapshot)) == first


@SETTINGS
@given(st.lists(steps, max_size=14), words, words, words)
def test_zones_come_in_request_order(
    base: ContextSnapshot, plan: list[Step], goal: str, diagnostic: str, attached: str
) -> None:
    built = assemble(snapshot_of(base, plan, goal, diagnostic, attached))
    zones = [b.zone for b in built.manifest.blocks]
    assert None not in zones
    assert zones == sorted(zones, key=lambda z: ZONES.index(z or "tail"))
    assert built.layout is not None
    positions = [i for zone in ZONES for i in built.layout.zones.get(zone, ())]
    assert positions == list(range(len(built.messages)))
    assert built.messages[0]["role"] == "system"
    tail = built.layout.zones.get("tail", ())
    assert tail == (len(built.messages) - 1,) and built.messages[-1]["role"] == "user"
    tail_text = built.messages[-1]["content"]
    assert tail_text.rindex("# Current Plan") > tail_text.rindex("## Diagnostics: app/util.py")
    cached = {i for z in CACHED_ZONES for i in built.layout.zones.get(z, ())}
    assert len(built.breakpoints) <= 4 and set(built.breakpoints) <= cached


@SETTINGS
@given(st.lists(steps, max_size=10), st.lists(steps, min_size=1, max_size=4), words, words)
def test_appending_to_the_history_keeps_the_previous_prefix(
    base: ContextSnapshot, plan: list[Step], more: list[Step], goal: str, diagnostic: str
) -> None:
    appendable = [s for s in [*plan, *more] if s[0] not in ("prune", "fold")]
    first = appendable[: len([s for s in plan if s[0] not in ("prune", "fold")])]
    snapshot = snapshot_of(base, first, goal, diagnostic, "x")
    before = assemble(snapshot)
    # What a real call does next: record the attachments it rendered, then new messages follow.
    recorded = [Message(id="att", role="system", parts=list(before.attachments))]
    later = history(appendable)[len(snapshot.history) :]
    changed = snapshot_of(base, first, goal + " changed", diagnostic + "!", "x")
    after_snapshot = changed.with_history([*snapshot.history, *recorded, *later])
    view = CacheView(
        preamble=before.preamble,
        previous=before.prefix,
        previous_model=MODEL,
        memo=before.memo,
    )
    after = assemble(after_snapshot, view)
    prefix = before.prefix_messages()
    assert after.messages[: len(prefix)] == prefix
    assert after.attachments == []
    assert after.manifest.cache_break is None
    assert after.manifest.cache.predicted_cached == sum(e.tokens for e in before.prefix)
