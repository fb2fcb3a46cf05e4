"""Cache-stable context end to end: a real turn through litellm's `openai/` provider and the
local OpenAI-compatible server, every request recorded on the wire.

Each call must repeat the previous call's request byte for byte up to its
tail (the one message rebuilt every call), so the provider serves it from
its cache; a fold of the last messages keeps everything before it; a
compaction call repeats the session's prefix and adds one instruction; the
cached tokens the provider reports end up next to the prediction.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cairn.agent.engine import Engine
from cairn.compaction.narrative import COMPACTION_INSTRUCTION
from cairn.models.diagnostics import Diagnostic, Position, Range
from cairn.models.messages import CompactionPart
from cairn.settings import Settings
from tests.fakes.openai_server import OpenAIServer, RecordedRequest, Reply

MODEL = "openai/fixture-model"
RULES = "# Rules\n" + "".join(f"- rule {i}: keep the code tidy and tested.\n" for i in range(60))
MODULE = "".join(f"def f{i}(x):\n    return x + {i}\n\n" for i in range(80))


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[OpenAIServer]:
    with OpenAIServer() as running:
        monkeypatch.setenv("OPENAI_API_BASE", running.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        yield running


def workspace(root: Path) -> None:
    (root / "AGENTS.md").write_text(RULES)
    (root / "mod.py").write_text(MODULE)
    (root / "notes.txt").write_text("".join(f"note {i}: about the module\n" for i in range(120)))


def engine_on(root: Path, **settings: Any) -> Engine:
    options: dict[str, Any] = {
        "model": MODEL,
        "context_window": 60_000,
        "max_output_tokens": 1_000,
        "allowed_commands": [],
        **settings,
    }
    return Engine([root], Settings.model_validate(options))


def main_requests(server: OpenAIServer) -> list[RecordedRequest]:
    return [r for r in server.requests if not _is_compaction(r)]


def _is_compaction(request: RecordedRequest) -> bool:
    last = request.messages[-1] if request.messages else {}
    return last.get("content") == COMPACTION_INSTRUCTION or "Conversation" in str(
        last.get("content")
    )


def without_tail(request: RecordedRequest) -> list[dict[str, Any]]:
    """The request's messages bar the last one when it is the tail."""
    messages = request.messages
    if messages and str(messages[-1].get("content", "")).startswith("[Harness context"):
        return messages[:-1]
    return messages


def test_consecutive_calls_repeat_the_previous_request_up_to_its_tail(
    tmp_path: Path, server: OpenAIServer
) -> None:
    workspace(tmp_path)
    engine = engine_on(tmp_path)
    diagnostic = Diagnostic(
        range=Range(start=Position(line=3, character=0), end=Position(line=3, character=4)),
        message="DIAG-7 unused name",
        severity=2,
    )

    replies = [
        Reply(tool_calls=[call("goal", add="Read the module, Read the notes")]),
        Reply(tool_calls=[call("read_file", path="mod.py")]),
        Reply(text="All read."),
    ]

    def responder(request: RecordedRequest) -> Reply:
        if len(server.requests) == 2:
            # The editor reports a diagnostic while the second call is in flight.
            engine.workspace.set_diagnostics(tmp_path / "mod.py", [diagnostic])
        return replies.pop(0)

    server.responder = responder
    try:
        result = asyncio.run(engine.turn("Read mod.py and the notes."))
        assert result.finish_reason == "stop", result.error
        requests = main_requests(server)
        assert len(requests) == 3
        for before, after in itertools.pairwise(requests):
            prefix = without_tail(before)
            assert after.messages[: len(prefix)] == prefix  # byte-identical up to the tail
            assert after.body["tools"] == before.body["tools"]
            assert json.dumps(after.messages[: len(prefix)]) == json.dumps(prefix)
        # Only the tail carried the plan, then the plan and the new diagnostic.
        assert "Read the module" in str(requests[1].messages[-1]["content"])
        assert "DIAG-7" in str(requests[2].messages[-1]["content"])
        assert all(r.body.get("prompt_cache_key") == result.session_id for r in requests)
        manifests = engine.session(result.session_id).trace.manifests()
        assert [m.cache_break for m in manifests] == [None, None, None]
        later = manifests[1:]
        assert all(m.cache.predicted_cached > 0 for m in later)
        # The provider's figures are recorded next to the prediction...
        assert all(m.usage is not None and m.usage.cached_input_tokens > 0 for m in later)
        # ... in meta.json usage and in the stats of the call.
        meta = engine.session(result.session_id).meta()
        assert meta.usage.cached_input_tokens == sum(
            m.usage.cached_input_tokens for m in manifests if m.usage
        )
        stats = asyncio.run(engine.context_stats(result.session_id))
        assert stats.cache.cached_input == manifests[-1].usage.cached_input_tokens  # type: ignore[union-attr]
    finally:
        engine.close()


def test_a_fold_at_the_end_of_history_keeps_everything_before_it(
    tmp_path: Path, server: OpenAIServer
) -> None:
    workspace(tmp_path)
    engine = engine_on(tmp_path)
    server.queue(
        Reply(tool_calls=[call("read_file", path="notes.txt")]),
        Reply(tool_calls=[call("goal", add="Read the module")]),
        Reply(tool_calls=[call("goal", focus="1")]),
        Reply(tool_calls=[call("read_file", path="mod.py")]),
        Reply(tool_calls=[call("goal", done="mod.py defines f0..f79")]),
        Reply(text="Done."),
    )
    try:
        result = asyncio.run(engine.turn("Read the notes, then the module."))
        assert result.finish_reason == "stop", result.error
        requests = main_requests(server)
        before, after = requests[4], requests[5]
        prefix = without_tail(before)
        # The goal's first message: the read of mod.py made while goal 1 was focused.
        kept = next(i for i, m in enumerate(prefix) if "mod.py" in json.dumps(m.get("tool_calls")))
        # Everything before the goal's first message is sent again unchanged ...
        assert after.messages[:kept] == prefix[:kept]
        assert "notes.txt" in json.dumps(after.messages[:kept])
        # ... and the goal's messages are one fold message after them.
        folded = json.dumps(after.messages[kept:])
        assert "Goal 1 (Read the module) completed: mod.py defines f0..f79" in folded
        assert "return x + 79" not in folded
        manifests = engine.session(result.session_id).trace.manifests()
        assert manifests[5].cache_break == "fold goal 1"
        assert manifests[5].cache.predicted_cached > 0
    finally:
        engine.close()


def test_a_compaction_call_carries_the_sessions_prefix(
    tmp_path: Path, server: OpenAIServer
) -> None:
    workspace(tmp_path)
    for index in range(6):
        (tmp_path / f"part{index}.txt").write_text(
            "".join(f"part {index} line {n}: observation about the module\n" for n in range(90))
        )
    # The window leaves the prefix just room for the instruction (the built-in schemas count).
    engine = engine_on(tmp_path, context_window=9_650, prune_minimum=100_000)
    narrative = json.dumps({"objective": "read every part", "confirmed_facts": ["FACT-31"]})

    reads = [Reply(tool_calls=[call("read_file", path=f"part{i}.txt")]) for i in range(6)]

    def responder(request: RecordedRequest) -> Reply:
        if request.messages[-1].get("content") == COMPACTION_INSTRUCTION:
            return Reply(text=narrative)
        return reads.pop(0) if reads else Reply(text="Finished.")

    server.responder = responder
    try:
        result = asyncio.run(engine.turn("Read every part file."))
        assert result.finish_reason == "stop", result.error
        index = next(
            i
            for i, r in enumerate(server.requests)
            if r.messages[-1].get("content") == COMPACTION_INSTRUCTION
        )
        compaction, previous = server.requests[index], server.requests[index - 1]
        prefix = without_tail(previous)
        # The previous request's prefix, its new messages, then the one instruction.
        assert compaction.messages[: len(prefix)] == prefix
        assert compaction.body["tools"] == previous.body["tools"]
        assert compaction.body.get("prompt_cache_key") == result.session_id
        assert compaction.messages[-1] == {"role": "user", "content": COMPACTION_INSTRUCTION}
        tails = [m for m in compaction.messages if str(m.get("content", "")).startswith("[Harness")]
        assert tails == []
        summary = [
            p.summary
            for m in engine.session(result.session_id).messages()
            for p in m.parts
            if isinstance(p, CompactionPart) and p.summary is not None
        ]
        assert summary and "FACT-31" in summary[0].confirmed_facts
        manifests = engine.session(result.session_id).trace.manifests()
        assert any(m.cache_break == "summary" for m in manifests)
    finally:
        engine.close()
