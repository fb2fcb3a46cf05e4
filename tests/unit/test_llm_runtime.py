"""ModelRuntime over the scripted model: streaming, tool calls, lanes, retries, errors, cancellation."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from cairn.errors import ModelError
from cairn.llm import ModelRuntime, Timing, reset_scripts
from cairn.llm.retry import BACKOFF_FACTOR
from cairn.llm.scripted import open_streams
from cairn.settings import Settings
from cairn.tokens.counter import count_tokens

MESSAGES = [{"role": "user", "content": "fix the failing test"}]
BACKOFF_BASE_S = 0.25
# A delay the idle timeout must cut short (the test never waits for it).
STALL_S = 30.0
IDLE_TIMEOUT_S = 0.2


class Sleeps:
    """Records backoff delays instead of sleeping."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


@pytest.fixture(autouse=True)
def _fresh_scripts() -> None:
    reset_scripts()


def write_script(folder: Path, *lines: dict[str, Any] | str, name: str = "script.jsonl") -> Path:
    path = folder / name
    path.write_text(
        "\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines) + "\n",
        encoding="utf-8",
    )
    return path


def runtime(root: Path, sleeps: Sleeps | None = None, **settings: Any) -> ModelRuntime:
    return ModelRuntime(
        Settings(**settings),
        workspace_root=root,
        timing=Timing(sleep=sleeps or Sleeps(), backoff_base_s=BACKOFF_BASE_S),
    )


async def test_streams_text_in_several_chunks(tmp_path: Path) -> None:
    text = "I will read the test first, then fix the function it exercises."
    write_script(tmp_path, {"text": text})
    chunks: list[str] = []
    reply = await runtime(tmp_path).complete(
        "scripted/script.jsonl", MESSAGES, [], on_text=chunks.append
    )
    assert reply.text == text
    assert len(chunks) > 2
    assert "".join(chunks) == text
    assert reply.tool_calls == []
    assert reply.finish_reason == "stop"


async def test_tool_calls_are_assembled_from_streamed_pieces(tmp_path: Path) -> None:
    write_script(
        tmp_path,
        {
            "text": "Planning.",
            "toolCalls": [
                {"name": "goal", "arguments": {"add": "reproduce, fix"}},
                {"name": "read_file", "arguments": {"path": "src/app.py", "start_line": 3}},
            ],
        },
    )
    reply = await runtime(tmp_path).complete("scripted/script.jsonl", MESSAGES, [])
    assert [(c.name, c.arguments, c.error) for c in reply.tool_calls] == [
        ("goal", {"add": "reproduce, fix"}, None),
        ("read_file", {"path": "src/app.py", "start_line": 3}, None),
    ]
    assert len({c.call_id for c in reply.tool_calls}) == 2
    assert reply.finish_reason == "tool_calls"


async def test_scripted_call_ids_differ_between_calls(tmp_path: Path) -> None:
    line = {"toolCalls": [{"name": "list_dir", "arguments": {}}]}
    write_script(tmp_path, line, line)
    model = runtime(tmp_path)
    first = await model.complete("scripted/script.jsonl", MESSAGES, [])
    second = await model.complete("scripted/script.jsonl", MESSAGES, [])
    assert first.tool_calls[0].call_id != second.tool_calls[0].call_id


async def test_malformed_tool_arguments_are_reported_not_raised(tmp_path: Path) -> None:
    write_script(
        tmp_path,
        {"toolCalls": [{"name": "read_file", "arguments": '{"path": "a.py"'}]},
        {"toolCalls": [{"name": "read_file", "arguments": "[1, 2]"}]},
    )
    model = runtime(tmp_path)
    broken = (await model.complete("scripted/script.jsonl", MESSAGES, [])).tool_calls[0]
    assert broken.arguments is None
    assert broken.raw_arguments == '{"path": "a.py"'
    assert broken.error is not None and "not valid JSON" in broken.error
    wrong_type = (await model.complete("scripted/script.jsonl", MESSAGES, [])).tool_calls[0]
    assert wrong_type.arguments is None
    assert wrong_type.error == "arguments must be a JSON object, got list"


async def test_reasoning_is_streamed_separately(tmp_path: Path) -> None:
    write_script(tmp_path, {"reasoning": "The test expects 2.", "text": "Fixing."})
    thoughts: list[str] = []
    reply = await runtime(tmp_path).complete(
        "scripted/script.jsonl", MESSAGES, [], on_reasoning=thoughts.append
    )
    assert reply.reasoning == "The test expects 2."
    assert "".join(thoughts) == "The test expects 2."
    assert reply.text == "Fixing."


async def test_usage_is_counted_with_the_budget_tokenizer(tmp_path: Path) -> None:
    text = "A reply whose tokens are counted exactly like the context budget counts them."
    write_script(tmp_path, {"text": text})
    reply = await runtime(tmp_path).complete("scripted/script.jsonl", MESSAGES, [])
    assert reply.usage.output_tokens == count_tokens(text, "scripted/script.jsonl")
    assert reply.usage.input_tokens == count_tokens(MESSAGES[0]["content"], "scripted/x")
    assert reply.usage.cost is None


async def test_lanes_read_their_own_lines_even_concurrently(tmp_path: Path) -> None:
    write_script(
        tmp_path,
        {"text": "main 1"},
        {"agent": 0, "text": "branch zero"},
        {"agent": "lexer", "text": "branch lexer"},
        {"text": "main 2"},
    )
    model = runtime(tmp_path)
    results = await asyncio.gather(
        model.complete("scripted/script.jsonl", MESSAGES, [], agent="lexer"),
        model.complete("scripted/script.jsonl", MESSAGES, [], agent="0"),
        model.complete("scripted/script.jsonl", MESSAGES, []),
        model.complete("scripted/script.jsonl", MESSAGES, [], agent="main"),
    )
    assert [r.text for r in results[:2]] == ["branch lexer", "branch zero"]
    assert sorted(r.text for r in results[2:]) == ["main 1", "main 2"]


async def test_compaction_lane_answers_and_then_gets_an_empty_narrative(tmp_path: Path) -> None:
    write_script(tmp_path, {"agent": "compaction", "text": '{"objective": "fix"}'})
    model = runtime(tmp_path)
    first = await model.complete("scripted/script.jsonl", MESSAGES, [], agent="compaction")
    assert first.text == '{"objective": "fix"}'
    # Compaction calls accept an empty narrative (the ledger fills the summary).
    second = await model.complete(
        "scripted/script.jsonl", MESSAGES, [], agent="compaction", allow_empty=True
    )
    assert second.text == ""
    assert second.tool_calls == []


async def test_running_out_of_lines_is_a_clear_model_error_without_retries(
    tmp_path: Path,
) -> None:
    script = write_script(tmp_path, {"text": "only one"})
    sleeps = Sleeps()
    model = runtime(tmp_path, sleeps, model_retries=3)
    await model.complete("scripted/script.jsonl", MESSAGES, [])
    with pytest.raises(ModelError) as raised:
        await model.complete("scripted/script.jsonl", MESSAGES, [])
    assert f"scripted model {script}: no reply left for agent 'main' (call 2)" in str(raised.value)
    assert sleeps.delays == []


async def test_rate_limit_is_retried_then_succeeds(tmp_path: Path) -> None:
    write_script(tmp_path, {"error": "rate_limit"}, {"error": "timeout"}, {"text": "recovered"})
    sleeps = Sleeps()
    reply = await runtime(tmp_path, sleeps, model_retries=3).complete(
        "scripted/script.jsonl", MESSAGES, []
    )
    assert reply.text == "recovered"
    assert sleeps.delays == [BACKOFF_BASE_S, BACKOFF_BASE_S * BACKOFF_FACTOR]


async def test_server_errors_give_up_after_the_configured_attempts(tmp_path: Path) -> None:
    write_script(
        tmp_path,
        {"error": "server_error"},
        {"error": "server_error"},
        {"error": "server_error"},
        {"text": "never reached by the first call"},
    )
    sleeps = Sleeps()
    model = runtime(tmp_path, sleeps, model_retries=2)
    with pytest.raises(ModelError) as raised:
        await model.complete("scripted/script.jsonl", MESSAGES, [])
    message = str(raised.value)
    assert message.startswith("model scripted/script.jsonl: server error (HTTP 500): scripted")
    assert "gave up after 3 requests over" in message and "(model_retries = 2)" in message
    assert raised.value.requests == 3
    assert len(sleeps.delays) == 2
    after = await model.complete("scripted/script.jsonl", MESSAGES, [])
    assert after.text == "never reached by the first call"


async def test_authentication_errors_are_not_retried(tmp_path: Path) -> None:
    write_script(tmp_path, {"error": "auth"}, {"text": "unused"})
    sleeps = Sleeps()
    with pytest.raises(ModelError, match=r"authentication failed \(HTTP 401\): scripted auth"):
        await runtime(tmp_path, sleeps, model_retries=3).complete(
            "scripted/script.jsonl", MESSAGES, []
        )
    assert sleeps.delays == []


async def test_a_stalled_stream_times_out_and_is_retried(tmp_path: Path) -> None:
    write_script(tmp_path, {"delay": STALL_S, "text": "too late"}, {"text": "in time"})
    sleeps = Sleeps()
    model = runtime(tmp_path, sleeps, model_retries=1, model_timeout_s=IDLE_TIMEOUT_S)
    reply = await model.complete("scripted/script.jsonl", MESSAGES, [])
    assert reply.text == "in time"
    assert len(sleeps.delays) == 1


async def test_cancellation_mid_stream_stops_and_closes_the_stream(tmp_path: Path) -> None:
    words = " ".join(f"word{n}" for n in range(400))
    write_script(tmp_path, {"text": words, "chunkDelay": 0.05})
    received: list[str] = []
    first_chunk = asyncio.Event()

    def on_text(piece: str) -> None:
        received.append(piece)
        first_chunk.set()

    task = asyncio.create_task(
        runtime(tmp_path).complete("scripted/script.jsonl", MESSAGES, [], on_text=on_text)
    )
    await first_chunk.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert task.cancelled()
    assert open_streams() == 0
    delivered = len(received)
    await asyncio.sleep(0.2)
    assert len(received) == delivered
    assert 0 < len("".join(received)) < len(words)


async def test_relative_and_absolute_script_paths(tmp_path: Path) -> None:
    (tmp_path / "scripts").mkdir()
    script = write_script(tmp_path / "scripts", {"text": "one"}, {"text": "two"})
    model = runtime(tmp_path)
    assert model.resolve_model("scripted/scripts/script.jsonl") == f"scripted/{script}"
    assert model.resolve_model("openai/gpt-4o") == "openai/gpt-4o"
    first = await model.complete("scripted/scripts/script.jsonl", MESSAGES, [])
    second = await model.complete(f"scripted/{script}", MESSAGES, [])
    assert (first.text, second.text) == ("one", "two")


async def test_a_bad_script_line_names_the_line(tmp_path: Path) -> None:
    write_script(tmp_path, {"text": "fine"}, {"txet": "typo"})
    with pytest.raises(ModelError, match=r"line 2: txet: Extra inputs are not permitted"):
        await runtime(tmp_path).complete("scripted/script.jsonl", MESSAGES, [])


async def test_a_missing_script_is_a_model_error(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="cannot read"):
        await runtime(tmp_path).complete("scripted/missing.jsonl", MESSAGES, [])


async def test_an_empty_model_name_is_a_model_error(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="no model configured"):
        await runtime(tmp_path).complete("  ", MESSAGES, [])


async def test_tool_schemas_reach_the_provider_and_are_counted(tmp_path: Path) -> None:
    tools = [{"type": "function", "function": {"name": "goal", "parameters": {"type": "object"}}}]
    write_script(tmp_path, {"text": "a"}, {"text": "a"})
    model = runtime(tmp_path)
    without = await model.complete("scripted/script.jsonl", MESSAGES, [])
    with_tools = await model.complete("scripted/script.jsonl", MESSAGES, tools)
    assert with_tools.usage.input_tokens > without.usage.input_tokens
