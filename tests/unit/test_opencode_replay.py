"""The benches' OpenCode replay (`bench/harness/opencode_replay.py`) follows OpenCode's policy.

The prune walk on hand-made streams (the protect and minimum boundaries,
the two-turn skip, the stop at an output already cleared), the cleared
output's text, the thresholds' scaling, and the replay loop: a prune after
a finished turn that skips the two newest finished turns even when Cairn
records its own messages after the user's, a compaction at overflow headed
by OpenCode's summary exchange, and a later walk bounded by it.
"""

from __future__ import annotations

from bench.harness.opencode_replay import (
    CONTINUE_MESSAGE,
    PRUNED_OUTPUT,
    SUMMARY_QUESTION,
    CallPoint,
    Chat,
    OpenCode,
    Peer,
    conversation,
    prune,
    replay,
    scaled_thresholds,
)
from cairn.models.messages import (
    FilePart,
    Message,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)


def _user(text: str) -> Message:
    return Message(id=f"u-{text}", role="user", parts=[TextPart(text=text)])


def _read(call_id: str, size: int) -> list[Message]:
    call = ToolCallPart(call_id=call_id, name="read_file", arguments={"path": call_id})
    result = ToolResultPart(call_id=call_id, name="read_file", output="x" * size)
    return [
        Message(id=f"a-{call_id}", role="assistant", parts=[call]),
        Message(id=f"t-{call_id}", role="tool", parts=[result]),
    ]


def _attachment(turn: int) -> Message:
    """A harness record Cairn appends after the user's message (role system)."""
    part = FilePart(path="notes.md", hash=f"h{turn}", text="notes", source="buffer")
    return Message(id=f"s-{turn}", role="system", parts=[part])


# Five turns; turn 1 reads b then c. Outputs by size (count = characters):
# a 100 | b 200, c 50 | d 300 | e 1000 | f 1000
TURNS: list[list[tuple[str, int]]] = [
    [("a", 100)],
    [("b", 200), ("c", 50)],
    [("d", 300)],
    [("e", 1000)],
    [("f", 1000)],
]


def _stream(attachments: bool = False, turns: list[list[tuple[str, int]]] = TURNS) -> list[Message]:
    out: list[Message] = []
    for turn, reads in enumerate(turns):
        out.append(_user(f"turn {turn}"))
        if attachments:
            out.append(_attachment(turn))
        for call_id, size in reads:
            out += _read(call_id, size)
    return out


def count(text: str) -> int:
    return len(text)


def test_the_walk_skips_the_last_two_turns_and_protects_the_newest_outputs() -> None:
    # Walking back past turns 4 and 3: d 300, c 350, b 550, a 650 (running totals).
    stream = _stream()
    # Everything outside the last two turns, never e or f.
    assert prune(stream, set(), protect=0, minimum=0, count=count) == {"a", "b", "c", "d"}
    # A total equal to protect is protected (d at 300); c, b, a free 350 > 349.
    assert prune(stream, set(), protect=300, minimum=349, count=count) == {"a", "b", "c"}
    # Freeing exactly the minimum is not enough: nothing changes.
    assert prune(stream, set(), protect=300, minimum=350, count=count) == set()
    # c reaches 350 = protect and stays; b and a free 300.
    assert prune(stream, set(), protect=350, minimum=299, count=count) == {"a", "b"}
    # Only a passes a protect of 550; 100 freed is under a minimum of 100.
    assert prune(stream, set(), protect=550, minimum=100, count=count) == set()
    assert prune(stream, set(), protect=550, minimum=99, count=count) == {"a"}


def test_the_walk_stops_at_an_output_already_cleared() -> None:
    # d and c (350 freed) are marked before b, already cleared, stops the walk short of a.
    assert prune(_stream(), {"b"}, protect=0, minimum=0, count=count) == {"b", "c", "d"}
    # What the walk saw before the stop does not pass the minimum: the set is unchanged.
    assert prune(_stream(), {"b"}, protect=0, minimum=350, count=count) == {"b"}


def test_cleared_outputs_are_sent_as_opencode_placeholder() -> None:
    tools = [m["content"] for m in conversation(_stream(), {"a"}) if m["role"] == "tool"]
    assert tools[:2] == [PRUNED_OUTPUT, "x" * 200]


def test_thresholds_scale_with_the_window() -> None:
    assert scaled_thresholds(200_000) == (40_000, 20_000)
    assert scaled_thresholds(50_000) == (10_000, 5_000)


def _size(messages: list[Chat], tools: list[Chat]) -> int:
    del tools
    return sum(len(str(m.get("content") or "")) for m in messages)


def _peer(limit: int, protect: int = 0, minimum: int = 0) -> Peer:
    system: list[Chat] = [{"role": "system", "content": "sys"}]
    policy = OpenCode(count, protect, minimum)
    return Peer(policy, system, [], limit, ["SUMMARY"], _size)


def _turn_calls(stream: list[Message]) -> list[CallPoint]:
    """A call after each user message and its attachment, and one at the end."""
    starts = [i for i, m in enumerate(stream) if m.role == "user"]
    return [CallPoint(s + 2) for s in starts] + [CallPoint(len(stream))]


def _cleared(messages: list[Chat]) -> list[str]:
    return [m["tool_call_id"] for m in messages if m.get("content") == PRUNED_OUTPUT]


def test_the_prune_after_a_turn_skips_two_finished_turns_despite_harness_records() -> None:
    stream = _stream(attachments=True)
    out = replay(_peer(limit=100_000), stream, _turn_calls(stream))
    last_turn_start = out.sent[4].messages
    # Finished turns 0-3 at turn 4's first call: 3 and 2 skipped, a, b, c cleared.
    assert sorted(_cleared(last_turn_start)) == ["a", "b", "c"]
    assert out.prunes == 2 and out.compaction_tokens == [] and out.over_budget == 0


def test_the_replay_compacts_at_overflow_and_walks_only_what_followed() -> None:
    stream = _stream(attachments=True)
    calls = _turn_calls(stream)
    roomy = replay(_peer(limit=100_000, protect=10_000), stream, calls)
    assert roomy.compaction_tokens == []
    tight = replay(_peer(limit=1_500, protect=10_000), stream, calls)
    compaction = [s for s in tight.sent if s.kind == "compaction"]
    assert compaction and compaction[0].tools == []
    after = tight.sent[tight.sent.index(compaction[0]) + 1].messages
    assert [m["content"] for m in after[1:]] == [SUMMARY_QUESTION, "SUMMARY", CONTINUE_MESSAGE]
    assert max(tight.main_tokens) <= 1_500 and tight.over_budget == 0
    assert sum(tight.main_tokens) < sum(roomy.main_tokens)


def test_a_prune_after_a_compaction_does_not_count_what_the_summary_covers() -> None:
    # p (500) overflows a limit of 400 at turn 1's first call: the summary covers turn 0.
    # At turn 4's first call the walk since the summary skips turns 3 and 2 and finds q
    # (10), under the minimum of 50; counting p too (510) would clear q.
    turns = [[("p", 500)], [("q", 10)], [("r", 10)], [("s", 10)], [("t", 10)]]
    stream = _stream(attachments=True, turns=turns)
    out = replay(_peer(limit=400, minimum=50), stream, _turn_calls(stream))
    kinds = [s.kind for s in out.sent]
    assert kinds == ["main", "compaction", "main", "main", "main", "main", "main"]
    turn_four = out.sent[5].messages
    assert {"role": "tool", "tool_call_id": "q", "content": "x" * 10} in turn_four
    assert all(_cleared(s.messages) == [] for s in out.sent) and out.prunes == 0
