"""Phase 1 prune: exact boundaries of the protect window and the minimum, skipped turns."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cairn.agent.scope.inputs import TurnInputs
from cairn.compaction.prune import plan_prune
from cairn.models.messages import CompactionPart, Message, ToolCallPart, ToolResultPart
from cairn.settings import Settings
from tests.unit.test_agent_support import Recorder, call, make_engine, reply


def count(text: str) -> int:
    return len(text)


def step(turn: str, call_id: str, size: int, *, name: str = "read_file") -> list[Message]:
    """One user message, one tool call and its result of `size` tokens, in `turn`."""
    return [
        Message(id=f"u-{call_id}", role="user", turn_id=turn, parts=[]),
        Message(
            id=f"a-{call_id}",
            role="assistant",
            turn_id=turn,
            parts=[ToolCallPart(call_id=call_id, name=name)],
        ),
        Message(
            id=f"t-{call_id}",
            role="tool",
            turn_id=turn,
            parts=[
                ToolResultPart(
                    call_id=call_id, name=name, output="x" * size, artifact_id=f"art-{call_id}"
                )
            ],
        ),
    ]


def history(old: int = 300, newer: int = 200) -> list[Message]:
    # t1 (older output), t2 (newer output), then two recent turns that are never pruned.
    return [
        *step("t1", "c1", old),
        *step("t2", "c2", newer),
        *step("t3", "c3", 5_000),
        *step("t4", "c4", 5_000),
    ]


def test_last_two_turns_are_never_pruned() -> None:
    plan = plan_prune(history(), count, minimum=0, protect=0)
    assert plan is not None
    assert set(plan.call_ids) == {"c1", "c2"}


def test_output_exactly_at_protect_stays() -> None:
    plan = plan_prune(history(), count, minimum=0, protect=200)
    assert plan is not None
    assert plan.call_ids == ("c1",)
    assert plan.freed_tokens == 300


def test_output_just_over_protect_is_pruned() -> None:
    plan = plan_prune(history(), count, minimum=0, protect=199)
    assert plan is not None
    assert plan.call_ids == ("c2", "c1")


def test_everything_within_protect_stays() -> None:
    assert plan_prune(history(), count, minimum=0, protect=500) is None


def test_minimum_is_inclusive() -> None:
    assert plan_prune(history(), count, minimum=300, protect=200) is not None
    assert plan_prune(history(), count, minimum=299, protect=200) is not None
    assert plan_prune(history(), count, minimum=301, protect=200) is None


def test_protected_tools_are_never_pruned_nor_counted() -> None:
    messages = [*step("t0", "g", 10_000, name="goal"), *history()]
    plan = plan_prune(messages, count, minimum=0, protect=200, protected_tools={"goal"})
    assert plan is not None
    assert plan.call_ids == ("c1",)


def test_already_pruned_outputs_are_skipped() -> None:
    messages = history()
    messages.append(
        Message(
            id="m-prune",
            role="system",
            turn_id="t4",
            parts=[CompactionPart(kind="prune", pruned_call_ids=["c1"])],
        )
    )
    assert plan_prune(messages, count, minimum=0, protect=200) is None
    plan = plan_prune(messages, count, minimum=0, protect=0)
    assert plan is not None
    assert plan.call_ids == ("c2",)


def test_failed_calls_and_outputs_without_artifact_stay() -> None:
    messages = history()
    result = messages[2].parts[0]
    assert isinstance(result, ToolResultPart)
    messages[2] = messages[2].model_copy(
        update={"parts": [result.model_copy(update={"artifact_id": None})]}
    )
    assert plan_prune(messages, count, minimum=0, protect=200) is None


async def test_prune_through_the_engine_stubs_old_outputs(tmp_path: Path) -> None:
    for name in ("a", "b", "c", "d"):
        body = "\n".join(f"{name} line {i}: some recorded output" for i in range(40))
        (tmp_path / f"{name}.txt").write_text(body)
    script = []
    for name in ("a", "b", "c", "d"):
        script += [reply("", call("read_file", path=f"{name}.txt")), reply(f"read {name}")]
    recorder = Recorder()
    engine = make_engine(tmp_path, script, recorder, prune_minimum=200, prune_protect=300)
    sid = (await engine.turn("read a")).session_id
    for name in ("b", "c", "d"):
        await engine.turn(f"read {name}", session_id=sid)

    session = engine.session(sid)
    markers = [p for m in session.messages() for p in m.parts if isinstance(p, CompactionPart)]
    pruned = {c for p in markers if p.kind == "prune" for c in p.pruned_call_ids}
    results = {
        p.call_id: p for m in session.messages() for p in m.parts if isinstance(p, ToolResultPart)
    }
    assert pruned and all(results[c].artifact_id for c in pruned)
    inputs = TurnInputs(model=str(engine.settings.model), mode="build")
    built = engine.contexts.build(engine.scope(session, inputs))
    context = "\n".join(str(m.get("content") or "") for m in built.messages)
    assert "[output pruned:" in context
    assert "a line 7: some recorded output" not in context
    assert "d line 7: some recorded output" in context  # the last turns are never pruned
    done = [e for e in recorder.compactions if e.kind == "prune" and e.stage == "done"]
    assert done and all((e.tokens_after or 0) < e.tokens_before for e in done)
    engine.close()


async def read_file_turns(
    root: Path, lines: int, **settings: Any
) -> tuple[Settings, list[Message]]:
    """Six turns that each read one `lines`-line file (a.txt … f.txt) on one session: the
    engine's settings and the session's messages."""
    names = "abcdef"
    for name in names:
        body = "\n".join(f"{name} line {i}: some recorded output here" for i in range(lines))
        (root / f"{name}.txt").write_text(body)
    script = []
    for name in names:
        script += [reply("", call("read_file", path=f"{name}.txt")), reply(f"read {name}")]
    engine = make_engine(root, script, max_output_tokens=1_000, **settings)
    try:
        sid = (await engine.turn(f"read {names[0]}")).session_id
        for name in names[1:]:
            await engine.turn(f"read {name}", session_id=sid)
        return engine.settings, list(engine.session(sid).messages())
    finally:
        engine.close()


def pruned_paths(messages: Sequence[Message]) -> set[str]:
    """The paths of the `read_file` results the session's prunes stubbed out."""
    reads = {
        p.call_id: str(p.data.get("path"))
        for m in messages
        for p in m.parts
        if isinstance(p, ToolResultPart) and p.data
    }
    markers = [p for m in messages for p in m.parts if isinstance(p, CompactionPart)]
    return {reads[c] for p in markers if p.kind == "prune" for c in p.pruned_call_ids}


async def test_a_small_window_prunes_with_the_default_thresholds(tmp_path: Path) -> None:
    """A 12k window is smaller than OpenCode's protected 40k: with that as the threshold
    its old outputs would never be pruned (the retention policy scales it to the window)."""
    settings, messages = await read_file_turns(tmp_path, 80, context_window=12_000)
    assert settings.prune_protect is None  # the defaults
    markers = [p for m in messages for p in m.parts if isinstance(p, CompactionPart)]
    assert [p.kind for p in markers] == ["prune"] * len(markers) and markers
    pruned = pruned_paths(messages)
    # Without a prompt cache only the current turn's outputs stay (the previous turn's go).
    assert {"a.txt", "e.txt"} <= pruned and "f.txt" not in pruned
