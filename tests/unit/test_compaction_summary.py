"""Full compaction through the engine: ledger from the records, incremental summaries, stalls."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from cairn.agent.compaction.call import prefix_request
from cairn.agent.engine import Engine
from cairn.agent.scope.inputs import TurnInputs
from cairn.compaction.markers import read_state
from cairn.compaction.narrative import COMPACTION_INSTRUCTION, COMPACTION_SYSTEM_PROMPT
from cairn.context.sources.summary import SUMMARY_TITLE
from cairn.llm import ModelReply
from cairn.models import summary as records
from cairn.models.messages import CompactionPart, Message, ToolResultPart
from cairn.models.summary import FileChanged, FileRead, GoalSummary, SessionSummary
from tests.unit.test_agent_support import Recorder, call, make_engine, reply

TEST_COMMAND = "python3 -m unittest -q test_calc"
BIG = "\n".join(f"row {i}: filler text that only exists to take up room" for i in range(250))
SMALL_WINDOW: dict[str, Any] = {
    "context_window": 9_000,
    "max_output_tokens": 500,
    "safety_margin": 200,
}
# A window large enough that nothing compacts by itself (compaction is forced in these tests).
QUIET = {**SMALL_WINDOW, "compaction_threshold": 1.0}
# The scripted model's provider caches nothing ("none"); priced here like a caching one, so
# the compaction call repeats the session's prefix.
CACHED: dict[str, Any] = {"cache_prices": {"none": {"read": 0.1, "write": 1.25}}}


def narrative(**fields: Any) -> dict[str, Any]:
    return {"agent": "compaction", "text": "Here you go:\n" + json.dumps(fields)}


def project(root: Path) -> None:
    (root / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (root / "test_calc.py").write_text(
        "import unittest\nfrom calc import add\n\n\n"
        "class T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 2), 4)\n"
    )
    (root / "big.txt").write_text(BIG)


def ledger_turn() -> list[dict[str, Any]]:
    return [
        reply("", call("goal", add="Fix calc")),
        reply("", call("goal", focus="1")),
        reply("", call("read_file", path="calc.py")),
        reply("", call("run_command", command=TEST_COMMAND)),
        reply("", call("edit_file", path="calc.py", old="a - b", new="a + b")),
        reply("", call("run_command", command=TEST_COMMAND)),
        reply("", call("goal", done="add() now adds")),
        reply("ALPHA-TOKEN fixed."),
    ]


def big_turn(text: str) -> list[dict[str, Any]]:
    return [reply("", call("read_file", path="big.txt")), reply(text)]


def results(messages: Sequence[Message]) -> list[ToolResultPart]:
    return [p for m in messages for p in m.parts if isinstance(p, ToolResultPart)]


def summaries(engine: Engine, session_id: str) -> list[SessionSummary]:
    messages = engine.store.open(session_id).messages()
    parts = [p for m in messages for p in m.parts if isinstance(p, CompactionPart)]
    return [p.summary for p in parts if p.kind == "summary" and p.summary is not None]


class Spy:
    """Wraps `ModelRuntime.complete` to keep the messages of compaction calls."""

    def __init__(self, engine: Engine) -> None:
        self.calls: list[list[Mapping[str, Any]]] = []
        self._inner = engine.runtime.complete
        engine.runtime.complete = self.complete  # type: ignore[method-assign]

    async def complete(
        self, model: str, messages: Sequence[Mapping[str, Any]], tools: Any, **kw: Any
    ) -> ModelReply:
        if kw.get("agent") == "compaction":
            self.calls.append(list(messages))
        return await self._inner(model, messages, tools, **kw)


async def test_summary_ledger_matches_the_records(tmp_path: Path) -> None:
    project(tmp_path)
    recorder = Recorder()
    engine = make_engine(
        tmp_path,
        [
            *ledger_turn(),
            *big_turn("Read the big file."),
            narrative(
                objective="Make add() correct",
                confirmed_facts=["add() subtracted instead of adding"],
                decisions=[{"decision": "patch the operator", "reason": "smallest change"}],
                files_read=["model-claims-this.py"],
                open_questions=[],
            ),
        ],
        recorder,
        allowed_commands=["python3 -m unittest"],
        **QUIET,
    )
    first = await engine.turn("fix add")
    await engine.turn("now read big.txt", session_id=first.session_id)
    result = await engine.compact(first.session_id)
    assert result.kind == "summary"
    assert result.tokens_after < result.tokens_before

    [summary] = summaries(engine, first.session_id)
    messages = engine.store.open(first.session_id).messages()
    watermark = [m.id for m in messages].index(summary.covered_until_message_id or "")
    covered = results(messages[: watermark + 1])
    reads = [r for r in covered if r.name == "read_file"]
    [edit] = [r for r in covered if r.name == "edit_file"]
    test1, test2 = [r for r in covered if r.name == "run_command"]
    assert edit.data and test1.data and test2.data
    assert [r.data and r.data["path"] for r in reads] == ["calc.py", "big.txt"]
    assert summary.files_read == [
        FileRead(path=r.data["path"], hash=r.data["hash"], artifact_id=r.artifact_id)
        for r in reads
        if r.data
    ]
    assert "model-claims-this.py" not in {f.path for f in summary.files_read}
    assert summary.files_changed == [
        FileChanged(path="calc.py", patch_artifact_id=edit.data["patch_artifact_id"])
    ]
    assert summary.tests == [
        records.TestRecord(command=TEST_COMMAND, status="failed", artifact_id=test1.artifact_id),
        records.TestRecord(command=TEST_COMMAND, status="passed", artifact_id=test2.artifact_id),
    ]
    assert summary.goal_summaries == [
        GoalSummary(
            goal_id="1", description="Fix calc", status="completed", summary="add() now adds"
        )
    ]
    assert summary.objective == "Make add() correct"
    assert "add() subtracted instead of adding" in summary.confirmed_facts
    assert "The user said: fix add" in summary.confirmed_facts
    assert summary.decisions[0].reason == "smallest change"
    done = [e for e in recorder.compactions if e.kind == "summary" and e.stage == "done"]
    assert done and done[-1].tokens_after == result.tokens_after
    engine.close()


async def test_incremental_summary_reads_only_what_follows_the_watermark(tmp_path: Path) -> None:
    project(tmp_path)
    engine = make_engine(
        tmp_path,
        [
            *ledger_turn(),
            *big_turn("BETA-TOKEN read."),
            narrative(objective="Make add() correct", confirmed_facts=["first fact"]),
            *big_turn("GAMMA-TOKEN read again."),
            reply("", call("list_dir")),
            reply("DELTA-TOKEN listed."),
            narrative(confirmed_facts=["second fact"], open_questions=["is sub() right?"]),
        ],
        allowed_commands=["python3 -m unittest"],
        **QUIET,
        **CACHED,
    )
    spy = Spy(engine)
    first = await engine.turn("fix add")
    sid = first.session_id
    await engine.turn("read big.txt", session_id=sid)
    assert (await engine.compact(sid)).kind == "summary"
    await engine.turn("read it again", session_id=sid)
    await engine.turn("list the folder", session_id=sid)
    assert (await engine.compact(sid)).kind == "summary"

    first_summary, second_summary = summaries(engine, sid)
    messages = engine.store.open(sid).messages()
    ids = [m.id for m in messages]
    assert ids.index(second_summary.covered_until_message_id or "") > ids.index(
        first_summary.covered_until_message_id or ""
    )
    # The compaction call is the session's next request plus one instruction: the previous
    # summary opens the history, then what followed its watermark.
    second = spy.calls[1]
    assert second[-1] == {"role": "user", "content": COMPACTION_INSTRUCTION}
    texts = [str(m.get("content") or "") for m in second[:-1]]
    at = next(i for i, t in enumerate(texts) if t.startswith(SUMMARY_TITLE))
    previous, new_part = texts[at], "\n".join(texts[at + 1 :])
    assert "first fact" in previous and "The user said:\n- fix add" in previous
    assert "ALPHA-TOKEN" not in "\n".join(texts)
    assert "BETA-TOKEN" in new_part and "read it again" in new_part
    facts = second_summary.confirmed_facts
    assert facts.index("first fact") < facts.index("second fact")
    assert {"The user said: fix add", "The user said: read it again"} <= set(facts)
    assert second_summary.objective == "Make add() correct"
    assert second_summary.open_questions == ["is sub() right?"]
    # The ledger still covers everything up to the new watermark.
    assert [t.status for t in second_summary.tests] == ["failed", "passed"]
    assert read_state(messages).summary == second_summary
    engine.close()


async def test_nothing_to_cover_is_reported_not_retried(tmp_path: Path) -> None:
    recorder = Recorder()
    engine = make_engine(tmp_path, [reply("hi")], recorder, **QUIET)
    first = await engine.turn("hello")
    result = await engine.compact(first.session_id)
    assert result.kind == "none"
    assert [e.error for e in recorder.compactions if e.stage == "failed"] == [
        "stalled: nothing to cover"
    ]
    engine.close()


async def test_threshold_triggers_compaction_during_a_turn(tmp_path: Path) -> None:
    project(tmp_path)
    recorder = Recorder()
    engine = make_engine(
        tmp_path,
        [
            reply("", call("read_file", path="big.txt")),
            reply("", call("read_file", path="calc.py")),
            reply("", call("read_file", path="big.txt", start_line=1, end_line=120)),
            reply("", call("read_file", path="test_calc.py")),
            reply("Done reading."),
        ],
        recorder,
        compaction_threshold=0.5,
        prune_minimum=100_000,
        **SMALL_WINDOW,
    )
    result = await engine.turn("read everything")
    assert result.finish_reason == "stop"
    kinds = {(e.kind, e.stage) for e in recorder.compactions}
    assert ("summary", "start") in kinds and ("summary", "done") in kinds
    assert summaries(engine, result.session_id)
    engine.close()


class Timeline(Recorder):
    """Keeps turn and compaction events in one ordered list."""

    def __init__(self) -> None:
        super().__init__()
        self.order: list[str] = []

    def on_turn_event(self, event: Any) -> None:
        super().on_turn_event(event)
        if event.kind in ("toolStart", "toolEnd"):
            self.order.append(f"{event.kind}:{event.tool}")

    def on_compaction(self, event: Any) -> None:
        super().on_compaction(event)
        self.order.append(f"{event.kind}:{event.stage}")


async def test_summary_is_prepared_in_the_background_while_tools_run(tmp_path: Path) -> None:
    project(tmp_path)
    timeline = Timeline()
    engine = make_engine(
        tmp_path,
        [
            reply("", call("read_file", path="big.txt")),
            reply("", call("read_file", path="calc.py")),
            reply("Done."),
        ],
        timeline,
        context_window=12_000,
        max_output_tokens=500,
        safety_margin=200,
        compaction_threshold=0.6,
    )
    result = await engine.turn("read")
    assert result.finish_reason == "stop"
    order = timeline.order
    start, done = order.index("summary:start"), order.index("summary:done")
    # Started ahead of the threshold, after the reply asked for calc.py; recorded only
    # once that tool had run, before the next call.
    assert order[start + 1 : done] == ["toolStart:read_file", "toolEnd:read_file"]
    assert summaries(engine, result.session_id)
    engine.close()


def scripted_scope(engine: Engine, session_id: str) -> tuple[Any, Any, list[Message]]:
    session = engine.session(session_id)
    inputs = TurnInputs(model=str(engine.settings.model), mode="build")
    scope = engine.scope(session, inputs)
    return scope, engine.contexts.build(scope), session.messages()


def assert_transcript(request: Sequence[Mapping[str, Any]]) -> None:
    assert request[0]["content"] == COMPACTION_SYSTEM_PROMPT
    assert (
        "Conversation:" in request[1]["content"] and "USER: read big.txt" in request[1]["content"]
    )


async def test_the_compaction_call_falls_back_to_a_transcript_when_the_prefix_does_not_fit(
    tmp_path: Path,
) -> None:
    project(tmp_path)
    engine = make_engine(tmp_path, [*big_turn("BETA-TOKEN read.")], **QUIET, **CACHED)
    try:
        first = await engine.turn("read big.txt")
        scope, built, messages = scripted_scope(engine, first.session_id)
        settings = engine.settings
        on_prefix = prefix_request(scope, built, messages, len(messages) - 1, settings)
        assert on_prefix is not None
        request, cached = on_prefix
        assert request[-1]["content"] == COMPACTION_INSTRUCTION
        assert request[:cached] == built.prefix_messages()
        # The history shows big.txt as an excerpt (over its share): added whole before it.
        assert BIG.splitlines()[125] in str(request[-2]["content"])
        # A context that already fills the input budget leaves no room for the instruction.
        built.stats.used_input = built.stats.available_input
        assert prefix_request(scope, built, messages, len(messages) - 1, settings) is None
    finally:
        engine.close()


async def test_a_provider_without_a_prompt_cache_gets_a_transcript_of_whole_outputs(
    tmp_path: Path,
) -> None:
    """Repeating the prefix only pays where the provider serves it from a cache: without
    one the whole context would be paid again. The transcript shows every output whole,
    naming the artifact that holds it — a pruned one too (without a cache the second turn
    prunes the first one's read, leaving less than any share verbatim: `summary_keep_recent` 0
    still leaves the read to cover)."""
    project(tmp_path)
    engine = make_engine(
        tmp_path,
        [*big_turn("BETA-TOKEN read."), reply("ok"), narrative()],
        **QUIET,
        summary_keep_recent=0.0,
    )
    spy = Spy(engine)
    try:
        first = await engine.turn("read big.txt")
        scope, built, messages = scripted_scope(engine, first.session_id)
        assert prefix_request(scope, built, messages, len(messages) - 1, engine.settings) is None
        await engine.turn("thanks", session_id=first.session_id)
        await engine.compact(first.session_id)
        [request] = spy.calls
        assert_transcript(request)
        body = request[1]["content"]
        artifact = next(p.artifact_id for p in results(messages) if p.name == "read_file")
        assert artifact and f"artifact {artifact})" in body
        assert BIG.splitlines()[125] in body  # the middle of the read, not an excerpt
    finally:
        engine.close()


@pytest.mark.parametrize("keep", [0.0, 0.5])
async def test_summary_keep_recent_is_the_share_left_verbatim(tmp_path: Path, keep: float) -> None:
    """`summary_keep_recent` is how much of the newest history a summary leaves as it was:
    none at 0 (it covers up to the last reply), the last turns at 0.5."""
    project(tmp_path)
    turns = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"]
    script: list[dict[str, Any]] = []
    for word in turns:  # a file each: a read repeating an earlier one would be a stub
        (tmp_path / f"{word}.txt").write_text(
            "\n".join(f"{word} {r}" for r in BIG.splitlines()[:120])
        )
        script += [
            reply("", call("read_file", path=f"{word}.txt")),
            reply(f"{word.upper()}-TOKEN."),
        ]
    script.append(narrative(objective="Read the files"))
    window = {**QUIET, "context_window": 24_000, "prune_minimum": 10**9}  # no prune
    engine = make_engine(tmp_path, script, **window, summary_keep_recent=keep)
    try:
        sid = (await engine.turn(f"read {turns[0]}.txt")).session_id
        for word in turns[1:]:
            await engine.turn(f"read {word}.txt", session_id=sid)
        assert (await engine.compact(sid)).kind == "summary"
        [summary] = summaries(engine, sid)
        messages = engine.store.open(sid).messages()
        ids = [m.id for m in messages]
        covered = ids.index(summary.covered_until_message_id or "")
        verbatim = " ".join(m.text() for m in messages[covered + 1 :])
        if keep == 0.0:
            assert "ZETA-TOKEN" not in verbatim  # everything up to the last reply is covered
        else:
            assert "EPSILON-TOKEN" in verbatim and "ZETA-TOKEN" in verbatim
            assert "ALPHA-TOKEN" not in verbatim
    finally:
        engine.close()
