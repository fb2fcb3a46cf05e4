"""Summaries that see and survive: the transcript's faithful forms, the summary's share,
the retry gate on overflow (issue 12, item 6)."""

from __future__ import annotations

from cairn.agent.compaction.transcript_forms import shorten_for
from cairn.compaction import policy
from cairn.compaction.markers import CompactionState
from cairn.compaction.transcript import TRANSCRIPT_TOOL_OUTPUT_MAX_TOKENS, render_transcript
from cairn.context.sources.summary import fit_summary, render_summary
from cairn.models.messages import Message, ToolCallPart, ToolResultPart
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


def test_a_large_code_file_reaches_the_summarizer_as_its_outline() -> None:
    source = "\n".join(
        f"def {FINDING.lower()}_{i}(x):\n" + "\n".join(f"    y{j} = x + {j}" for j in range(30))
        for i in range(40)
    )
    messages = tool_messages("read_file", numbered(source), {"path": "pkg/big.py"})
    assert COUNT(messages[1].parts[0].output) > TRANSCRIPT_TOOL_OUTPUT_MAX_TOKENS  # type: ignore[union-attr]
    text = render_transcript(messages, CompactionState(), COUNT, shorten_for(COUNT))
    assert f"def {FINDING.lower()}_39(x)" in text
    assert "[output of" not in text
    assert COUNT(text) <= TRANSCRIPT_TOOL_OUTPUT_MAX_TOKENS + 50


def test_a_long_command_output_keeps_its_error_lines_in_the_transcript() -> None:
    log = "\n".join(
        f"ERROR {FINDING}: disk full" if i == 2500 else f"step {i} ok" for i in range(5000)
    )
    messages = tool_messages("run_command", log, {"command": "make", "exit_code": 2})
    text = render_transcript(messages, CompactionState(), COUNT, shorten_for(COUNT))
    assert f"ERROR {FINDING}: disk full" in text and "step 0 ok" in text and "step 4999 ok" in text


def test_the_summary_shows_its_finished_goals_but_not_the_ledger_or_files_read() -> None:
    summary = SessionSummary(
        objective="ship it",
        confirmed_facts=["The user said: no new dependencies"],
        files_read=[FileRead(path="a.py", hash="h1")],
        files_changed=[FileChanged(path="b.py", patch_artifact_id="p1")],
        tests=[TestRecord(command="pytest", status="failed")],
        goal_summaries=[GoalSummary(goal_id="1", description="d", status="completed", summary="s")],
    )
    text = render_summary(summary)
    assert "ship it" in text and "no new dependencies" in text
    for repeated in ("hash h1", "b.py", "pytest"):
        assert repeated not in text
    # The plan counts earlier turns' goals on one line: their outcomes live here, frozen.
    assert "Goals finished:\n- 1 d — done: s" in text


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
