"""The turn loop end to end with the scripted model: tools, records, events, limits."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from cairn.llm import ModelReply
from cairn.models.messages import TextPart, ToolCallPart, ToolResultPart
from tests.unit.test_agent_support import Recorder, call, make_engine, reply


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "app.py").write_text("def add(a, b):\n    return a - b\n")
    (tmp_path / "AGENTS.md").write_text("# Rules\nKeep it simple.\n")
    return tmp_path


async def test_tool_calls_and_results_end_to_end(project: Path) -> None:
    recorder = Recorder()
    engine = make_engine(
        project,
        [
            reply("Reading.", call("read_file", path="app.py")),
            reply(
                "Fixing.",
                call("edit_file", path="app.py", old="return a - b", new="return a + b"),
            ),
            reply("Fixed the sign in add()."),
        ],
        recorder,
    )
    result = await engine.turn("fix add")
    assert result.finish_reason == "stop"
    assert result.text == "Fixed the sign in add()."
    assert (project / "app.py").read_text() == "def add(a, b):\n    return a + b\n"

    messages = engine.store.open(result.session_id).messages()
    roles = [m.role for m in messages]
    assert roles == ["user", "assistant", "tool", "assistant", "tool", "assistant"]
    assert all(m.turn_id == result.turn_id for m in messages)
    calls = [p for m in messages for p in m.parts if isinstance(p, ToolCallPart)]
    results = [p for m in messages for p in m.parts if isinstance(p, ToolResultPart)]
    assert [c.call_id for c in calls] == [r.call_id for r in results]
    assert all(r.ok for r in results)
    assert results[0].data is not None and results[0].data["path"] == "app.py"
    assert "1\tdef add(a, b):" in results[0].output

    kinds = recorder.kinds()
    assert kinds.count("toolStart") == 2 and kinds.count("toolEnd") == 2
    assert kinds[-1] == "end"
    assert "".join(e.text or "" for e in recorder.turn_events if e.kind == "text").startswith(
        "Reading."
    )
    assert len(recorder.stats) == 3
    trace = engine.store.open(result.session_id)
    assert len(trace.manifests()) == 3
    meta = trace.meta()
    turn = meta.turns[-1]
    assert turn.finish_reason == "stop"
    assert turn.usage.input_tokens > 0 and meta.usage.input_tokens == turn.usage.input_tokens
    assert turn.patch_artifact_id is not None
    patch = trace.read_artifact(turn.patch_artifact_id).decode()
    assert "-    return a - b" in patch and "+    return a + b" in patch
    engine.close()


async def test_step_limit_ends_the_turn(project: Path) -> None:
    engine = make_engine(
        project,
        [reply("", call("list_dir")) for _ in range(3)],
        step_limit=2,
    )
    result = await engine.turn("look around")
    assert result.finish_reason == "stepLimit"
    engine.close()


async def test_path_escape_is_refused_through_the_turn_loop(
    project: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    outside = tmp_path_factory.mktemp("outside") / "secret.txt"
    outside.write_text("top secret\n")
    engine = make_engine(
        project,
        [
            reply("", call("read_file", path=str(outside))),
            reply("", call("read_file", path="../" + outside.parent.name + "/secret.txt")),
            reply("", call("edit_file", path="../escape.py", new="x = 1\n")),
            reply("I cannot read it."),
        ],
    )
    result = await engine.turn("read the secret")
    assert result.finish_reason == "stop"
    results = [
        p
        for m in engine.store.open(result.session_id).messages()
        for p in m.parts
        if isinstance(p, ToolResultPart)
    ]
    assert [r.ok for r in results] == [False, False, False]
    assert all("outside the workspace" in r.output for r in results)
    assert not any("top secret" in r.output for r in results)
    assert not (project.parent / "escape.py").exists()
    engine.close()


async def test_user_message_records_focused_goal(project: Path) -> None:
    engine = make_engine(project, [reply("ok"), reply("ok again")])
    await engine.turn("first")
    await engine.goal_async(add="Investigate")
    await engine.goal_async(focus="1")
    result = await engine.turn("second")
    messages = engine.store.open(result.session_id).messages()
    second = [m for m in messages if m.turn_id == result.turn_id]
    assert [m.goal_id for m in second] == ["1", "1"]
    assert isinstance(second[0].parts[0], TextPart)
    engine.close()


async def test_fix_turn_carries_the_diagnostic_its_lines_and_nearer_rules(project: Path) -> None:
    from cairn.agent.api import FixTarget
    from cairn.agent.scope.inputs import FIX_CONTEXT_LINES
    from cairn.models.diagnostics import Diagnostic, Position, Range

    sub = project / "pkg"
    sub.mkdir()
    (sub / "AGENTS.md").write_text("# pkg rules\nNever rename public functions.\n")
    lines = [f"value_{i} = {i}" for i in range(60)]
    lines[30] = "value_30 = undefined_name"
    (sub / "mod.py").write_text("\n".join(lines) + "\n")
    diagnostic = Diagnostic(
        range=Range(start=Position(line=30, character=11), end=Position(line=30, character=25)),
        message='"undefined_name" is not defined',
        severity=1,
        source="pyright",
    )
    seen: list[list[Mapping[str, Any]]] = []
    engine = make_engine(project, [reply("I will define it.")])
    inner = engine.runtime.complete

    async def spy(
        model: str, messages: Sequence[Mapping[str, Any]], tools: Any, **kw: Any
    ) -> ModelReply:
        seen.append(list(messages))
        return await inner(model, messages, tools, **kw)

    engine.runtime.complete = spy  # type: ignore[method-assign]
    result = await engine.turn("", fix=FixTarget(sub / "mod.py", diagnostic))
    assert result.finish_reason == "stop"
    manifest = engine.store.open(result.session_id).manifests()[-1]
    refs = {(b.source, b.ref) for b in manifest.blocks if b.included}
    assert ("diagnostics", "pkg/mod.py") in refs
    assert ("rules", "pkg/AGENTS.md") in refs
    tail = str(seen[0][-1]["content"])  # the diagnostic being fixed is in the tail
    block = tail.split("## Fix this diagnostic")[1].split("```")[1]
    assert 'pkg/mod.py:31:12: error: "undefined_name" is not defined [pyright]' in tail
    assert f"{31 - FIX_CONTEXT_LINES}| value_{30 - FIX_CONTEXT_LINES} =" in block
    assert f"{31 + FIX_CONTEXT_LINES}| value_{30 + FIX_CONTEXT_LINES} =" in block
    assert f"value_{30 + FIX_CONTEXT_LINES + 1} =" not in block
    assert f"value_{30 - FIX_CONTEXT_LINES - 1} =" not in block
    user = engine.store.open(result.session_id).messages()[0]
    assert user.text() == 'Fix this diagnostic: "undefined_name" is not defined'
    engine.close()


async def test_turn_records_the_git_snapshot_it_started_from(project: Path) -> None:
    import subprocess

    def git(*args: str) -> str:
        done = subprocess.run(
            ["git", "-C", str(project), *args], capture_output=True, text=True, check=True
        )
        return done.stdout.strip()

    git("init", "-q")
    git("-c", "user.email=t@e", "-c", "user.name=t", "add", "app.py", "AGENTS.md")
    git("-c", "user.email=t@e", "-c", "user.name=t", "commit", "-q", "-m", "start")
    engine = make_engine(project, [reply("clean"), reply("dirty")])
    first = await engine.turn("one")
    (project / "app.py").write_text("changed = True\n")
    await engine.turn("two", session_id=first.session_id)
    clean, dirty = engine.store.open(first.session_id).meta().turns
    assert clean.start_head == dirty.start_head == git("rev-parse", "HEAD")
    assert clean.start_dirty_hash is not None and dirty.start_dirty_hash is not None
    assert clean.start_dirty_hash != dirty.start_dirty_hash
    engine.close()


async def test_outside_git_the_snapshot_is_empty(project: Path) -> None:
    engine = make_engine(project, [reply("ok")])
    result = await engine.turn("one")
    turn = engine.store.open(result.session_id).meta().turns[0]
    assert turn.start_head is None and turn.start_dirty_hash is None
    engine.close()
