"""Property: whatever else competes, the ledger and the turn's latest tool result are kept.

Snapshots come from one real gather of a small workspace, then get random
open buffers (attached to the history), a random older history (with
commands run, big tool outputs, a summary marker sometimes), random extra
blocks in the tail, and a random budget; the turn ends with its newest step
(a tool call and its result). In every assembly the ledger block is
included and the latest step is shown (whole or as its excerpt), while
lower-priority blocks may be dropped.
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cairn.context.assemble import assemble
from cairn.context.blocks import section
from cairn.context.budget import Budget
from cairn.context.builder import ContextBuilder, GatherRequest
from cairn.context.priorities import PRIORITY_LOW_RELEVANCE
from cairn.context.snapshot import ContextSnapshot, FileView
from cairn.context.tool_schemas import lines_of
from cairn.files.text import content_hash
from cairn.files.workspace import Workspace
from cairn.models.messages import (
    CompactionPart,
    Message,
    Part,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from cairn.models.summary import SessionSummary
from cairn.settings import Settings
from cairn.tokens.counter import counter_for

FIXTURE = Path(__file__).resolve().parents[1] / "workspaces" / "context_small"
MODEL = "scripted/script.jsonl"
COUNT = counter_for(MODEL)
LATEST_MARK = "LATEST-RESULT-MARK"
SETTINGS = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> ContextSnapshot:
    root = tmp_path_factory.mktemp("ledger") / "ws"
    shutil.copytree(FIXTURE, root)
    builder = ContextBuilder(Workspace([root]), Settings())
    schemas = [
        {"type": "function", "function": {"name": n, "parameters": {"type": "object"}}}
        for n in ("read_file", "run_command")
    ]
    request = GatherRequest(
        session_id="s1",
        model=MODEL,
        user_message="go on",
        user_message_id="cur",
        files_in_play=(root / "app" / "util.py",),
        tools=tuple(lines_of(schemas)),
    )
    return builder.gather(request)


def lines(n: int, word: str) -> str:
    return "\n".join(f"{word} line {i} of the output" for i in range(n))


# (kind, size): user text, assistant text, a read, a command (exit code = size % 3).
steps = st.tuples(st.sampled_from(["user", "text", "read", "command"]), st.integers(1, 400))


def _tool_step(mid: str, name: str, output: str, data: dict[str, object]) -> list[Message]:
    call = f"c-{mid}"
    parts: list[Part] = [ToolCallPart(call_id=call, name=name, arguments={"x": mid})]
    result = ToolResultPart(
        call_id=call, name=name, output=output, artifact_id=f"a-{mid}", data=data
    )
    return [
        Message(id=mid, role="assistant", parts=parts),
        Message(id=mid + "r", role="tool", parts=[result]),
    ]


def history(
    plan: list[tuple[str, int]], summary: bool, latest: int, facts: int = 0
) -> list[Message]:
    out: list[Message] = []
    for index, (kind, size) in enumerate(plan):
        mid = f"m{index:03d}"
        if kind == "user":
            out.append(Message(id=mid, role="user", parts=[TextPart(text=f"ask {index}?")]))
        elif kind == "text":
            out.append(Message(id=mid, role="assistant", parts=[TextPart(text=lines(size, "t"))]))
        elif kind == "read":
            out += _tool_step(mid, "read_file", lines(size, "r"), {"path": "app/util.py"})
        else:
            data = {"command": f"cmd{index} --seed {size}", "exit_code": size % 3, "test": True}
            out += _tool_step(mid, "run_command", lines(size, "c"), data)
    if summary and out:
        marker = CompactionPart(
            kind="summary",
            summary=SessionSummary(
                objective="keep going " * 20,
                confirmed_facts=[f"fact {i}: " + "detail " * 20 for i in range(facts)],
                covered_until_message_id=out[len(out) // 2].id,
            ),
        )
        out.append(Message(id="sum", role="system", parts=[marker]))
    out.append(Message(id="cur", role="user", parts=[TextPart(text="go on")]))
    data = {"command": "pytest -q", "exit_code": 1, "test": True}
    output = f"{LATEST_MARK}\n" + lines(latest, "e") + "\nERROR: test_x failed"
    out += _tool_step("last", "run_command", output, data)
    return out


def buffer(index: int, size: int) -> FileView:
    text = "\n".join(f"value_{index}_{i} = {i}" for i in range(size))
    return FileView(
        source="buffer",
        rel=f"app/open_{index}.py",
        text=text,
        version=content_hash(text),
        kind="code",
        priority=PRIORITY_LOW_RELEVANCE if index % 2 else 62,
        origin="editor buffer",
    )


@SETTINGS
@given(
    plan=st.lists(steps, max_size=12),
    buffers=st.lists(st.integers(1, 600), max_size=6),
    extras=st.lists(st.integers(1, 600), max_size=3),
    latest=st.integers(1, 1_500),
    summary=st.booleans(),
    window=st.integers(9_000, 40_000),
)
def test_the_ledger_and_the_latest_result_are_never_dropped(
    base: ContextSnapshot,
    plan: list[tuple[str, int]],
    buffers: list[int],
    extras: list[int],
    latest: int,
    summary: bool,
    window: int,
) -> None:
    extra = tuple(
        section("diagnostics", 70, f"Extra {i}", lines(n, "x"), count=COUNT, ref=f"x{i}")
        for i, n in enumerate(extras)
    )
    snapshot = replace(
        base,
        history=tuple(history(plan, summary, latest)),
        files=(*base.files, *(buffer(i, n) for i, n in enumerate(buffers))),
        extra=extra,
        budget=Budget(context_window=window, tool_schema_tokens=base.budget.tool_schema_tokens),
    )
    built = assemble(snapshot)
    [ledger] = [b for b in built.blocks if b.source == "ledger"]
    assert ledger.included and "pytest -q: FAILED" in ledger.text
    [step] = [b for b in built.blocks if b.ref == "last"]
    assert step.included, step.reason
    sent = "\n".join(str(m.get("content") or "") for m in built.messages)
    assert LATEST_MARK in sent and "ERROR: test_x failed" in sent
    if summary and plan:
        assert any(b.source == "summary" and b.included for b in built.manifest.blocks)
    assert built.stats.used_input <= built.stats.available_input


def test_the_summary_is_kept_when_buffers_and_recent_history_fill_the_budget(
    base: ContextSnapshot,
) -> None:
    plan = [("user", 1), ("read", 300), ("text", 300), ("user", 1), ("read", 300)]
    snapshot = replace(
        base,
        history=tuple(history(plan, True, 200, facts=50)),
        files=(*base.files, *(buffer(2 * i, 500) for i in range(4))),
        budget=Budget(context_window=9_000, tool_schema_tokens=base.budget.tool_schema_tokens),
    )
    built = assemble(snapshot)
    [summary] = [b for b in built.blocks if b.source == "summary"]
    assert summary.included, summary.reason
