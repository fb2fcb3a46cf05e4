"""Retention over a long session: planted facts survive repeated compaction.

A scripted 200-call session in ten turns, in a small window, is compacted
(pruned and summarised) again and again. Every fact the records know — the
user's constraint from turn 1, the file changed, the failing then passing
test, the abandoned approach — must still be in the context of the last call.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cairn.agent.scope.inputs import TurnInputs
from cairn.models.messages import CompactionPart
from tests.unit.test_agent_support import Recorder, call, make_engine, reply

CONSTRAINT = "Constraint PLANTED-7731: never add third-party dependencies."
ABANDON_REASON = "PLANTED-4412 the regex approach breaks on nested brackets"
TEST_COMMAND = "python3 -m unittest -q test_mod"
TURNS = 10
CALLS_PER_TURN = 20
FILLERS = [f"notes_{i}.txt" for i in range(6)]


def workspace(root: Path) -> None:
    (root / "mod.py").write_text("def double(x):\n    return x + x + 1\n")
    (root / "test_mod.py").write_text(
        "import unittest\nfrom mod import double\n\n\n"
        "class T(unittest.TestCase):\n    def test_double(self):\n"
        "        self.assertEqual(double(2), 4)\n"
    )
    for index, name in enumerate(FILLERS):
        body = "\n".join(
            f"{name} line {n}: observation {n * index} about the module" for n in range(70)
        )
        (root / name).write_text(body)


def filler(step: int) -> dict[str, Any]:
    return reply(f"Reading notes {step}.", call("read_file", path=FILLERS[step % len(FILLERS)]))


def first_turn() -> list[dict[str, Any]]:
    planted = [
        reply("", call("goal", add="Parse with regex, Parse with a scanner")),
        reply("", call("goal", focus="1")),
        reply("", call("read_file", path="mod.py")),
        reply("", call("run_command", command=TEST_COMMAND)),
        reply("", call("goal", abandon=ABANDON_REASON)),
        reply("", call("goal", focus="2")),
        reply("", call("edit_file", path="mod.py", old="x + x + 1", new="x + x")),
        reply("", call("run_command", command=TEST_COMMAND)),
    ]
    fill = [filler(i) for i in range(CALLS_PER_TURN - len(planted) - 1)]
    return [*planted, *fill, reply("Turn 1 done.")]


def later_turn(turn: int) -> list[dict[str, Any]]:
    fill = [filler(turn * CALLS_PER_TURN + i) for i in range(CALLS_PER_TURN - 1)]
    return [*fill, reply(f"Turn {turn + 1} done.")]


@pytest.mark.slow
async def test_planted_facts_survive_many_compactions(tmp_path: Path) -> None:
    workspace(tmp_path)
    script = first_turn()
    for turn in range(1, TURNS):
        script += later_turn(turn)
    assert len(script) == TURNS * CALLS_PER_TURN
    recorder = Recorder()
    engine = make_engine(
        tmp_path,
        script,
        recorder,
        allowed_commands=["python3 -m unittest"],
        context_window=12_000,
        max_output_tokens=500,
        safety_margin=200,
        prune_minimum=1_500,
        prune_protect=2_500,
    )
    result = await engine.turn(CONSTRAINT + " Fix double() in mod.py.")
    sid = result.session_id
    for turn in range(1, TURNS):
        result = await engine.turn(f"Keep reading the notes, part {turn}.", session_id=sid)
        assert result.finish_reason == "stop", result.error

    session = engine.session(sid)
    markers = [p for m in session.messages() for p in m.parts if isinstance(p, CompactionPart)]
    assert sum(1 for p in markers if p.kind == "summary") >= 3
    assert len(session.trace.manifests()) == TURNS * CALLS_PER_TURN

    inputs = TurnInputs(model=str(engine.settings.model), mode="build", user_message="next")
    built = engine.contexts.build(engine.scope(session, inputs))
    context = "\n".join(str(m.get("content") or "") for m in built.messages)
    assert "PLANTED-7731" in context
    assert "PLANTED-4412" in context
    # The ledger block (from the records, not the summary) keeps the work done.
    assert "mod.py (patch artifact patch-" in context
    # The last run of each distinct command, one line each (the earlier failure is gone).
    assert f"- {TEST_COMMAND}: PASSED (turn " in context
    assert f"- {TEST_COMMAND}: FAILED" not in context
    # Compacted, not lost: the trace still holds the first message verbatim.
    assert session.messages()[0].text().startswith(CONSTRAINT)
    assert built.stats.used_input <= built.stats.available_input
    engine.close()
