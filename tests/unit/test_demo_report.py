"""The demo's compaction report on hand-made histories: grouped by turn and kind, freed adds
up, and what each kind kept is read from its markers."""

from __future__ import annotations

from cairn.commands.demo_report import compaction_report, newer_messages, turn_numbers
from cairn.models import summary as records
from cairn.models.events import CompactionEvent
from cairn.models.messages import CompactionPart, Message, TextPart, ToolResultPart


def user(mid: str, turn: str) -> Message:
    return Message(id=mid, role="user", parts=[TextPart(text="go")], turn_id=turn)


def result(mid: str, turn: str, call: str, name: str, goal: str | None = None) -> Message:
    part = ToolResultPart(call_id=call, name=name, output="x" * 10, artifact_id=f"a-{call}")
    return Message(id=mid, role="tool", parts=[part], turn_id=turn, goal_id=goal)


def marker(mid: str, turn: str, part: CompactionPart) -> Message:
    return Message(id=mid, role="system", parts=[part], turn_id=turn)


def history() -> list[Message]:
    fold = CompactionPart(kind="goal", covers=["r2"], tokens_before=900, tokens_after=700)
    prune = CompactionPart(
        kind="prune", pruned_call_ids=["c1", "c3"], tokens_before=1000, tokens_after=600
    )
    summary = records.SessionSummary(
        objective="fix it",
        confirmed_facts=["a", "b"],
        decisions=[records.Decision(decision="patch", reason="small")],
        tests=[records.TestRecord(command="pytest", status="failed")],
        covered_until_message_id="r1",
    )
    summarised = CompactionPart(
        kind="summary", summary=summary, tokens_before=1200, tokens_after=800
    )
    return [
        user("u1", "t1"),
        result("r1", "t1", "c1", "read_file"),
        result("r2", "t1", "c2", "read_file", goal="1"),
        marker("m1", "t1", fold),
        user("u2", "t2"),
        result("r3", "t2", "c3", "run_command"),
        user("u3", "t3"),
        marker("m2", "t3", prune),
        marker("m3", "t3", summarised),
    ]


def test_turns_are_numbered_in_order_of_appearance() -> None:
    assert turn_numbers(history()) == {"t1": 1, "t2": 2, "t3": 3}


def test_rows_per_turn_and_kind_with_what_each_kept() -> None:
    lines = compaction_report(history(), [])
    assert lines == [
        "  turn 1 · goal fold: 1 × (tokens 900→700; freed 200)",
        "      kept: 700 tokens, 1 goal result line in place of 1 message",
        "  turn 3 · prune: 1 × (tokens 1000→600; freed 400)",
        "      kept: 600 tokens, 2 stubs (read_file, run_command) naming the artifact"
        " that keeps each output",
        "  turn 3 · summary: 1 × (tokens 1200→800; freed 400)",
        "      kept: 800 tokens, the objective, 2 facts, 1 decision; ledger: 0 files read,"
        " 0 files changed, 1 test run, 0 goals; then 3 messages as they are",
    ]


def test_messages_shown_as_they_are_exclude_summarised_and_folded_ones() -> None:
    # u1 and r1 are under the summary's watermark, r2 is folded, markers never count.
    assert newer_messages(history()) == 3


def test_attempts_not_applied_are_listed_and_no_marker_says_none() -> None:
    failed = CompactionEvent(
        session_id="s", stage="failed", kind="summary", tokens_before=5, error="stalled"
    )
    assert compaction_report([user("u1", "t1")], []) == ["  none"]
    assert compaction_report([user("u1", "t1")], [failed]) == ["  not applied: 1 (stalled)"]


def test_a_parent_fold_over_a_child_fold_counts_each_message_once() -> None:
    child = CompactionPart(kind="goal", covers=["r2"], tokens_before=900, tokens_after=700)
    parent = CompactionPart(kind="goal", covers=["r2", "m1"], tokens_before=700, tokens_after=650)
    messages = [
        user("u1", "t1"),
        result("r2", "t1", "c2", "read_file", goal="1.1"),
        marker("m1", "t1", child),
        marker("m2", "t1", parent),
    ]
    assert compaction_report(messages, [])[1] == (
        "      kept: 650 tokens, 2 goal result lines in place of 1 message"
    )
