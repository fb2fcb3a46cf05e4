"""`cairn trace show` streams its records (issue 26 item 8): the views hold a bounded copy of
each message and print whole messages as they read them, with the same output."""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn.commands.trace import _session_data, show_trace
from cairn.commands.trace_slim import SLIM_CHARS, slim_message
from cairn.goals.brief import brief_line
from cairn.models.messages import Message, TextPart, ToolCallPart, ToolResultPart
from cairn.settings import Settings
from cairn.trace import TraceStore
from tests.unit.test_agent_support import make_engine, reply

BIG_MESSAGES = 40
BIG_CHARS = 250_000  # 40 × 250 KB: a 10 MB messages.jsonl


def _big(number: int, turn_id: str) -> Message:
    body = "".join(f"line {number}.{i} {'x' * 40}\n" for i in range(BIG_CHARS // 50))
    return Message(
        id=f"msg_big_{number:03d}",
        role="tool",
        turn_id=turn_id,
        parts=[
            ToolResultPart(call_id=f"c{number}", name="run_command", output=body),
            TextPart(text=("word " * (BIG_CHARS // 5)) + f"end {number}"),
        ],
    )


@pytest.fixture
async def big_session(tmp_path: Path) -> tuple[Path, str, str]:
    engine = make_engine(tmp_path, [reply("hello")])
    try:
        result = await engine.turn("say hello")
    finally:
        engine.close()
    store = TraceStore(tmp_path / Settings().trace_dir)
    with store.open(result.session_id) as trace:
        for number in range(BIG_MESSAGES):
            trace.append_message(_big(number, result.turn_id))
    size = (store.open(result.session_id).dir / "messages.jsonl").stat().st_size
    assert size > BIG_MESSAGES * BIG_CHARS
    return tmp_path, result.session_id, result.turn_id


def test_a_slim_message_has_the_same_summary() -> None:
    big = _big(7, "turn")
    call = Message(
        id="m",
        role="assistant",
        parts=[ToolCallPart(call_id="c", name="edit_file", arguments={"new": "y" * 100_000})],
    )
    for message in (big, call):
        slim = slim_message(message)
        assert brief_line(slim) == brief_line(message)
        assert len(slim.model_dump_json()) < 4 * SLIM_CHARS + 1000


def test_show_holds_bounded_copies_and_reads_whole_messages_again(
    big_session: tuple[Path, str, str],
) -> None:
    root, session_id, _ = big_session
    store = TraceStore(root / Settings().trace_dir)
    data = _session_data(store.open(session_id))
    kept = [m for m in data.messages if m.id.startswith("msg_big_")]
    assert len(kept) == BIG_MESSAGES
    assert all(len(m.model_dump_json()) < 4 * SLIM_CHARS + 1000 for m in kept)
    whole = [m for m in data.stream() if m.id.startswith("msg_big_")]
    assert [m.id for m in whole] == [m.id for m in kept]
    assert all(len(m.parts[0].output) > BIG_CHARS - 1000 for m in whole)  # type: ignore[union-attr]


def test_show_prints_a_large_session_right(
    big_session: tuple[Path, str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    root, session_id, _ = big_session
    show_trace(root, session_id)
    overview = capsys.readouterr().out
    assert f"Messages: {BIG_MESSAGES + 2}" in overview

    show_trace(root, session_id, turn=1)
    brief = capsys.readouterr().out.splitlines()
    assert f"messages ({BIG_MESSAGES + 2}):" in brief
    big_lines = [line for line in brief if "← run_command ok:" in line]
    assert len(big_lines) == BIG_MESSAGES
    for number, line in enumerate(big_lines):
        chars = len(_big(number, "t").parts[0].output)  # type: ignore[union-attr]
        assert f"← run_command ok: {chars} chars" in line, "the whole output's length"

    show_trace(root, session_id, turn=1, full=True)
    full = capsys.readouterr().out
    for number in (0, BIG_MESSAGES - 1):
        assert f"line {number}.{BIG_CHARS // 50 - 1} " in full, "the whole output is printed"
        assert f"end {number}" in full
