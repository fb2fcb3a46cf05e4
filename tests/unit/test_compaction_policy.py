"""Pure compaction pieces: lenient narrative parsing, watermarks, test detection, thresholds."""

from __future__ import annotations

from cairn.compaction import policy
from cairn.compaction.ledger import run_status
from cairn.compaction.markers import read_state
from cairn.compaction.narrative import compaction_messages, merge_narrative, parse_narrative
from cairn.compaction.transcript import choose_watermark
from cairn.files.commands import command_key, covers, is_build_command, is_test_command
from cairn.models.messages import Message, TextPart, ToolCallPart, ToolResultPart
from cairn.models.summary import Decision, SessionSummary


def count(text: str) -> int:
    return len(text)


def test_narrative_is_found_inside_chatter() -> None:
    text = 'Sure! {"objective": "ship it", "confirmed_facts": ["a", 3, ""], "decisions": [{"decision": "d", "reason": "r"}, "plain"]} bye'
    narrative = parse_narrative(text)
    assert narrative.objective == "ship it"
    assert narrative.confirmed_facts == ["a", "3"]
    assert narrative.decisions == [
        Decision(decision="d", reason="r"),
        Decision(decision="plain", reason=""),
    ]


def test_unusable_replies_give_an_empty_narrative() -> None:
    for text in ("", "no json here", "[1, 2]", '{"objective": 5, "confirmed_facts": "x'):
        assert parse_narrative(text).empty


def test_wrong_field_types_are_ignored() -> None:
    narrative = parse_narrative('{"objective": ["x"], "open_questions": {"a": 1}, "decisions": 7}')
    assert narrative.empty


def test_merge_keeps_previous_facts_and_replaces_questions() -> None:
    previous = SessionSummary(objective="old", confirmed_facts=["f1"], open_questions=["q1"])
    merged = merge_narrative(
        previous, parse_narrative('{"confirmed_facts": ["f2", "f1"], "open_questions": ["q2"]}')
    )
    assert merged.objective == "old"
    assert merged.confirmed_facts == ["f1", "f2"]
    assert merged.open_questions == ["q2"]


def test_incremental_prompt_names_the_previous_summary() -> None:
    messages = compaction_messages(SessionSummary(objective="goal X"), "USER: hi")
    assert messages[0]["role"] == "system"
    assert "Previous summary" in messages[1]["content"] and "goal X" in messages[1]["content"]
    assert "Previous summary" not in compaction_messages(None, "USER: hi")[1]["content"]


def _step(index: int, output: str) -> list[Message]:
    return [
        Message(
            id=f"a{index}",
            role="assistant",
            turn_id="t",
            parts=[ToolCallPart(call_id=f"c{index}", name="read_file")],
        ),
        Message(
            id=f"r{index}",
            role="tool",
            turn_id="t",
            parts=[ToolResultPart(call_id=f"c{index}", name="read_file", output=output)],
        ),
    ]


def test_watermark_never_separates_a_call_from_its_result() -> None:
    messages = [Message(id="u", role="user", parts=[TextPart(text="go")])]
    for i in range(4):
        messages += _step(i, "x" * 100)
    state = read_state(messages)
    for keep in range(0, 500, 7):
        index = choose_watermark(messages, state, count, keep_recent_tokens=keep)
        if index is not None:
            assert messages[index].role != "assistant" or index + 1 == len(messages)
            assert index + 1 == len(messages) or messages[index + 1].role != "tool"


def test_watermark_keeps_the_recent_tail() -> None:
    messages = [Message(id="u", role="user", parts=[TextPart(text="go")])]
    for i in range(4):
        messages += _step(i, "x" * 100)
    state = read_state(messages)
    everything_but_last_step = choose_watermark(messages, state, count, keep_recent_tokens=150)
    assert everything_but_last_step is not None and messages[everything_but_last_step].id == "r2"
    assert choose_watermark(messages, state, count, keep_recent_tokens=10_000) is None


def test_watermark_never_covers_the_step_the_model_has_not_seen() -> None:
    """A big read the agent just asked for stays out of the summary even with no verbatim
    share: the next call shows it whole (before, it was summarised away unseen)."""
    messages = [Message(id="u", role="user", parts=[TextPart(text="go")])]
    for i in range(3):
        messages += _step(i, "x" * 100)
    messages += _step(3, "y" * 5_000)
    state = read_state(messages)
    index = choose_watermark(messages, state, count, keep_recent_tokens=0)
    assert index is not None and messages[index].id == "r2"
    # A summary prepared once the model's reply to that step is in hand may cover it.
    replied = choose_watermark(messages, state, count, keep_recent_tokens=0, replied=True)
    assert replied == len(messages) - 1
    # Once the model has replied to that step, it may be covered like any other.
    answered = [*messages, Message(id="a9", role="assistant", parts=[TextPart(text="done")])]
    last = choose_watermark(answered, read_state(answered), count, keep_recent_tokens=0)
    assert last == len(answered) - 1


def test_test_commands_are_recognised() -> None:
    assert is_test_command("pytest -q tests")
    assert is_test_command("/usr/bin/python3.11 -m unittest -v")
    assert is_test_command("make check", known=["make check"])
    assert not is_test_command("ls -la")
    assert not is_test_command("python script.py")
    assert [run_status(c) for c in (0, 1, None)] == ["passed", "failed", "error"]


def test_builds_and_checks_are_told_from_other_commands() -> None:
    assert is_build_command("make -j4") and is_build_command("npm run build")
    assert is_build_command("./gradlew assemble") and is_build_command("python3 -m mypy src")
    assert not is_build_command("python3 gen_fixtures.py --seed 7")
    assert not is_build_command("pytest -q")


def test_a_command_is_keyed_by_its_words_and_a_broader_test_run_covers_a_narrower() -> None:
    assert (
        command_key("pytest   -q 'a b'")
        == command_key('pytest -q "a b"')
        != command_key("pytest -q a b")
    )
    assert covers("python -m pytest -q tests", "python3 -m pytest -q tests/test_retry.py")
    assert covers("pytest -q", "pytest -q tests/a.py::test_x")
    assert covers("python3 -m unittest -q tests", "python3 -m unittest -q tests.test_parse")
    assert covers("go test ./...", "go test ./pkg/x")
    assert not covers("pytest -q tests/a.py", "pytest -q tests")  # narrower, not broader
    assert not covers("pytest -q", "pytest -q -k retry")  # other options
    assert not covers("pytest -q tests", "pytest -q testsuite/a.py")  # another folder
    assert not covers("pytest -q tests", "pytest  -q tests")  # the same command
    assert not covers("make", "make test")  # not test runs of one runner


def test_thresholds_and_stalls() -> None:
    assert not policy.needs_summary(700, 1000, 0.7, overflow=False)
    assert policy.needs_summary(701, 1000, 0.7, overflow=False)
    assert policy.needs_summary(10, 1000, 0.7, overflow=True)
    assert policy.should_start_early(601, 1000, 0.7) and not policy.should_start_early(
        600, 1000, 0.7
    )
    assert policy.is_stalled(1000, 951) and not policy.is_stalled(1000, 950)
    assert policy.stall_message(1000, 990) == "stalled: freed only 1.0%"
    assert not policy.may_summarise_again(10, 5) and policy.may_summarise_again(11, 5)
    assert policy.worth_summarising(100, 1000) and not policy.worth_summarising(99, 1000)
