"""Summaries that see and survive: the transcript's whole outputs, the summary's share,
the retry gate on overflow (issue 12, item 6)."""

from __future__ import annotations

from cairn.compaction import policy
from cairn.compaction.markers import CompactionState, read_state
from cairn.compaction.transcript import message_texts, render_transcript
from cairn.context.sources.summary import FILES_READ_TITLE, fit_summary, render_summary
from cairn.models.messages import CompactionPart, Message, ToolCallPart, ToolResultPart
from cairn.models.summary import FileChanged, FileRead, GoalSummary, SessionSummary, TestRecord
from cairn.tokens.counter import counter_for

COUNT = counter_for("scripted/x")
FINDING = "FINDING_7731"


def numbered(text: str) -> str:
    return "\n".join(f"{i:>6}\t{line}" for i, line in enumerate(text.splitlines(), start=1))


def tool_messages(name: str, output: str, data: dict[str, object]) -> list[Message]:
    call = ToolCallPart(call_id="c1", name=name, arguments={})
    result = ToolResultPart(call_id="c1", name=name, output=output, artifact_id="art9", data=data)
    return [
        Message(id="a", role="assistant", parts=[call]),
        Message(id="t", role="tool", parts=[result]),
    ]


def test_the_transcript_shows_every_output_whole_and_names_repeats() -> None:
    log = "\n".join(
        f"ERROR {FINDING}: disk full" if i == 2500 else f"step {i} ok" for i in range(5000)
    )
    messages = tool_messages("run_command", log, {"command": "make", "exit_code": 2})
    again = [
        Message(id="a2", role="assistant", parts=[ToolCallPart(call_id="c2", name="run_command")]),
        Message(
            id="t2",
            role="tool",
            parts=[
                ToolResultPart(call_id="c2", name="run_command", output=log, artifact_id="art9")
            ],
        ),
    ]
    text = render_transcript([*messages, *again], CompactionState(), COUNT)
    assert text.count(f"ERROR {FINDING}: disk full") == 1 and "step 2499 ok" in text
    assert "TOOL 2 run_command [ok] (artifact art9): [the same output as tool result 1 above]" in (
        text
    )
    # An output a previous summary covered is named, not repeated.
    texts = message_texts([*messages, *again], 2, 3, COUNT)
    assert FINDING not in "\n".join(texts) and "the previous summary covered" in texts[1]


def test_a_folded_goals_messages_reach_the_summarizer_whole() -> None:
    messages = tool_messages("read_file", f"1\tx = 1  # {FINDING}", {"path": "a.py"})
    fold = CompactionPart(kind="goal", covers=["a", "t"], goal_id="1", text="Goal 1 done")
    messages.append(Message(id="f", role="system", parts=[fold]))
    text = render_transcript(messages, read_state(messages), COUNT)
    assert FINDING in text and text.endswith("GOAL FOLDED: Goal 1 done")


def test_a_file_read_again_after_a_small_change_is_shown_as_its_changes() -> None:
    before = "\n".join(f"{i:>6}\tline {i} of the module" for i in range(1, 301))
    after = before.replace("line 150 of the module", f"line 150 of the module  # {FINDING}")
    data = {"path": "m.py", "start_line": 1}
    messages = [
        *tool_messages("read_file", before, data),
        Message(id="a2", role="assistant", parts=[ToolCallPart(call_id="c2", name="read_file")]),
        Message(
            id="t2",
            role="tool",
            parts=[ToolResultPart(call_id="c2", name="read_file", output=after, data=data)],
        ),
    ]
    text = render_transcript(messages, CompactionState(), COUNT)
    second = text.split("TOOL 2 read_file [ok]: ", 1)[1]
    assert second.startswith("[the read of tool result 1 above, changed since")
    assert f"+line 150 of the module  # {FINDING}" in second and "line 10 " not in second


def test_the_summary_shows_its_finished_goals_and_files_read_but_not_the_ledger() -> None:
    summary = SessionSummary(
        objective="ship it",
        confirmed_facts=["The user said: no new dependencies"],
        files_read=[
            FileRead(path="a.py", hash="h1", artifact_id="tool-1"),
            FileRead(path="pkg/c.py", hash="h3", artifact_id="tool-3"),
            FileRead(path="a.py", hash="h2", artifact_id="tool-2"),
        ],
        files_changed=[
            FileChanged(path="b.py", patch_artifact_id="p1"),
            FileChanged(path="a.py", patch_artifact_id="p2"),
        ],
        tests=[TestRecord(command="pytest", status="failed")],
        goal_summaries=[GoalSummary(goal_id="1", description="d", status="completed", summary="s")],
    )
    text = render_summary(summary)
    assert "ship it" in text and "no new dependencies" in text
    for repeated in ("h1", "b.py", "pytest", "tool-1", "tool-3"):
        assert repeated not in text
    # The plan counts earlier turns' goals on one line: their outcomes live here, frozen.
    assert "Goals finished:\n- 1 d — done: s" in text
    # Each file read, by folder; one the session changed names its last read's artifact.
    assert text.endswith(f"{FILES_READ_TITLE}: a.py (tool-2); pkg/ c.py")
    # Over its share, the files read go first.
    smaller = fit_summary(summary, COUNT(text) - 1, COUNT)
    assert FILES_READ_TITLE not in smaller and "Goals finished" in smaller


def test_a_summary_is_fitted_to_its_share_keeping_the_users_words_longest() -> None:
    summary = SessionSummary(
        objective="goal " * 50,
        confirmed_facts=[
            "The user said: never touch the schema",
            *[f"model fact {i} " + "pad " * 20 for i in range(60)],
        ],
    )
    for limit in (120, 400, 900):
        text = fit_summary(summary, limit, COUNT)
        assert COUNT(text) <= limit
        assert "never touch the schema" in text
    assert "model fact 59" in fit_summary(summary, 900, COUNT)
    assert "model fact 0 " not in fit_summary(summary, 900, COUNT)


def test_overflow_allows_a_new_summary_whatever_the_retry_gate_says() -> None:
    assert not policy.may_summarise_again(12, 10)
    assert not policy.may_summarise_now(12, 10, overflow=False)
    assert policy.may_summarise_now(12, 10, overflow=True)
    # Not twice for the same messages: a stalled attempt has fallen back already.
    assert not policy.may_summarise_now(10, 10, overflow=True)
