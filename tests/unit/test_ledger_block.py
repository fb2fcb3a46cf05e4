"""The ledger block of every call, and summaries that see and survive (issue 12, items 5–6).

Each test here failed on the code before the ledger block: whole sessions run
through the engine with the scripted model, and the messages of every model
call are read back as sent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from cairn.agent.engine import Engine
from cairn.agent.scope.inputs import TurnInputs
from cairn.compaction.ledger import CommandRun, build_ledger
from cairn.compaction.narrative import Narrative
from cairn.compaction.summary_build import build_summary
from cairn.context.sources.ledger import (
    LEDGER_TITLE,
    command_lines,
    file_lines,
    render_ledger,
)
from cairn.goals.render import PLAN_TITLE
from cairn.llm import ModelReply
from cairn.models.messages import CompactionPart, Message, TextPart, ToolResultPart
from cairn.models.summary import FileChanged
from tests.unit.test_agent_support import Recorder, call, make_engine, reply
from tests.unit.test_compaction_summary import QUIET, narrative, summaries

TEST_COMMAND = "python3 -m unittest -q test_calc"
GEN_COMMAND = "python3 gen_fixtures.py --seed 7"


class Calls:
    """Keeps the messages of every model call (the turn's and compaction's)."""

    def __init__(self, engine: Engine) -> None:
        self.turn: list[list[Mapping[str, Any]]] = []
        self.compaction: list[list[Mapping[str, Any]]] = []
        self._inner = engine.runtime.complete
        engine.runtime.complete = self.complete  # type: ignore[method-assign]

    async def complete(
        self, model: str, messages: Sequence[Mapping[str, Any]], tools: Any, **kw: Any
    ) -> ModelReply:
        kept = self.compaction if kw.get("agent") == "compaction" else self.turn
        kept.append(list(messages))
        return await self._inner(model, messages, tools, **kw)


def tail(messages: Sequence[Mapping[str, Any]]) -> str:
    return str(messages[-1].get("content") or "")


def ledger_of(messages: Sequence[Mapping[str, Any]]) -> str:
    """The ledger section of a call's tail ('' when absent)."""
    text = tail(messages)
    if LEDGER_TITLE not in text:
        return ""
    return text.split(LEDGER_TITLE, 1)[1].split(PLAN_TITLE, 1)[0]


def text_of(messages: Sequence[Mapping[str, Any]]) -> str:
    return "\n".join(str(m.get("content") or "") for m in messages)


def project(root: Path) -> None:
    (root / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (root / "test_calc.py").write_text(
        "import unittest\nfrom calc import add\n\n\nclass T(unittest.TestCase):\n"
        "    def test_add(self):\n        self.assertEqual(add(2, 2), 4)\n"
    )
    (root / "gen_fixtures.py").write_text("print('wrote fixtures/data_7.json')\n")
    (root / "notes.txt").write_text("NOTE-TOKEN-31: the release is on Friday\n")


async def test_a_failed_test_run_stays_in_every_call_after_its_goal_is_folded(
    tmp_path: Path,
) -> None:
    project(tmp_path)
    engine = make_engine(
        tmp_path,
        [
            reply("", call("goal", add="Check calc")),
            reply("", call("goal", focus="1")),
            reply("", call("run_command", command=GEN_COMMAND)),
            reply("", call("run_command", command=TEST_COMMAND)),
            reply("", call("goal", done="looked at calc")),
            reply("Checked."),
            reply("Nothing else."),
        ],
        allowed_commands=["python3"],
    )
    calls = Calls(engine)
    try:
        first = await engine.turn("check calc")
        await engine.turn("anything else?", session_id=first.session_id)
        # The goal's messages (the test run among them) are folded into one line ...
        last = calls.turn[-1]
        assert "FAILED (" not in text_of(last[:-1]) and "exit code 1" not in text_of(last[:-1])
        # ... and the ledger, in the tail, still says the last run failed and what ran.
        ledger = ledger_of(last)
        assert f"Tests:\n- {TEST_COMMAND}: FAILED (turn 1" in ledger
        assert f"Other commands:\n- {GEN_COMMAND}: exit 0 (turn 1" in ledger
        assert ledger.count(TEST_COMMAND) == 1  # one line per command
        # Every call after the first command carries it.
        assert all(f"- {GEN_COMMAND}: exit 0" in ledger_of(m) for m in calls.turn[3:])
    finally:
        engine.close()


async def test_the_ledger_lists_files_changed_with_patches_and_open_questions(
    tmp_path: Path,
) -> None:
    project(tmp_path)
    engine = make_engine(
        tmp_path,
        [
            reply("", call("edit_file", path="calc.py", old="a - b", new="a + b")),
            reply("Fixed."),
            reply("", call("read_file", path="calc.py")),
            reply("Noted."),
        ],
    )
    calls = Calls(engine)
    try:
        first = await engine.turn("Can you fix add, please?")
        # A turn that ends at its step limit (no reply) leaves its question open.
        engine.config.current = engine.settings.model_copy(update={"step_limit": 1})
        sid = first.session_id
        await engine.turn("Why did add subtract in the first place?", session_id=sid)
        await engine.turn("thanks", session_id=sid)
        ledger = ledger_of(calls.turn[-1])
        assert "Can you fix add" not in ledger
        assert "Files changed this session:\n- calc.py (patch artifact " in ledger
        assert "Open questions from the user:\n- Why did add subtract in the first place?" in (
            ledger
        )
    finally:
        engine.close()


async def test_a_result_in_the_reply_that_finished_a_goal_is_seen_by_the_next_call(
    tmp_path: Path,
) -> None:
    project(tmp_path)
    engine = make_engine(
        tmp_path,
        [
            reply("", call("goal", add="Read notes")),
            reply("", call("goal", focus="1")),
            reply("", call("read_file", path="calc.py")),
            reply("", call("goal", done="notes read"), call("read_file", path="notes.txt")),
            reply("The release is on Friday."),
        ],
    )
    calls = Calls(engine)
    try:
        await engine.turn("when is the release?")
        after = calls.turn[-1]
        assert "NOTE-TOKEN-31" in text_of(after)
        # The goal's other steps are folded: calc.py's text is gone, the fold line is there.
        assert "return a - b" not in text_of(after)
        assert "Goal 1 (Read notes) completed: notes read" in text_of(after)
    finally:
        engine.close()


STALLING_WINDOW = 9_400


def stalling_engine(root: Path, recorder: Recorder, answer_words: int) -> Engine:
    """A session whose second answer stays verbatim (recent) and whose first is covered,
    summarised by a model that writes far more than the covered part holds."""
    answer = " ".join(f"point{i}" for i in range(answer_words))
    recent = " ".join(f"recent{i}" for i in range(850))
    facts = [f"model fact {i}: " + "padding words " * 12 for i in range(120)]
    return make_engine(
        root,
        [reply(answer), reply(recent), narrative(confirmed_facts=facts)],
        recorder,
        # QUIET's window plus find_code's schema: the summary's room (a share of the input
        # room) must hold the model's long narrative, so that the narrative frees nothing.
        **{**QUIET, "context_window": STALLING_WINDOW},
        summary_keep_recent=0.25,  # the second answer is what stays verbatim
    )


async def test_a_stalled_summary_falls_back_to_the_ledger_alone(tmp_path: Path) -> None:
    recorder = Recorder()
    engine = stalling_engine(tmp_path, recorder, answer_words=150)
    try:
        first = await engine.turn("hello")
        await engine.turn("more", session_id=first.session_id)
        result = await engine.compact(first.session_id)
        assert result.kind == "summary" and result.tokens_after < result.tokens_before
        stalled = [e for e in recorder.compactions if e.stage == "failed"]
        assert len(stalled) == 1 and stalled[0].error is not None
        assert stalled[0].error.startswith("stalled: freed only")
        assert "ledger alone" in stalled[0].error
        [summary] = summaries(engine, first.session_id)
        assert not any(f.startswith("model fact") for f in summary.confirmed_facts)
        assert "The user said: hello" in summary.confirmed_facts
    finally:
        engine.close()


BIG = "\n".join(f"row {i}: filler text that only exists to take up room" for i in range(250))


async def test_a_summary_that_stalls_even_with_the_ledger_alone_falls_back_to_pruning(
    tmp_path: Path,
) -> None:
    (tmp_path / "big.txt").write_text(BIG)
    recorder = Recorder()
    facts = [f"model fact {i}: " + "padding words " * 12 for i in range(120)]
    engine = make_engine(
        tmp_path,
        [
            reply("", call("read_file", path="big.txt")),
            reply("Read."),
            reply("hi"),
            reply("hi again"),
            narrative(confirmed_facts=facts),
        ],
        recorder,
        **QUIET,
        prune_minimum=10**9,  # no prune until the test asks for one
    )
    try:
        first = await engine.turn("read big.txt")
        sid = first.session_id
        await engine.turn("hello", session_id=sid)
        await engine.turn("hello again", session_id=sid)
        # The first turn's read is old enough to prune now.
        engine.config.current = engine.settings.model_copy(
            update={"prune_minimum": 100, "prune_protect": 100}
        )
        session = engine.session(sid)
        scope = engine.scope(session, TurnInputs(model=str(engine.settings.model), mode="build"))
        messages = session.messages()
        snapshot = engine.compactor._snapshot(scope)  # pyright: ignore[reportPrivateUsage]
        # A summary covering only the first user message frees nothing, with or without
        # the model's (long) narrative.
        covered = messages[:1]
        part = CompactionPart(
            kind="summary",
            summary=build_summary(
                None,
                Narrative(confirmed_facts=facts),
                build_ledger(covered, session.goals()),
                covered,
                messages[0].id,
            ),
        )
        assert not await engine.compactor.record_summary(scope, snapshot, part)
        [stalled] = [e for e in recorder.compactions if e.stage == "failed"]
        assert stalled.error is not None and stalled.error.endswith("pruned instead")
        after = session.messages()
        kinds = [p.kind for m in after for p in m.parts if isinstance(p, CompactionPart)]
        assert kinds == ["prune"]
    finally:
        engine.close()


async def test_an_overflowing_call_gets_a_new_summary_whatever_the_retry_gate_says(
    tmp_path: Path,
) -> None:
    (tmp_path / "big.txt").write_text(BIG)
    talk = " ".join(f"w{i}" for i in range(1250))
    engine = make_engine(
        tmp_path,
        [
            reply(talk),
            reply(talk),
            reply("", call("read_file", path="big.txt", start_line=1, end_line=120)),
            narrative(objective="answer at length"),
            reply("Read."),
        ],
        **QUIET,
    )
    calls = Calls(engine)
    try:
        first = await engine.turn("talk at length")
        sid = first.session_id
        await engine.turn("again", session_id=sid)
        session = engine.session(sid)
        # A summary attempt just happened (the gate waits for SUMMARY_RETRY_MESSAGES more).
        session.summarised_at = len(session.messages())
        result = await engine.turn("now read big.txt", session_id=sid)
        assert result.finish_reason == "stop"
        assert summaries(engine, sid), "the overflowing call made no summary"
        # The call after it drops nothing: the summary made the room.
        dropped = [
            b
            for m in engine.store.open(sid).manifests()[-1:]
            for b in m.blocks
            if not b.included and b.source in ("history", "summary")
        ]
        assert dropped == []
        assert "The user said:\n- talk at length" in text_of(calls.turn[-1])
    finally:
        engine.close()


def test_a_repeated_test_run_does_not_push_a_one_off_command_out_of_the_ledger() -> None:
    runs = [CommandRun(GEN_COMMAND, 0, test=False, turn=1)] + [
        CommandRun(TEST_COMMAND, code, test=True, turn=2) for code in (1, 1, 0, 1, 0, 0, 1, 0, 0)
    ]
    assert command_lines(runs, now=2)[1:] == [
        "Tests:",
        f"- {TEST_COMMAND}: PASSED (turn 2)",
        "Other commands:",
        f"- {GEN_COMMAND}: exit 0 (turn 1)",
    ]


def _run_messages(
    command: str, artifact: str, *, test: bool, code: int = 0, user: str = ""
) -> list[Message]:
    """A run_command result (after a user message opening a turn when `user` is given)."""
    data = {"command": command, "exit_code": code, "test": test}
    part = ToolResultPart(
        call_id=artifact, name="run_command", output="ok", artifact_id=artifact, data=data
    )
    opened = [Message(id=f"u-{artifact}", role="user", parts=[TextPart(text=user)])]
    return [*(opened if user else []), Message(id=f"m-{artifact}", role="tool", parts=[part])]


def _exit_of(command: str, code: int) -> str:
    test = command.startswith("python3 -m unittest")
    return ("PASSED" if code == 0 else "FAILED") if test else f"exit {code}"


def test_thirty_distinct_commands_over_a_hundred_calls_keep_each_ones_last_result() -> None:
    commands = [f"python3 -m unittest -q tests.test_{n}" for n in range(10)]
    commands += [f"make target_{n}" for n in range(10)]
    commands += [f"python3 gen.py --seed {n}" for n in range(10)]
    messages: list[Message] = []
    last: dict[str, tuple[int, int, str]] = {}
    for call_number in range(100):
        command = commands[(call_number * 7) % len(commands)]
        code = (call_number * 5) % 3
        turn = call_number // 10 + 1
        artifact = f"log-{call_number:03d}"
        user = f"turn {turn}, go on" if call_number % 10 == 0 else ""
        test = command.startswith("python3 -m unittest")
        messages += _run_messages(command, artifact, test=test, code=code, user=user)
        last[command] = (code, turn, artifact)
    text = render_ledger(messages)
    assert len(last) == 30
    for command, (code, turn, artifact) in last.items():
        line = f"- {command}: {_exit_of(command, code)} (turn {turn}, output artifact {artifact})"
        assert line in text.splitlines(), f"{command}: {line!r} not in\n{text}"
    assert text.index("Tests:") < text.index("Builds and checks:") < text.index("Other commands:")
    assert "now turn 10)" in text


def test_runs_of_one_command_spelled_differently_are_one_line() -> None:
    messages = [
        *_run_messages("python3 -m unittest  -q 'tests.test_a'", "log-1", test=True, code=1),
        *_run_messages('python3  -m unittest -q "tests.test_a"', "log-2", test=True, code=0),
    ]
    text = render_ledger(messages)
    assert "FAILED" not in text
    assert '- python3 -m unittest -q "tests.test_a": PASSED (turn 0, output artifact log-2)' in text


def test_a_focused_run_a_later_full_suite_covers_says_it_is_superseded() -> None:
    focused = "python -m pytest -q tests/test_retry.py"
    full = "python -m pytest -q tests"
    other = "python -m pytest -q tests/test_other.py"
    messages = [
        *_run_messages(full, "log-1", test=True, code=1, user="run everything"),
        *_run_messages(focused, "log-2", test=True, code=0, user="now the retry tests"),
        *_run_messages(full, "log-3", test=True, code=1, user="and all of them again"),
        *_run_messages(other, "log-4", test=True, code=0),
    ]
    lines = render_ledger(messages).splitlines()
    assert f"- {full}: FAILED (turn 3, output artifact log-3)" in lines
    assert (
        f"- {focused}: PASSED (turn 2, output artifact log-2); superseded by the later run of "
        f"{full} (turn 3)"
    ) in lines
    assert f"- {other}: PASSED (turn 3, output artifact log-4)" in lines  # ran after it


def test_a_test_runs_output_artifact_is_named_once_in_the_ledger() -> None:
    messages = [
        *_run_messages(TEST_COMMAND, "log-aaaa", test=True),
        *_run_messages(GEN_COMMAND, "log-bbbb", test=False),
    ]
    text = render_ledger(messages)
    assert text.count("log-aaaa") == 1
    assert f"- {TEST_COMMAND}: PASSED (turn 0, output artifact log-aaaa)\n" in text
    assert f"- {GEN_COMMAND}: exit 0 (turn 0, output artifact log-bbbb)" in text


def test_a_file_edited_many_times_names_its_last_patch_and_the_count() -> None:
    changed = [
        FileChanged(path="a.py", patch_artifact_id="patch-1"),
        FileChanged(path="b.py", patch_artifact_id="patch-2"),
        FileChanged(path="a.py", patch_artifact_id="patch-3"),
        FileChanged(path="a.py", patch_artifact_id="patch-4"),
        FileChanged(path="c.py"),
    ]
    assert file_lines(changed) == [
        "- a.py (3 edits; last patch artifact patch-4)",
        "- b.py (patch artifact patch-2)",
        "- c.py",
    ]
