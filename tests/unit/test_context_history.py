"""History rendering: compaction markers (prune, goal fold, summary), pairing, the user message."""

from __future__ import annotations

from typing import Literal

from cairn.context.blocks import Candidate
from cairn.context.history import render_history, turn_user_message_id
from cairn.context.shown_messages import NO_RESULT_TEXT, prune_stub
from cairn.context.sources.summary import SUMMARY_TITLE
from cairn.models.messages import (
    CompactionPart,
    Message,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from cairn.models.summary import SessionSummary
from cairn.tokens.counter import count_tokens

MODEL = "gpt-4o"


def count(text: str) -> int:
    return count_tokens(text, MODEL)


def user(mid: str, text: str) -> Message:
    return Message(id=mid, role="user", parts=[TextPart(text=text)])


def call(mid: str, call_id: str, name: str = "read_file", text: str = "") -> Message:
    parts: list = [TextPart(text=text)] if text else []
    parts.append(ToolCallPart(call_id=call_id, name=name, arguments={"path": "a.py"}))
    return Message(id=mid, role="assistant", parts=parts, goal_id="1")


def result(mid: str, call_id: str, output: str, artifact: str | None = None) -> Message:
    part = ToolResultPart(call_id=call_id, name="read_file", output=output, artifact_id=artifact)
    return Message(id=mid, role="tool", parts=[part], goal_id="1")


def marker(mid: str, part: CompactionPart) -> Message:
    return Message(id=mid, role="assistant", parts=[part])


def chat(candidates: list[Candidate]) -> list[dict]:
    return [m for c in candidates for m in (c.messages or [])]


def test_tool_call_and_its_results_are_one_block_in_openai_format() -> None:
    history = [
        user("u1", "read a.py"),
        call("a1", "c1", text="reading"),
        result("t1", "c1", "x = 1"),
    ]
    view = render_history(history, "read a.py", count, user_message_id="u1")
    blocks = view.candidates
    assert [c.block.source for c in blocks] == ["user", "history"]
    pair = blocks[1].messages
    assert pair == [
        {
            "role": "assistant",
            "content": "reading",
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "read_file", "arguments": '{"path": "a.py"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "x = 1"},
    ]


def test_a_call_without_result_gets_a_synthetic_reply_and_orphan_results_are_dropped() -> None:
    history = [user("u1", "go"), call("a1", "c1"), result("t0", "c-unknown", "stray")]
    messages = chat(render_history(history, "go", count, user_message_id="u1").candidates)
    assert {"role": "tool", "tool_call_id": "c1", "content": NO_RESULT_TEXT} in messages
    assert all(m.get("tool_call_id") != "c-unknown" for m in messages)


def test_pruned_tool_results_are_shown_as_stubs() -> None:
    output = "line\n" * 300
    history = [
        user("u1", "go"),
        call("a1", "c1"),
        result("t1", "c1", output, artifact="art-7"),
        marker("p1", CompactionPart(kind="prune", pruned_call_ids=["c1"])),
    ]
    messages = chat(render_history(history, "go", count, user_message_id="u1").candidates)
    tool = next(m for m in messages if m["role"] == "tool")
    assert tool["content"] == prune_stub(count(output), "art-7")
    assert tool["content"] == (
        f'[output pruned: {count(output)} tokens; read_file("artifact:art-7") shows it again]'
    )


def test_goal_fold_replaces_covered_messages_by_one_message_in_place() -> None:
    history = [
        user("u1", "fix it"),
        call("a1", "c1"),
        result("t1", "c1", "content"),
        marker(
            "g1",
            CompactionPart(
                kind="goal", covers=["a1", "t1"], goal_id="1", text="Goal 1 completed: read a.py"
            ),
        ),
        Message(id="a2", role="assistant", parts=[TextPart(text="next step")]),
    ]
    view = render_history(history, "fix it", count, user_message_id="u1")
    messages = chat(view.candidates)
    assert messages == [
        {"role": "user", "content": "fix it"},
        {"role": "assistant", "content": "Goal 1 completed: read a.py"},
        {"role": "assistant", "content": "next step"},
    ]
    fold = view.candidates[1].block
    assert fold.ref == "goal 1"
    assert view.compaction.count == 1


def test_a_fold_covered_by_a_parent_fold_is_not_shown() -> None:
    history = [
        user("u1", "go"),
        call("a1", "c1"),
        result("t1", "c1", "x"),
        marker(
            "g2", CompactionPart(kind="goal", covers=["a1", "t1"], goal_id="1.1", text="child done")
        ),
        marker(
            "g1",
            CompactionPart(kind="goal", covers=["a1", "t1", "g2"], goal_id="1", text="parent done"),
        ),
    ]
    contents = [
        m["content"]
        for m in chat(render_history(history, "go", count, user_message_id="u1").candidates)
    ]
    assert contents == ["go", "parent done"]


def test_summary_replaces_everything_up_to_its_watermark() -> None:
    summary = SessionSummary(objective="ship the fix", covered_until_message_id="t1")
    history = [
        user("u1", "first task"),
        call("a1", "c1"),
        result("t1", "c1", "old output"),
        marker("s1", CompactionPart(kind="summary", summary=summary)),
        user("u2", "second task"),
    ]
    view = render_history(history, "second task", count, user_message_id="u2")
    messages = chat(view.candidates)
    assert messages[0]["role"] == "user"
    assert messages[0]["content"].startswith(SUMMARY_TITLE)
    assert "Objective: ship the fix" in messages[0]["content"]
    # Every covered message is gone but the last user message, kept right after the summary.
    assert [m["content"] for m in messages[1:]] == ["first task", "second task"]
    assert "old output" not in str(messages)
    assert view.compaction.watermark == "t1"
    assert view.compaction.summary_tokens == view.candidates[0].block.tokens > 0
    assert view.candidates[0].block.source == "summary"


def test_the_latest_summary_supersedes_earlier_ones() -> None:
    first = SessionSummary(objective="old", covered_until_message_id="u1")
    second = SessionSummary(objective="new", covered_until_message_id="u2")
    history = [
        user("u1", "a"),
        marker("s1", CompactionPart(kind="summary", summary=first)),
        user("u2", "b"),
        marker("s2", CompactionPart(kind="summary", summary=second)),
        user("u3", "c"),
    ]
    messages = chat(render_history(history, "c", count, user_message_id="u3").candidates)
    assert "Objective: new" in messages[0]["content"]
    assert [m["content"] for m in messages[1:]] == ["b", "c"]  # u2: the newest one covered


def test_the_user_message_a_summary_covers_stays_after_it_in_later_turns() -> None:
    summary = SessionSummary(objective="o", covered_until_message_id="t1")
    turn = [
        user("u1", "the task"),
        call("a1", "c1"),
        result("t1", "c1", "output"),
        marker("s1", CompactionPart(kind="summary", summary=summary)),
    ]
    during = render_history(turn, "the task", count, user_message_id="u1").candidates
    [kept] = [c for c in during if c.block.source == "user"]
    assert kept.block.required and kept.block.ref == "u1"
    after = render_history(
        [*turn, user("u2", "next")], "next", count, user_message_id="u2"
    ).candidates
    # The same bytes at the same place: the summary segment is not rewritten by a new turn.
    assert chat(after)[: len(chat(during))] == chat(during)
    assert next(c for c in after if c.block.ref == "u1").block.source == "history"


def test_recorded_user_message_is_the_required_block_and_never_duplicated() -> None:
    history = [user("u1", "do it"), call("a1", "c1"), result("t1", "c1", "ok")]
    view = render_history(history, "do it", count, user_message_id="u1")
    users = [c for c in view.candidates if c.block.source == "user"]
    assert len(users) == 1 and users[0].block.required and users[0].block.ref == "u1"
    assert sum(1 for m in chat(view.candidates) if m["role"] == "user") == 1


def test_unrecorded_user_message_is_appended_last() -> None:
    history = [
        user("u1", "earlier"),
        Message(id="a1", role="assistant", parts=[TextPart(text="done")]),
    ]
    view = render_history(history, "now this", count)
    assert view.candidates[-1].block.source == "user"
    assert chat(view.candidates)[-1] == {"role": "user", "content": "now this"}


def test_the_current_user_message_is_found_by_its_id_not_by_its_text() -> None:
    history = [user("u1", "go on"), call("a1", "c1"), result("t1", "c1", "ok")]
    dry = render_history(history, "go on", count)  # not recorded: no id, shown last
    assert (dry.candidates[0].block.source, dry.candidates[0].block.ref) == ("history", "u1")
    assert dry.candidates[-1].block.source == "user" and dry.candidates[-1].block.ref is None
    again = [*history, user("u2", "go on")]
    view = render_history(again, "go on", count, user_message_id="u2")
    [current] = [c for c in view.candidates if c.block.source == "user"]
    assert current.block.ref == "u2" and current.block.required


def test_a_turns_user_message_is_the_first_user_message_recorded_in_it() -> None:
    def stamped(mid: str, role: Literal["user", "system"], turn: str | None) -> Message:
        return Message(id=mid, role=role, parts=[TextPart(text=mid)], turn_id=turn)

    messages = [
        stamped("u0", "user", "turn-0"),
        stamped("s1", "system", "turn-1"),
        stamped("u1", "user", "turn-1"),
        stamped("att", "user", "turn-1"),
    ]
    assert turn_user_message_id(messages, "turn-1") == "u1"
    assert turn_user_message_id(messages, "turn-2") is None
    assert turn_user_message_id(messages, None) is None


def test_a_summarised_current_user_message_is_shown_right_after_the_summary() -> None:
    summary = SessionSummary(objective="o", covered_until_message_id="t1")
    history = [
        user("u1", "the task"),
        call("a1", "c1"),
        result("t1", "c1", "x"),
        marker("s1", CompactionPart(kind="summary", summary=summary)),
        call("a2", "c2"),
        result("t2", "c2", "y"),
    ]
    view = render_history(history, "the task", count, user_message_id="u1")
    sources = [c.block.source for c in view.candidates]
    assert sources == ["summary", "user", "history"]
    assert view.candidates[1].block.required


def test_older_turns_get_lower_priority_and_old_tool_pairs_the_lowest() -> None:
    history = [
        user("u1", "one"),
        call("a1", "c1"),
        result("t1", "c1", "x"),
        user("u2", "two"),
        user("u3", "three"),
    ]
    view = render_history(history, "three", count, user_message_id="u3")
    by_ref = {c.block.ref: c.block.priority for c in view.candidates}
    assert by_ref["a1"] < by_ref["u1"] < by_ref["u2"]


def test_a_shown_call_keeps_its_result_even_when_a_fold_covers_the_result() -> None:
    history = [
        user("u1", "go"),
        call("a1", "c1"),
        result("t1", "c1", "the output"),
        marker("g1", CompactionPart(kind="goal", covers=["t1"], goal_id="1", text="folded")),
    ]
    messages = chat(render_history(history, "go", count, user_message_id="u1").candidates)
    assert {"role": "tool", "tool_call_id": "c1", "content": "the output"} in messages
