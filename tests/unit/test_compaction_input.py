"""Summaries see what they cover (issue 29 item 2): every tool output of the covered
messages reaches the compaction model whole, for a provider with a prompt cache (the call
repeats the session's prefix) and without one (a transcript, in chunks when it is larger
than one call), and the summary's ledger names each file read with its artifact.

A finding sits in the middle of a ~20k-token `read_file` output (a real file read by the
real tool: a text whose characters cost a token or more each). Before, the transcript
showed any output over 2,000 tokens as its head and tail, and the prefix showed a pruned
read as a stub: the finding never reached the summarizer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from cairn.agent.compaction.call import MISSING_TITLE
from cairn.agent.engine import Engine
from cairn.compaction.chunks import CONTINUED
from cairn.llm.usage import prompt_text
from cairn.models.messages import CompactionPart
from cairn.tokens.counter import counter_for
from tests.unit.test_agent_support import call, make_engine, reply
from tests.unit.test_compaction_summary import CACHED, Spy, narrative, summaries

FINDING = "FINDING-MIDDLE-4242: the upstream gives up after 17 retries"
COUNT = counter_for("scripted/x")
# A reply long enough to be the whole verbatim tail a forced summary keeps.
LONG = " ".join(f"note{i}" for i in range(1500))
LINES = 230


def big_text() -> str:
    """~20k tokens of text (CJK characters cost a token or more each), FINDING mid-way."""
    lines = [
        "".join(chr(0x4E00 + (i * 131 + j * 17) % 20_000) for j in range(45)) for i in range(LINES)
    ]
    lines[LINES // 2] = FINDING
    return "\n".join(lines) + "\n"


def session_turns(extra_turns: int) -> list[dict[str, Any]]:
    """Read the big file, then `extra_turns` turns, the last with a long answer (the verbatim
    tail a forced summary keeps)."""
    turns = [reply("", call("read_file", path="big.txt")), reply("Read it.")]
    turns += [reply(f"Answer {n}.") for n in range(extra_turns - 1)]
    return [*turns, reply(LONG)]


def text_of(messages: Sequence[Mapping[str, Any]]) -> str:
    return "\n".join(str(m.get("content") or "") for m in messages)


async def run(engine: Engine, turns: int) -> str:
    first = await engine.turn("read big.txt")
    sid = first.session_id
    for n in range(turns):
        await engine.turn(f"question {n}", session_id=sid)
    assert (await engine.compact(sid)).kind == "summary"
    return sid


async def test_without_a_prompt_cache_the_transcript_holds_the_whole_read(
    tmp_path: Path,
) -> None:
    (tmp_path / "big.txt").write_text(big_text())
    assert 18_000 < COUNT(big_text()) < 24_000
    engine = make_engine(
        tmp_path,
        [*session_turns(1), narrative(confirmed_facts=["the upstream gives up after 17"])],
        context_window=40_000,
        compaction_threshold=1.0,
        summary_keep_recent=0.02,
    )
    spy = Spy(engine)
    try:
        sid = await run(engine, 1)
        [request] = spy.calls  # one call: the transcript fits
        assert FINDING in text_of(request)
        assert request[0]["role"] == "system"  # a transcript, not the session's prefix
        [summary] = summaries(engine, sid)
        assert "the upstream gives up after 17" in summary.confirmed_facts
    finally:
        engine.close()


async def test_a_transcript_larger_than_the_call_is_read_in_chunks_with_notes_carried(
    tmp_path: Path,
) -> None:
    (tmp_path / "big.txt").write_text(big_text())
    window = 16_000
    engine = make_engine(
        tmp_path,
        [
            *session_turns(1),
            narrative(confirmed_facts=["fact of the first chunk"]),
            narrative(confirmed_facts=["fact of the second chunk"]),
            narrative(confirmed_facts=["fact of the third chunk"]),
        ],
        context_window=window,
        max_output_tokens=500,
        compaction_threshold=1.0,
        summary_keep_recent=0.02,
    )
    spy = Spy(engine)
    try:
        sid = await run(engine, 1)
        assert 2 <= len(spy.calls) <= 3
        # Every line of the read reached the summarizer, in the parts of its message.
        read = "\n".join(text_of(r) for r in spy.calls)
        for line in big_text().splitlines():
            assert line in read
        assert CONTINUED.split("{", 1)[0] in read
        # Each call fits the window; each after the first carries the notes so far.
        for index, request in enumerate(spy.calls):
            assert COUNT(prompt_text(request, [])) < window
            if index:
                assert "fact of the first chunk" in text_of(request)
        [summary] = summaries(engine, sid)
        assert "fact of the first chunk" in summary.confirmed_facts
        assert "fact of the second chunk" in summary.confirmed_facts
    finally:
        engine.close()


async def test_with_a_prompt_cache_a_pruned_read_is_added_to_the_prefix_in_full(
    tmp_path: Path,
) -> None:
    (tmp_path / "big.txt").write_text(big_text())
    engine = make_engine(
        tmp_path,
        [*session_turns(3), narrative(objective="read big.txt")],
        **CACHED,
        context_window=64_000,
        compaction_threshold=1.0,
        summary_keep_recent=0.02,
        prune_protect=100,
        prune_minimum=100,
    )
    spy = Spy(engine)
    try:
        sid = await run(engine, 3)
        markers = [
            p for m in engine.session(sid).messages() for p in m.parts
            if isinstance(p, CompactionPart)
        ]  # fmt: skip
        assert [p.kind for p in markers] == ["prune", "summary"]  # the read was pruned first
        [request] = spy.calls
        assert request[0]["role"] == "system" and "[output pruned:" in text_of(request)
        added = request[-2]  # the outputs the prefix lacks, before the instruction
        assert str(added["content"]).startswith(MISSING_TITLE)
        assert FINDING in str(added["content"])
    finally:
        engine.close()


async def test_the_summary_names_every_file_read_with_its_artifact(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text(big_text())
    (tmp_path / "small.txt").write_text("a small file\n")
    engine = make_engine(
        tmp_path,
        [
            reply("", call("read_file", path="big.txt")),
            reply("", call("read_file", path="small.txt")),
            reply("Read both."),
            reply(LONG),
            narrative(objective="read files"),
        ],
        context_window=40_000,
        compaction_threshold=1.0,
        summary_keep_recent=0.02,
    )
    try:
        sid = await run(engine, 1)
        [summary] = summaries(engine, sid)
        read = {f.path: f.artifact_id for f in summary.files_read}
        assert set(read) == {"big.txt", "small.txt"}
        assert read["big.txt"] is not None
        stored = engine.store.open(sid).read_artifact(read["big.txt"])
        assert FINDING in stored.decode("utf-8")
    finally:
        engine.close()
