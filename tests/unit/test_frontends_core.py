"""The front ends' shared core without a server: the error map, sentences, settings fallback,
the cancel path."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from cairn.errors import (
    CairnError,
    GoalError,
    NoModelError,
    PathRefusedError,
    TraceLockedError,
    UnknownSessionError,
)
from cairn.frontends.codes import INVALID_PARAMS, REQUEST_FAILED
from cairn.frontends.error_map import rpc_error, translated
from cairn.frontends.faults import RpcError
from cairn.frontends.sentences import (
    approval_choice,
    approval_question,
    compaction_sentence,
    fill,
)
from cairn.frontends.settings_fallback import FALLBACK_NOTE, settings_with_fallback
from cairn.frontends.turns import RunningTurns, TurnAsk, await_turn
from cairn.models.events import CompactionEvent, TurnResult
from cairn.settings import DEFAULT_MAX_MESSAGE_BYTES


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (UnknownSessionError("s1"), INVALID_PARAMS),
        (GoalError("no goal g9"), INVALID_PARAMS),
        (PathRefusedError("outside the workspace"), INVALID_PARAMS),
        (TraceLockedError("locked by pid 7"), REQUEST_FAILED),
        (CairnError("anything else"), REQUEST_FAILED),
    ],
)
def test_each_error_kind_has_one_code_and_names_the_method(error: CairnError, code: int) -> None:
    answer = rpc_error("m/x", error)
    assert (answer.code, answer.message) == (code, f"m/x: {error}")


def test_no_model_is_answered_with_the_setup_guide() -> None:
    answer = rpc_error("m/x", NoModelError("no model"))
    assert answer.code == REQUEST_FAILED
    assert answer.message.startswith("m/x: no model configured.") and "cairn.toml" in answer.message


def test_translated_leaves_other_exceptions_alone() -> None:
    with pytest.raises(RpcError) as raised, translated("m/x"):
        raise UnknownSessionError("s1")
    assert raised.value.code == INVALID_PARAMS
    with pytest.raises(KeyError), translated("m/x"):
        raise KeyError("not a CairnError")


def event(stage: str, error: str | None = None, after: int | None = None) -> CompactionEvent:
    return CompactionEvent.model_validate(
        {
            "session_id": "s",
            "stage": stage,
            "kind": "summary",
            "tokens_before": 12_345,
            "tokens_after": after,
            "error": error,
        }
    )


def test_compaction_sentences() -> None:
    assert compaction_sentence(event("start")) == (
        "Compacting the context (summary, 12,345 tokens)…"
    )
    assert compaction_sentence(event("done", after=2_000)) == (
        "Context compacted (summary): 12,345 → 2,000 tokens."
    )
    assert compaction_sentence(event("failed", "model down")) == (
        "Compaction (summary) failed: model down."
    )
    assert compaction_sentence(event("failed")) == "Compaction (summary) failed: no reason given."


def test_fill_keeps_unknown_slots_and_never_reads_braces_in_values() -> None:
    assert fill("{a} and {b}", a="{b}") == "{b} and {b}"
    assert approval_choice("always", "rm -rf {x}") == "Always allow `rm -rf {x}`"


def test_an_approval_asks_one_question_everywhere() -> None:
    assert approval_question("echo hi", None) == "Cairn wants to run: echo hi"
    assert approval_question("mcp:fs/write {}", "mcp:fs/write", "x") == (
        "Cairn wants to call: mcp:fs/write {} (asked because x)"
    )


def test_an_invalid_cairn_toml_falls_back_to_the_defaults(tmp_path: Path) -> None:
    (tmp_path / "cairn.toml").write_text("max_message_bytes = 3\n", encoding="utf-8")
    settings, kept, problems = settings_with_fallback(tmp_path, {"mode": "plan"})
    assert settings.max_message_bytes == DEFAULT_MAX_MESSAGE_BYTES
    assert settings.mode == "plan" and kept == {"mode": "plan"}
    assert problems and all(p.endswith(FALLBACK_NOTE) for p in problems)
    assert "max_message_bytes" in problems[0]


def test_an_invalid_override_is_dropped_and_the_rest_kept(tmp_path: Path) -> None:
    settings, kept, problems = settings_with_fallback(tmp_path, {"mode": "plan", "nope": 1})
    assert settings.mode == "plan" and kept == {"mode": "plan"}
    assert len(problems) == 1 and "nope" in problems[0]


async def test_a_cancelled_turn_is_none_and_a_cancelled_request_raises() -> None:
    started = asyncio.Event()

    async def turn() -> TurnResult:
        started.set()
        await asyncio.sleep(60)
        raise AssertionError("not cancelled")

    task = asyncio.ensure_future(turn())
    waiting = asyncio.ensure_future(await_turn(task))
    await started.wait()
    task.cancel()
    assert await waiting is None

    second = asyncio.ensure_future(turn())
    request = asyncio.ensure_future(await_turn(second))
    await asyncio.sleep(0)
    request.cancel()
    with pytest.raises(asyncio.CancelledError):
        await request
    await asyncio.sleep(0)
    assert second.cancelled()


class SlowEngine:
    """An engine whose turns run until cancelled and then take a moment to record their end."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, str | None]] = []
        self.recorded: list[str] = []
        self.started = asyncio.Event()

    async def turn(self, message: str, *, session_id: str | None = None, **_: object) -> TurnResult:
        self.asked.append((message, session_id))
        self.started.set()
        try:
            await asyncio.sleep(60)
        finally:
            await asyncio.sleep(0.01)  # recording the cancelled turn's end
            self.recorded.append(message)
        raise AssertionError("not cancelled")


async def test_running_turns_refuse_a_second_and_stop_waits_for_each_to_record_its_end() -> None:
    turns, engine = RunningTurns(), SlowEngine()
    task = turns.start("m/turn", engine, "s1", TurnAsk("one"))  # pyright: ignore[reportArgumentType]
    request = asyncio.ensure_future(turns.finish("s1", task))
    await engine.started.wait()
    assert engine.asked == [("one", "s1")] and turns.running("s1")
    with pytest.raises(RpcError) as refused:
        turns.start("m/turn", engine, "s1", TurnAsk("two"))  # pyright: ignore[reportArgumentType]
    assert refused.value.code == REQUEST_FAILED
    assert "already running in session 's1'" in refused.value.message
    assert await turns.stop_all() == set()
    assert engine.recorded == ["one"] and await request is None  # answered, not failed
    assert not turns.running("s1") and engine.asked == [("one", "s1")]
