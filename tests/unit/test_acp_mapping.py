"""The ACP mapping of engine records: tool kinds, titles, locations, results, plans, usage."""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn.acp.client import approval_of, permission_options
from cairn.acp.plan import (
    PLAN_ID,
    entry_content,
    modes_state,
    plan_entries,
    plan_markdown,
    plan_status,
    plan_update,
)
from cairn.acp.updates import (
    TOOL_KINDS,
    chunk,
    compaction_message,
    compaction_update,
    fenced,
    first_changed_line,
    patch_diffs,
    tool_call_finished,
    tool_call_started,
    tool_kind,
    tool_locations,
    tool_title,
    usage_update,
)
from cairn.agent.api import FileEdit
from cairn.agent.tools import default_registry
from cairn.files.patches import file_patch
from cairn.models.events import CompactionEvent
from cairn.models.goals import Goal, GoalStatus, GoalTree
from cairn.models.manifest import ContextStats
from cairn.models.messages import ToolCallPart, ToolResultPart

ROOT = Path("/ws")


def locate(ref: str) -> Path | None:
    return None if ref.startswith("..") else ROOT / ref


def call(name: str, **arguments: object) -> ToolCallPart:
    return ToolCallPart(call_id="c1", name=name, arguments=dict(arguments))


def result(output: str, ok: bool = True, **data: object) -> ToolResultPart:
    return ToolResultPart(call_id="c1", name="x", output=output, ok=ok, data=dict(data) or None)


# -- tool kinds and titles ---------------------------------------------------------


def test_every_cairn_tool_has_its_kind_and_unknown_tools_are_other() -> None:
    registry = default_registry()
    assert {name: tool_kind(name) for name in registry.names()} == TOOL_KINDS
    assert TOOL_KINDS == {
        "read_file": "read",
        "list_dir": "read",
        "diagnostics": "read",
        "glob": "search",
        "grep": "search",
        "find_code": "search",
        "edit_file": "edit",
        "run_command": "execute",
        "goal": "think",
        "explore": "think",
    }
    assert tool_kind("mcp:github/create_issue") == "other"


@pytest.mark.parametrize(
    ("name", "arguments", "title"),
    [
        ("read_file", {"path": "a.py", "start_line": 3, "end_line": 9}, "Read a.py (lines 3-9)"),
        ("read_file", {"path": "a.py", "start_line": 3}, "Read a.py (from line 3)"),
        ("list_dir", {}, "List ."),
        ("glob", {"pattern": "**/*.py"}, "Find files **/*.py"),
        (
            "grep",
            {"pattern": "def x", "path": "src", "glob": "*.py"},
            "Search 'def x' in src (*.py)",
        ),
        ("edit_file", {"path": "a.py", "old": "1", "new": "2"}, "Edit a.py"),
        ("edit_file", {"path": "a.py", "new": "2"}, "Write a.py"),
        ("run_command", {"command": "pytest   -q"}, "Run `pytest -q`"),
        ("diagnostics", {"path": "a.py"}, "Diagnostics of a.py"),
        ("goal", {"add": "one, two"}, "Add goals: one, two"),
        ("goal", {"abandon": "dead end"}, "Abandon goal: dead end"),
        ("goal", {"focus": "2.1"}, "Focus goal 2.1"),
        ("explore", {"branches": ["a", "b"]}, "Explore 2 approaches"),
        ("mcp:x/y", {}, "mcp:x/y"),
    ],
)
def test_titles_say_what_the_call_does(name: str, arguments: dict[str, object], title: str) -> None:
    assert tool_title(name, arguments) == title


def test_long_arguments_are_shortened_in_titles() -> None:
    title = tool_title("run_command", {"command": "x" * 500})
    assert len(title) < 100 and title.endswith("…`")


# -- locations -----------------------------------------------------------------------


def test_locations_name_the_absolute_file_and_line() -> None:
    read = call("read_file", path="src/a.py", start_line=12)
    assert tool_locations(read, locate) == [{"path": "/ws/src/a.py", "line": 12}]
    assert tool_locations(call("grep", pattern="x"), locate) == []
    assert tool_locations(call("read_file", path="../outside"), locate) == []
    edit = FileEdit(ROOT / "a.py", "one\ntwo\nthree\n", "one\nTWO\nthree\n")
    assert tool_locations(call("edit_file", path="a.py"), locate, [edit]) == [
        {"path": "/ws/a.py", "line": 2}
    ]


@pytest.mark.parametrize(
    ("before", "after", "line"),
    [(None, "new\n", 1), ("a\nb\n", "a\nb\nc\n", 3), ("a\nb\n", "a\n", 2), ("a\n", "z\n", 1)],
)
def test_first_changed_line(before: str | None, after: str, line: int) -> None:
    assert first_changed_line(before, after) == line


# -- tool calls ----------------------------------------------------------------------


def test_a_started_call_is_in_progress_with_its_raw_input() -> None:
    update = tool_call_started(call("read_file", path="a.py"), locate, named=True)
    assert update == {
        "sessionUpdate": "tool_call",
        "toolCallId": "c1",
        "title": "Read a.py",
        "name": "read_file",
        "kind": "read",
        "status": "in_progress",
        "locations": [{"path": "/ws/a.py"}],
        "rawInput": {"path": "a.py"},
    }


def test_a_started_call_names_its_tool_only_for_a_current_client() -> None:
    """A client of an older schema (no `name` on tool calls) gets the call without it."""
    assert "name" not in tool_call_started(call("read_file", path="a.py"), locate)


def test_a_failed_call_is_failed_with_its_error_as_plain_text() -> None:
    update = tool_call_finished(
        call("read_file", path="a.py"), result("error: no", ok=False), locate
    )
    assert update["status"] == "failed"
    assert update["content"] == [
        {"type": "content", "content": {"type": "text", "text": "error: no"}}
    ]
    assert update["rawOutput"] == {"ok": False}


def test_file_and_command_output_is_fenced_and_other_output_is_not() -> None:
    read = tool_call_finished(call("read_file", path="a.py"), result("1\tx = `a`"), locate)
    assert read["content"][0]["content"]["text"] == "```\n1\tx = `a`\n```"
    goal = tool_call_finished(call("goal", add="x"), result("added 1"), locate)
    assert goal["content"][0]["content"]["text"] == "added 1"
    assert fenced("has ``` inside") == "````\nhas ``` inside\n````"


def test_edits_are_diffs_of_the_whole_file_and_a_new_file_has_no_old_text() -> None:
    edits = [FileEdit(ROOT / "a.py", "x = 1\n", "x = 2\n"), FileEdit(ROOT / "b.py", None, "new\n")]
    update = tool_call_finished(
        call("edit_file", path="a.py"), result("edited", path="a.py"), locate, edits
    )
    assert update["status"] == "completed"
    assert update["content"] == [
        {"type": "diff", "path": "/ws/a.py", "oldText": "x = 1\n", "newText": "x = 2\n"},
        {"type": "diff", "path": "/ws/b.py", "newText": "new\n"},
    ]
    assert update["locations"] == [{"path": "/ws/a.py", "line": 1}, {"path": "/ws/b.py", "line": 1}]
    assert update["rawOutput"] == {"ok": True, "path": "a.py"}


def test_a_recorded_edit_becomes_one_diff_per_hunk_of_its_patch() -> None:
    before = "".join(f"line {n}\n" for n in range(1, 30))
    after = before.replace("line 2\n", "line two\n").replace("line 25\n", "line 25b\n")
    output = f"edited a.py (+2 -2)\n{file_patch('a.py', before, after).rstrip()}"
    update = tool_call_finished(
        call("edit_file", path="a.py", old="x", new="y"), result(output), locate
    )
    first, second = update["content"]
    assert first["path"] == "/ws/a.py" and "line two\n" in first["newText"]
    assert "line 2\n" in first["oldText"] and "line two" not in first["oldText"]
    assert second["newText"].endswith("line 28\n") and "line 25b\n" in second["newText"]
    created = patch_diffs(file_patch("n.txt", None, "fresh\n"), ROOT / "n.txt")
    assert created == [{"type": "diff", "path": "/ws/n.txt", "newText": "fresh\n"}]
    assert patch_diffs("edited a.py\n[... 9 characters omitted ...]", ROOT / "a.py") == []


def test_a_command_in_the_client_terminal_ends_with_its_terminal() -> None:
    update = tool_call_finished(
        call("run_command", command="make"), result("$ make", exit_code=0), locate, terminal="t1"
    )
    assert update["content"] == [{"type": "terminal", "terminalId": "t1"}]
    assert update["rawOutput"] == {"ok": True, "exit_code": 0}


# -- plan --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "mapped"),
    [
        ("pending", "pending"),
        ("in_progress", "in_progress"),
        ("completed", "completed"),
        ("abandoned", "completed"),
    ],
)
def test_plan_statuses(status: GoalStatus, mapped: str) -> None:
    assert plan_status(Goal(id="1", description="x", status=status)) == mapped


def tree() -> GoalTree:
    return GoalTree(
        mission="Fix the parser",
        current_id="2.1",
        goals=[
            Goal(id="1", description="read it", status="completed", summary="read"),
            Goal(
                id="2",
                description="fix it",
                status="in_progress",
                children=[
                    Goal(
                        id="2.1",
                        description="the lexer",
                        status="in_progress",
                        children=[Goal(id="2.1.1", description="tokens")],
                    ),
                    Goal(id="2.2", description="regex", status="abandoned", summary="too slow"),
                ],
            ),
        ],
    )


def test_plan_entries_flatten_the_tree_keeping_ids_and_reasons() -> None:
    assert plan_entries(tree()) == [
        {"content": "1 read it", "priority": "high", "status": "completed"},
        {"content": "2 fix it", "priority": "high", "status": "in_progress"},
        {"content": "2.1 the lexer", "priority": "medium", "status": "in_progress"},
        {"content": "2.1.1 tokens", "priority": "low", "status": "pending"},
        {"content": "2.2 regex — abandoned: too slow", "priority": "medium", "status": "completed"},
    ]
    assert entry_content(Goal(id="3", description="x", status="abandoned")).endswith(
        "abandoned: no reason given"
    )
    assert plan_entries(GoalTree()) == []


def test_plan_update_is_markdown_for_clients_that_take_it() -> None:
    assert plan_update(tree(), markdown=False)["sessionUpdate"] == "plan"
    update = plan_update(tree(), markdown=True)
    assert update["sessionUpdate"] == "plan_update"
    assert update["plan"]["type"] == "markdown" and update["plan"]["planId"] == PLAN_ID
    assert plan_markdown(tree()).splitlines() == [
        "**Mission:** Fix the parser",
        "",
        "- [x] 1 read it — read",
        "- [ ] 2 fix it",
        "  - [ ] **2.1 the lexer** (in progress)",
        "    - [ ] 2.1.1 tokens",
        "  - [x] ~~2.2 regex~~ — abandoned: too slow",
    ]
    assert plan_markdown(GoalTree()) == "_No goals yet._"


def test_modes_state_lists_the_three_modes() -> None:
    state = modes_state("plan")
    assert state["currentModeId"] == "plan"
    assert [m["id"] for m in state["availableModes"]] == ["build", "plan", "review"]


# -- usage, compaction, chunks ---------------------------------------------------------


def stats(used: int, window: int) -> ContextStats:
    return ContextStats(
        session_id="s",
        context_window=window,
        max_output_tokens=10,
        tool_schema_tokens=0,
        safety_margin=0,
        available_input=window - 10,
        used_input=used,
    )


def test_usage_is_the_context_against_the_window_with_the_cost_when_known() -> None:
    assert usage_update(stats(53_000, 200_000), None) == {
        "sessionUpdate": "usage_update",
        "used": 53_000,
        "size": 200_000,
    }
    assert usage_update(stats(1, 2), 0.045)["cost"] == {"amount": 0.045, "currency": "USD"}


def test_compaction_stages_share_one_id() -> None:
    start = CompactionEvent(session_id="s", stage="start", kind="summary", tokens_before=900)
    done = start.model_copy(update={"stage": "done", "tokens_after": 100})
    failed = start.model_copy(update={"stage": "failed", "error": "model down"})
    assert compaction_update("k", start)["status"] == "in_progress"
    finished = compaction_update("k", done)
    assert finished["compactionId"] == "k" and finished["status"] == "completed"
    assert finished["_meta"] == {
        "cairn": {"kind": "summary", "tokensBefore": 900, "tokensAfter": 100}
    }
    assert compaction_update("k", failed)["error"] == "model down"
    assert "900 → 100 tokens" in compaction_message(done)
    assert "model down" in compaction_message(failed)


def test_chunks_carry_their_message_id() -> None:
    assert chunk("agent_thought_chunk", "hm", "m1") == {
        "sessionUpdate": "agent_thought_chunk",
        "content": {"type": "text", "text": "hm"},
        "messageId": "m1",
    }
    assert "messageId" not in chunk("agent_message_chunk", "hi")


@pytest.mark.parametrize(
    ("answer", "approval"),
    [
        ({"outcome": {"outcome": "selected", "optionId": "allow-once"}}, "once"),
        ({"outcome": {"outcome": "selected", "optionId": "allow-always"}}, "always"),
        ({"outcome": {"outcome": "selected", "optionId": "reject"}}, "reject"),
        ({"outcome": {"outcome": "selected", "optionId": "made-up"}}, "reject"),
        ({"outcome": {"outcome": "cancelled"}}, "reject"),
        ({"nothing": True}, "reject"),
        (None, "reject"),
    ],
)
def test_permission_answers_map_to_approvals(answer: object, approval: str) -> None:
    assert approval_of(answer) == approval


def test_permission_options_are_once_always_and_reject() -> None:
    options = permission_options("make test")
    assert [(o["optionId"], o["kind"]) for o in options] == [
        ("allow-once", "allow_once"),
        ("allow-always", "allow_always"),
        ("reject", "reject_once"),
    ]
    assert "make test" in options[1]["name"]
