"""The scripted model across sessions: a cursor per session, kept in the trace; lanes by name."""

from __future__ import annotations

from pathlib import Path

from cairn.agent.engine import Engine
from cairn.llm.script import CURSOR_DOC
from cairn.models.messages import ToolResultPart
from cairn.settings import Settings
from cairn.trace import TraceStore
from tests.unit.test_agent_support import call, make_engine, reply, write_script


async def test_a_resumed_session_continues_its_script_in_a_new_engine(tmp_path: Path) -> None:
    model = write_script(tmp_path, [reply("first answer"), reply("second answer")])
    first = Engine([tmp_path], Settings(model=model))
    try:
        result = await first.turn("one")
    finally:
        first.close()
    assert result.text == "first answer"
    saved = TraceStore(tmp_path / ".cairn").open(result.session_id).read_doc(CURSOR_DOC)
    assert saved is not None and list(saved["scripts"].values()) == [[1]]

    second = Engine([tmp_path], Settings(model=model))
    try:
        again = await second.turn("two", session_id=result.session_id)
    finally:
        second.close()
    assert (again.finish_reason, again.text) == ("stop", "second answer")


async def test_a_rewritten_script_starts_again_for_a_resumed_session(tmp_path: Path) -> None:
    model = write_script(tmp_path, [reply("old answer")])
    engine = Engine([tmp_path], Settings(model=model))
    try:
        first = await engine.turn("one")
        write_script(tmp_path, [reply("new first"), reply("new second")])
        again = await engine.turn("two", session_id=first.session_id)
        third = await engine.turn("three", session_id=first.session_id)
    finally:
        engine.close()
    assert (first.text, again.text, third.text) == ("old answer", "new first", "new second")


async def test_each_session_has_its_own_cursor(tmp_path: Path) -> None:
    engine = make_engine(tmp_path, [reply("line one"), reply("line two")])
    try:
        a = await engine.turn("a")
        b_id = engine.store.create().id
        b = await engine.turn("b", session_id=b_id)
        a2 = await engine.turn("a again", session_id=a.session_id)
    finally:
        engine.close()
    assert (a.text, b.text, a2.text) == ("line one", "line one", "line two")


async def test_explore_lanes_by_trace_name_and_by_branch_text(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("def add(a, b):\n    return a - b\n")
    branches = ["Check the sign", "Check the types"]
    engine = make_engine(
        tmp_path,
        [
            reply("Exploring.", call("explore", branches=branches, background="add is wrong")),
            reply("the types are fine", agent="Check the types"),
            reply("the sign is flipped", agent="explore1-0"),
            reply("Done."),
        ],
    )
    try:
        result = await engine.turn("why?")
        messages = engine.session(result.session_id).messages()
    finally:
        engine.close()
    assert result.finish_reason == "stop"
    [explore] = [
        p
        for m in messages
        for p in m.parts
        if isinstance(p, ToolResultPart) and p.name == "explore"
    ]
    assert '"conclusion": "the sign is flipped"' in explore.output
    assert '"conclusion": "the types are fine"' in explore.output
