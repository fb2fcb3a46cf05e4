"""The cache bench's peers (`bench/cache/replay.py`) replay through the shared OpenCode replay.

On a hand-made stream under a tight window: OpenCode's peer sends its own
compaction call (no tools, no breakpoints) and continues from its summary
exchange, marked on its first two and last two messages; the append-only
peer never prunes, repeats its context in its compaction call and
continues from one summary message, marked where Cairn marks.
"""

from __future__ import annotations

from bench.cache.breakdown import floor_parts
from bench.cache.replay import (
    APPEND_ONLY_INSTRUCTION,
    PeerName,
    Request,
    blocks,
    cairn_breakpoints,
    make_peer,
    peer_requests,
    units,
)
from bench.harness.opencode_replay import (
    COMPACTION_PROMPT,
    COMPACTION_SYSTEM,
    PRUNED_OUTPUT,
    SUMMARY_QUESTION,
    Chat,
)
from tests.unit.test_opencode_replay import _stream, _turn_calls, count

SYSTEM: list[Chat] = [{"role": "system", "content": "sys"}]
TOOLS: list[Chat] = [{"type": "function", "function": {"name": "read_file"}}]
# Tight enough to compact once in the stream's last turn; OpenCode's fixed thresholds.
LIMIT = 2_600


def _requests(name: PeerName) -> list[Request]:
    stream = _stream(attachments=True)
    peer = make_peer(name, SYSTEM, TOOLS, LIMIT, ["SUMMARY"], count)
    return peer_requests(name, peer, stream, _turn_calls(stream))


def _compaction(requests: list[Request]) -> int:
    kinds = [r.kind for r in requests]
    assert kinds.count("compaction") == 1
    return kinds.index("compaction")


def test_the_opencode_peer_compacts_with_its_own_call_and_marks_its_ends() -> None:
    requests = _requests("opencode")
    at = _compaction(requests)
    call, after = requests[at], requests[at + 1]
    assert call.messages[0]["content"] == COMPACTION_SYSTEM
    assert call.messages[-1]["content"] == COMPACTION_PROMPT
    assert call.tools == [] and call.breakpoints == ()
    question, summary = after.messages[1:3]
    assert after.messages[0] == SYSTEM[0] and question["content"] == SUMMARY_QUESTION
    assert summary == {"role": "assistant", "content": "SUMMARY"}
    last = len(after.messages) - 1
    assert after.breakpoints == (0, 1, last - 1, last) and after.tools == TOOLS


def test_the_append_only_peer_repeats_its_context_and_never_prunes() -> None:
    requests = _requests("append-only")
    at = _compaction(requests)
    call, after = requests[at], requests[at + 1]
    assert call.messages[-1] == {"role": "user", "content": APPEND_ONLY_INSTRUCTION}
    assert call.messages[: len(requests[at - 1].messages)] == requests[at - 1].messages
    assert call.tools == TOOLS and call.breakpoints == cairn_breakpoints(call.messages[:-1])
    assert after.messages == [*SYSTEM, {"role": "user", "content": "SUMMARY"}]
    assert after.breakpoints == cairn_breakpoints(after.messages)
    assert all(m.get("content") != PRUNED_OUTPUT for r in requests for m in r.messages)


def test_anthropic_blocks_carry_every_byte_of_each_message() -> None:
    """The Anthropic side prices the bytes the OpenAI side does: a tool result's call id and a
    tool call's role are in the blocks, so a re-sent history is read whole, not 5% short."""
    calls = [{"id": "call_7", "type": "function", "function": {"name": "read_file"}}]
    messages: list[Chat] = [
        *SYSTEM,
        {"role": "user", "content": "read it"},
        {"role": "assistant", "content": None, "tool_calls": calls},
        {"role": "tool", "tool_call_id": "call_7", "content": "x = 1"},
    ]
    first = Request(messages, TOOLS, (0, 3), 0.0)
    keys = [b.key for b in blocks(first, count)]
    assert any('"tool_call_id": "call_7"' in k and '"x = 1"' in k for k in keys)
    assert any('"role": "assistant"' in k and "read_file" in k for k in keys)


def test_the_cost_floor_counts_what_was_sent_before_and_what_is_sent_again() -> None:
    a: Chat = {"role": "user", "content": "a"}
    b: Chat = {"role": "assistant", "content": "b"}
    c: Chat = {"role": "user", "content": "c"}
    stream = [Request([a], TOOLS, (), 0.0), Request([a, b], TOOLS, (), 1.0)]
    stream.append(Request([a, c], TOOLS, (), 2.0))
    before, new, again = floor_parts(stream, count)
    first = [count(u) for u in units(stream[0])]  # the tools, then a
    assert before == 2 * sum(first)  # requests 2 and 3 repeat the tools and a
    assert new == sum(first) + count(units(stream[1])[-1]) + count(units(stream[2])[-1])
    assert again == sum(first)  # b and c are never sent again
