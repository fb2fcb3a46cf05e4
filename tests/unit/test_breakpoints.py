"""Prompt-cache breakpoints where the re-sent bytes end (`cairn.context.breakpoints`), priced
under Anthropic's rule (`tests.fakes.prompt_cache.AnthropicCache`: a prefix is cached only at
a breakpoint, read at one or up to 20 blocks before it), and recorded per call in the manifest
with what each should read and write (a session over litellm's `anthropic/` provider and the
local server's `POST /v1/messages`)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from cairn.agent.engine import Engine
from cairn.context.breakpoints import MAX_BREAKPOINTS, Boundary, Mark, place, served
from cairn.settings import Settings
from tests.fakes.openai_server import OpenAIServer, Reply
from tests.fakes.prompt_cache import AnthropicCache, PromptBlock
from tests.unit.test_cache_hints import content_blocks

# Each history entry: a reply calling a tool and its result (two blocks), 300 tokens.
ENTRY_TOKENS = 300
TOOLS, SYSTEM, PREAMBLE = 2_000, 500, 3_000


def boundaries(entries: int, summary: bool = False) -> list[Boundary]:
    """System, preamble, [summary], then `entries` history entries (a reply and its result)."""
    out = [
        Boundary(0, "system", TOOLS + SYSTEM, 9),
        Boundary(1, "preamble", TOOLS + SYSTEM + PREAMBLE, 10),
    ]
    tokens, blocks, message = out[-1].tokens, out[-1].blocks, 1
    if summary:
        tokens, blocks, message = tokens + 800, blocks + 1, message + 1
        out.append(Boundary(message, "summary", tokens, blocks))
    for _ in range(entries):
        tokens, blocks, message = tokens + ENTRY_TOKENS, blocks + 2, message + 2
        out.append(Boundary(message, "history", tokens, blocks))
    return out


def prompt(bounds: list[Boundary], marks: list[Mark], version: dict[int, str]) -> list[PromptBlock]:
    """The request as Anthropic's cache sees it: one block per boundary (its tokens since the
    previous one), marked where `marks` are; `version` names changed content per boundary."""
    marked = {m.boundary.message for m in marks}
    out: list[PromptBlock] = []
    before = 0
    for b in bounds:
        key = f"{b.kind}:{b.message}:{version.get(b.message, 'v1')}"
        out.append(PromptBlock(key, b.tokens - before, b.message in marked))
        before = b.tokens
    return out


def test_steady_calls_read_the_previous_call_at_the_last_history_mark() -> None:
    now = boundaries(30)
    shared = now[-2].tokens  # the previous call sent all but the newest entry
    marks = place(now, shared)
    assert [m.kind for m in marks] == ["system", "preamble", "history"]
    rows = served(marks, now, shared)
    assert [(r.ends, r.reads) for r in rows] == [
        ("system", 0),
        ("preamble", 0),
        ("history", shared),
    ]
    assert rows[-1].writes == ENTRY_TOKENS


def test_a_change_deep_in_the_history_is_read_up_to_where_it_starts() -> None:
    cache = AnthropicCache()
    # 40 calls, each one entry longer (each marks its last entry, as Cairn does).
    for entries in range(1, 41):
        bounds = boundaries(entries)
        previous = bounds[-2].tokens if entries > 1 else None
        cache.account(prompt(bounds, place(bounds, previous), {}), float(entries))
    # A prune rewrites entry 6 on (message 13 on): 35 entries (70 blocks) before the newest.
    after = boundaries(41)
    changed = {b.message: "pruned" for b in after if b.message >= 13}
    shared = next(b for b in after if b.message == 11).tokens
    marks = place(after, shared)
    assert [m.kind for m in marks] == ["system", "preamble", "resent", "history"]
    use = cache.account(prompt(after, marks, changed), 41.0)
    assert use.read == shared
    rows = served(marks, after, shared)
    assert [r.reads for r in rows] == [0, 0, shared, 0]
    # Without the mark, only the preamble would be read: the history written again.
    old = [m for m in marks if m.kind != "resent"]
    again = AnthropicCache(entries=dict(cache.entries))
    assert again.account(prompt(after, old, {**changed, 41: "x"}), 41.0).read < shared


def test_at_most_four_marks_the_earliest_structural_one_dropped_first() -> None:
    now = boundaries(40, summary=True)
    shared = now[5].tokens
    marks = place(now, shared)
    assert len(marks) == MAX_BREAKPOINTS
    assert [m.kind for m in marks] == ["preamble", "summary", "resent", "history"]


ANTHROPIC_MODEL = "anthropic/claude-sonnet-4-5"


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[OpenAIServer]:
    with OpenAIServer() as running:
        monkeypatch.setenv("ANTHROPIC_API_BASE", running.root_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
        yield running


def test_each_manifest_says_which_breakpoint_should_serve_how_much(
    tmp_path: Path, server: OpenAIServer
) -> None:
    (tmp_path / "AGENTS.md").write_text("# Rules\n" + "- keep it tidy\n" * 200)
    (tmp_path / "mod.py").write_text("def f():\n    return 1\n" * 50)
    engine = Engine(
        [tmp_path],
        Settings.model_validate({"model": ANTHROPIC_MODEL, "max_output_tokens": 1_000}),
    )
    server.queue(
        Reply(tool_calls=[{"name": "read_file", "arguments": {"path": "mod.py"}}]),
        Reply(tool_calls=[{"name": "list_dir", "arguments": {}}]),
        Reply(text="Read it."),
    )
    try:
        result = asyncio.run(engine.turn("Read mod.py."))
        assert result.finish_reason == "stop", result.error
        manifests = engine.session(result.session_id).trace.manifests()
        for request, manifest in zip(server.requests, manifests, strict=True):
            marks = manifest.cache.breakpoints
            parts = [*request.body["system"], *content_blocks(request.body)]
            marked = sum(1 for part in parts if part.get("cache_control"))
            assert len(marks) == marked  # one manifest entry per cache_control on the wire
            assert [b.tokens for b in marks] == sorted(b.tokens for b in marks)
        first, *later = manifests
        assert all(b.reads == 0 for b in first.cache.breakpoints)
        for manifest in later:
            [reader] = [b for b in manifest.cache.breakpoints if b.reads]
            assert reader.ends == "history" and reader.reads == manifest.cache.predicted_cached
            assert manifest.usage is not None and manifest.usage.cached_input_tokens > 0
    finally:
        engine.close()
