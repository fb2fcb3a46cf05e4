"""The context-quality bench's instrument (`bench/quality/`) measures what it claims.

Fact detection finds a planted fact when the request holds it and not
when it does not (markers, changed files, a test's latest status, other
commands); a shortened real session (two turns) runs through the engine
and its figures agree with the raw requests. The OpenCode replay is
tested in `test_opencode_replay.py`.
"""

from __future__ import annotations

import json
from typing import Any

from bench.quality.facts import Fact, RuleScope, ledger_facts, present, request_lines
from bench.quality.measure import measure, unseen_claims
from bench.quality.rereads import blind_edits
from bench.quality.run import Recorded, SessionRun, run_session
from bench.quality.script import CONSTRAINTS, NESTED_FOLLOW_UP, build_session, narratives
from bench.quality.workspace import GEN_SEED_7, LARGE_READS, TEST_A, TOOL_FACTS, project_files
from cairn.llm.script import COMPACTION_LANE
from cairn.settings import Settings

COMMAND = "python3 -m unittest -q tests.test_x"


def _call(call_id: str, command: str) -> dict[str, Any]:
    arguments = json.dumps({"command": command})
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": "run_command", "arguments": arguments},
    }


def _run(call_id: str, code: int) -> list[dict[str, Any]]:
    return [
        {"role": "assistant", "content": None, "tool_calls": [_call(call_id, COMMAND)]},
        {"role": "tool", "tool_call_id": call_id, "content": f"$ {COMMAND}\nexit code {code}\n..."},
    ]


def _status(call_id: str, status: str) -> Fact:
    return Fact("ledger", status, "last_status", COMMAND, 0, status, call_id)


def test_a_marker_is_found_only_when_the_request_holds_it() -> None:
    fact = Fact("constraint", "C", "marker", "CONSTRAINT-X-1")
    held = [{"role": "user", "content": "do it. CONSTRAINT-X-1: no deps"}]
    assert present(fact, request_lines(held))
    assert not present(fact, request_lines([{"role": "user", "content": "do it. CONSTRAINT-X-2"}]))


def test_a_changed_file_needs_a_change_on_its_line_or_heading() -> None:
    fact = Fact("ledger", "changed", "changed", "pkg/a.py")
    listed = [{"role": "user", "content": "Files changed:\n- pkg/a.py (patch artifact p-1)"}]
    called = [{"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "edit_file", "arguments": '{"path": "pkg/a.py"}'}}
    ]}]  # fmt: skip
    mapped = [{"role": "system", "content": "Repository map:\npkg/a.py:\n  def f()"}]
    assert present(fact, request_lines(listed))
    assert present(fact, request_lines(called))
    assert not present(fact, request_lines(mapped))


def test_the_latest_test_status_is_read_from_its_own_result_or_the_last_statement() -> None:
    stream = [*_run("r1", 0), *_run("r2", 1)]
    assert present(_status("r2", "failed"), request_lines(stream))
    assert not present(_status("r2", "passed"), request_lines(stream))
    # The latest run's result pruned away: an older passing run does not count.
    pruned = [*_run("r1", 0), {"role": "tool", "tool_call_id": "r2", "content": "[pruned]"}]
    assert not present(_status("r2", "failed"), request_lines(pruned))
    summary = f"- {COMMAND}: passed\n- {COMMAND}: failed"
    assert present(_status("r9", "failed"), request_lines([{"role": "user", "content": summary}]))
    ledger = f"- {COMMAND}: passed (the last run)\n- {COMMAND}: failed (older)"
    assert present(_status("r9", "passed"), request_lines([{"role": "user", "content": ledger}]))
    quoted = f"The latest run of `{COMMAND}` passed."
    assert present(_status("r9", "passed"), request_lines([{"role": "user", "content": quoted}]))


def test_a_line_about_a_narrower_or_superseded_run_says_nothing_of_the_broad_command() -> None:
    broad = Fact("ledger", "failed", "last_status", "pytest -q tests", 0, "failed", "r9")
    focused = "- pytest -q tests/test_retry.py: FAILED (turn 4)"
    assert not present(broad, request_lines([{"role": "user", "content": focused}]))
    superseded = (
        "- pytest -q tests/test_retry.py: PASSED (turn 6);"
        " superseded by the later run of pytest -q tests (turn 7)"
    )
    ledger = "- pytest -q tests: FAILED (turn 7)\n" + superseded
    assert present(broad, request_lines([{"role": "user", "content": ledger}]))


def test_another_commands_last_exit_code_is_its_status() -> None:
    fact = Fact("ledger", "ran", "last_status", "python3 gen.py --seed 7", 0, "passed", "r9")
    ledger = "- python3 gen.py --seed 7: exit 0 (turn 1)"
    assert present(fact, request_lines([{"role": "user", "content": ledger}]))
    failed = "- python3 gen.py --seed 7: exit 2 (turn 1)"
    assert not present(fact, request_lines([{"role": "user", "content": failed}]))
    other = "- python3 gen.py --seed 8: exit 0 (turn 1)"
    assert not present(fact, request_lines([{"role": "user", "content": other}]))


def test_an_edit_is_blind_when_a_line_of_its_old_text_is_not_in_the_request() -> None:
    old = "def f():\n    return 1\n"
    edit = {"toolCalls": [{"name": "edit_file", "arguments": {"path": "a.py", "old": old}}]}
    whole = [{"role": "tool", "tool_call_id": "r", "content": "1\tdef f():\n2\t    return 1"}]
    half = [{"role": "tool", "tool_call_id": "r", "content": "1\tdef f():\n[output pruned]"}]
    write = {"toolCalls": [{"name": "edit_file", "arguments": {"path": "b.py", "new": "x"}}]}
    read = {"toolCalls": [{"name": "read_file", "arguments": {"path": "a.py"}}]}
    assert blind_edits([whole], [edit]) == []
    assert blind_edits([half], [edit]) == [0]
    assert blind_edits([half, half, whole], [write, read, edit]) == []  # only `old` edits count
    assert blind_edits([whole, half], [edit, edit]) == [1]


def test_a_fact_a_narrative_restates_without_its_request_holding_it_is_unseen() -> None:
    session = build_session(turns=1)
    first, second = TOOL_FACTS[0], TOOL_FACTS[1]
    held = [{"role": "user", "content": f"TOOL read_file [ok]: # ... ({first.marker})"}]
    run = SessionRun(Settings(), [Recorded(COMPACTION_LANE, held, [], 3)])
    # The first narrative restates every tool fact; its request held only the first.
    assert narratives(1)[0]["text"].count("FACT-") == len(TOOL_FACTS)
    unseen = unseen_claims(run, session)
    assert (1, first.marker) not in unseen and (1, second.marker) in unseen
    assert len(unseen) == len(TOOL_FACTS) - 1


def test_nested_rules_apply_in_the_turn_after_one_that_touched_their_folder() -> None:
    scope = RuleScope([(3, 0, "pkg_x/export.py")])
    assert scope.applies("pkg_x", 4, 0) and not scope.applies("pkg_x", 3, 0)
    assert scope.applies("pkg_x", 9, 1)  # the next turn, before touching anything there
    assert not scope.applies("pkg_x", 9, 2)


def test_the_variants_plant_facts_in_large_reads_and_follow_up_in_a_nested_folder() -> None:
    files = project_files(LARGE_READS)
    for path, fact in (("pkg_a/tokenizer.py", TOOL_FACTS[0]), ("pkg_b/config.py", TOOL_FACTS[1])):
        text = files[path]
        assert 17_000 <= len(text.encode()) <= 18_432
        line = next(line for line in text.splitlines() if fact.marker in line)
        assert line.startswith("#")  # only in a comment ...
        assert 0.3 < text.index(fact.marker) / len(text) < 0.7  # ... in the middle
    follow_up = build_session(variant=NESTED_FOLLOW_UP)
    base = build_session()
    assert follow_up.users[:-1] == base.users and len(follow_up.users) == len(base.users) + 1
    last_turn = follow_up.lines[base.main_calls : follow_up.main_calls]
    calls = [c for line in last_turn for c in line.get("toolCalls", [])]
    assert calls[1]["name"] == "edit_file" and calls[1]["arguments"]["path"] == "pkg_x/export.py"
    assert not any(
        c["name"] == "read_file" and c["arguments"]["path"].startswith("pkg_x") for c in calls
    )


# -- a shortened real session -------------------------------------------------------------


async def test_a_short_session_is_measured_from_what_the_model_received() -> None:
    session = build_session(turns=2)
    run = await run_session(session, {"context_window": 20_000, "max_output_tokens": 500})
    figures = measure(run, session)
    last = figures.points[-1]
    assert last.label == "last call" and last.call == session.main_calls
    raw = json.dumps(run.main[-1].messages)
    constraint = CONSTRAINTS[0].split(":")[0]
    assert last.expected["constraint"] == 1
    assert (last.found["constraint"] == 1) == (constraint in raw)
    ledger = ledger_facts(run.messages, len(run.messages))
    statuses = {f.needle: f.detail for f in ledger if f.detector == "last_status"}
    assert statuses == {TEST_A: "passed", GEN_SEED_7: "passed"}
    assert {f.needle for f in ledger if f.detector == "changed"} == {"pkg_a/parse.py"}
    assert figures.opencode is not None and figures.opencode.total > 0
    assert figures.cairn_total > 0
