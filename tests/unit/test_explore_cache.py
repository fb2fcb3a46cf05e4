"""Explore branches share the parent's prompt cache: on the wire, through litellm's `openai/`
provider and the local OpenAI-compatible server.

A branch's first request repeats its parent's last request byte for byte up to
that request's tail (the same tools array, system, preamble and history), then
adds the explore call's result and the branch's task, so the provider reads
the parent's prefix from its cache; the branch is offered the parent's tools
and a write call it makes is refused when it arrives, with a result that says
why. With a background, a branch repeats the tools, system and preamble only.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cairn.agent.turn.explore import BACKGROUND_BREAK, INSTRUCTION
from cairn.models.messages import ToolResultPart
from cairn.trace import Trace
from tests.fakes.http_engine import KEY_VALUE, KEY_VARIABLE, chat_requests, http_engine
from tests.fakes.openai_server import OpenAIServer, RecordedRequest, Reply
from tests.fakes.timing import FakeTime

BRANCHES = ["check the sign", "check the types", "check the callers"]
MODULE = "".join(f"def f{i}(x):\n    return x + {i}\n\n" for i in range(150))


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


def branch_of(request: RecordedRequest) -> str | None:
    """The branch whose request this is (its task is a user message), else None."""
    for message in request.messages:
        content = message.get("content")
        if message.get("role") == "user" and str(content or "").startswith(INSTRUCTION):
            return str(content)[len(INSTRUCTION) :]
    return None


class Script:
    """The parent reads two files and explores; each branch reads, tries an edit, concludes."""

    def __init__(self, background: str | None) -> None:
        explore = call("explore", branches=BRANCHES)
        if background is not None:
            explore["arguments"]["background"] = background
        self.parent = [
            Reply(tool_calls=[call("read_file", path="mod.py")]),
            Reply(tool_calls=[call("read_file", path="notes.txt")]),
            Reply(text="Exploring.", tool_calls=[explore]),
            Reply(text="Done."),
        ]
        self.steps: dict[str, int] = {}
        # The index (in the server's requests) of the parent's request that asked to explore.
        self.explore_request: int | None = None
        self.seen = 0

    def __call__(self, request: RecordedRequest) -> Reply:
        self.seen += 1
        branch = branch_of(request)
        if branch is None:
            if len(self.parent) == 2:
                self.explore_request = self.seen - 1
            return self.parent.pop(0)
        step = self.steps.get(branch, 0)
        self.steps[branch] = step + 1
        if step == 0:
            return Reply(tool_calls=[call("edit_file", path="mod.py", old="x + 1", new="x - 1")])
        if step == 1:
            return Reply(tool_calls=[call("read_file", path="mod.py", start_line=1, end_line=9)])
        return Reply(text=f"{branch}: nothing wrong.")


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    with OpenAIServer() as running:
        yield running


@pytest.fixture(autouse=True)
def key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_VARIABLE, KEY_VALUE)


def workspace(root: Path) -> None:
    (root / "AGENTS.md").write_text("# Rules\n- keep it tidy\n")
    (root / "mod.py").write_text(MODULE)
    (root / "notes.txt").write_text("".join(f"note {i}: about the module\n" for i in range(200)))


async def explore_session(
    server: OpenAIServer, root: Path, background: str | None
) -> tuple[Script, list[RecordedRequest], Trace]:
    workspace(root)
    script = Script(background)
    server.responder = script
    engine = http_engine(server, root, fake=FakeTime(), context_window=60_000)
    try:
        result = await engine.turn("why does f1 misbehave?")
        assert result.finish_reason == "stop", result.error
        return script, chat_requests(server), engine.session(result.session_id).trace
    finally:
        engine.close()


def first_branch_requests(requests: list[RecordedRequest]) -> dict[str, RecordedRequest]:
    firsts: dict[str, RecordedRequest] = {}
    for request in requests:
        branch = branch_of(request)
        if branch is not None:
            firsts.setdefault(branch, request)
    return firsts


async def test_a_branch_request_starts_with_its_parents_last_request(
    server: OpenAIServer, tmp_path: Path
) -> None:
    script, requests, trace = await explore_session(server, tmp_path, None)
    assert script.explore_request is not None
    parent = requests[script.explore_request]
    shared = len(parent.messages) - 1  # all of it but its tail
    firsts = first_branch_requests(requests)
    assert sorted(firsts) == sorted(BRANCHES)
    for branch, request in firsts.items():
        assert request.body["tools"] == parent.body["tools"], branch
        assert request.messages[:shared] == parent.messages[:shared], branch
        # Then the reply that called explore, the call's result in the branch, the task.
        reply, result, task = request.messages[shared : shared + 3]
        assert [c["function"]["name"] for c in reply["tool_calls"]] == ["explore"]
        assert result["role"] == "tool" and "explore branch" in result["content"]
        assert task["content"] == INSTRUCTION + branch
    for name in trace.branches():
        branch_trace = trace.existing_branch(name)
        assert branch_trace is not None
        first = branch_trace.manifests()[0]
        assert first.cache_break is None  # the parent's prefix, intact
        assert first.cache.predicted_cached > 0


async def test_a_write_call_from_a_branch_is_refused_when_it_arrives(
    server: OpenAIServer, tmp_path: Path
) -> None:
    _, requests, trace = await explore_session(server, tmp_path, None)
    assert (tmp_path / "mod.py").read_text() == MODULE
    for name in trace.branches():
        branch_trace = trace.existing_branch(name)
        assert branch_trace is not None
        results = [
            p for m in branch_trace.messages() for p in m.parts if isinstance(p, ToolResultPart)
        ]
        [edit] = [r for r in results if r.name == "edit_file"]
        assert not edit.ok
        assert "not available in a read-only explore branch" in edit.output
        assert "read_file" in edit.output  # what the branch can do instead
        # The branch went on reading after the refusal, and concluded.
        assert any(r.name == "read_file" and r.ok for r in results[-2:])
    explore_result = next(
        p
        for m in trace.messages()
        for p in m.parts
        if isinstance(p, ToolResultPart) and p.name == "explore"
    )
    report = json.loads(explore_result.output)["branches"]
    assert [b["status"] for b in report] == ["completed"] * 3
    # A branch's evidence is what it read itself, not the parent's reads it was seeded with.
    assert all(b["evidence"] == ["mod.py"] for b in report)
    assert len(requests) == 4 + 3 * 3


async def test_a_branch_with_a_background_starts_after_the_parents_preamble(
    server: OpenAIServer, tmp_path: Path
) -> None:
    script, requests, trace = await explore_session(server, tmp_path, "f1 adds one.")
    assert script.explore_request is not None
    parent = requests[script.explore_request]
    assert [m["role"] for m in parent.messages[:2]] == ["system", "system"]
    for branch, request in first_branch_requests(requests).items():
        assert request.body["tools"] == parent.body["tools"], branch
        assert request.messages[:2] == parent.messages[:2], branch
        assert "f1 adds one." in request.messages[2]["content"]
    for name in trace.branches():
        branch_trace = trace.existing_branch(name)
        assert branch_trace is not None
        assert branch_trace.manifests()[0].cache_break == BACKGROUND_BREAK
