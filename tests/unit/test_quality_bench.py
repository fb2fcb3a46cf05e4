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

from bench.quality.facts import Fact, ledger_facts, present, request_lines
from bench.quality.measure import measure
from bench.quality.rereads import blind_edits
from bench.quality.run import run_session
from bench.quality.script import CONSTRAINTS, build_session
from bench.quality.workspace import GEN_SEED_7, TEST_A

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
