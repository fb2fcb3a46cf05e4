"""The tool registry (schemas, errors never raised) and the goal, explore, diagnostics tools."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, ClassVar

import pytest
from pydantic import ValidationError

from cairn.agent.listener import SafeListener
from cairn.agent.scope.inputs import TurnInputs
from cairn.agent.scope.turn_scope import TurnScope, main_scope
from cairn.agent.sessions.session import Session
from cairn.agent.tools import (
    READ_ONLY_TOOLS,
    Tool,
    ToolArgs,
    ToolContext,
    ToolOutcome,
    ToolRegistry,
    default_registry,
)
from cairn.agent.tools.explore import ExploreArgs
from cairn.agent.tools.goal import GoalArgs
from cairn.agent.turn.explore import Explorer
from cairn.errors import InvalidRequestError
from cairn.files.workspace import Workspace
from cairn.models.diagnostics import Diagnostic, Position, Range
from cairn.models.goals import GoalTree
from cairn.settings import Settings, SettingsRef
from cairn.trace import Trace
from tests.unit.test_agent_support import Recorder

DESIGN_TOOLS = {
    "read_file": ({"path"}, {"start_line", "end_line"}),
    "list_dir": (set(), {"path"}),
    "glob": ({"pattern"}, set()),
    "grep": ({"pattern"}, {"path", "glob"}),
    "find_code": ({"query"}, {"limit"}),
    "edit_file": ({"path", "new"}, {"old"}),
    "run_command": ({"command"}, {"timeout_s"}),
    "diagnostics": (set(), {"path"}),
    "goal": (set(), {"add", "done", "abandon", "focus"}),
    "explore": ({"branches"}, {"background"}),
}


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    (tmp_path / "a.py").write_text("x = 1\n")
    return ToolContext(workspace=Workspace([tmp_path]), config=SettingsRef(Settings()))


def test_schemas_match_the_design_names_and_arguments() -> None:
    registry = default_registry()
    schemas = registry.schemas(None)
    assert {s["function"]["name"] for s in schemas} == set(DESIGN_TOOLS)
    for schema in schemas:
        function = schema["function"]
        required, optional = DESIGN_TOOLS[function["name"]]
        parameters = function["parameters"]
        assert schema["type"] == "function"
        assert parameters["type"] == "object"
        assert set(parameters.get("required", [])) == required
        assert set(parameters["properties"]) == required | optional
        assert len(function["description"]) > 40
        for prop in parameters["properties"].values():
            assert prop.get("description"), function["name"]
            assert "anyOf" not in prop


def test_schemas_keep_the_requested_order_and_reject_unknown_names() -> None:
    registry = default_registry()
    names = [s["function"]["name"] for s in registry.schemas(["grep", "read_file"])]
    assert names == ["grep", "read_file"]
    with pytest.raises(InvalidRequestError, match="unknown tools: nope"):
        registry.schemas(["read_file", "nope"])


def test_read_only_tools_are_registered_and_never_write() -> None:
    registry = default_registry()
    assert set(READ_ONLY_TOOLS) <= set(registry.names())
    assert not {"edit_file", "run_command", "goal", "explore"} & set(READ_ONLY_TOOLS)


async def test_unknown_tool_is_an_outcome_not_an_exception(ctx: ToolContext) -> None:
    outcome = await default_registry().run("delete_everything", {}, ctx)
    assert not outcome.ok
    assert outcome.output.startswith(
        "error: unknown tool 'delete_everything'; available: read_file"
    )


async def test_invalid_arguments_are_summarized(ctx: ToolContext) -> None:
    outcome = await default_registry().run("read_file", {"start_line": "x", "bogus": 1}, ctx)
    assert not outcome.ok
    assert outcome.output.startswith("error: invalid arguments for read_file: ")
    assert "path: Field required" in outcome.output
    assert "start_line: " in outcome.output
    assert "bogus: unknown argument" in outcome.output


async def test_non_object_arguments_are_an_outcome(ctx: ToolContext) -> None:
    outcome = await default_registry().run("read_file", ["a.py"], ctx)  # type: ignore[arg-type]
    assert not outcome.ok
    assert "must be a JSON object" in outcome.output


class _BrokenArgs(ToolArgs):
    pass


class _Broken(Tool[_BrokenArgs]):
    name: ClassVar[str] = "broken"
    description: ClassVar[str] = "Always fails with a programming error."
    args_model = _BrokenArgs

    async def run(self, args: _BrokenArgs, ctx: ToolContext) -> ToolOutcome:
        raise KeyError("boom")


async def test_an_exception_inside_a_tool_becomes_an_error_outcome(ctx: ToolContext) -> None:
    outcome = await ToolRegistry([_Broken()]).run("broken", {}, ctx)
    assert not outcome.ok
    assert outcome.output == "error: broken failed: KeyError: 'boom'"


def test_duplicate_tool_names_are_refused() -> None:
    with pytest.raises(ValueError, match="two tools named 'broken'"):
        ToolRegistry([_Broken(), _Broken()])


# -- goal ----------------------------------------------------------------------


def turn_scope(
    trace: Trace, recorder: Recorder | None = None, read_only: bool = False
) -> TurnScope:
    """A main-agent scope on a real session (the explorer stays None: explore is not offered)."""
    session = Session(trace)
    inputs = TurnInputs(model="scripted/none.jsonl", mode="build")
    registry = default_registry()
    scope = main_scope(session, inputs, SafeListener(recorder), registry, None)
    return dataclasses.replace(scope, read_only=read_only)


async def test_goal_changes_the_turns_session_and_returns_the_plan(
    ctx: ToolContext, trace: Trace
) -> None:
    recorder = Recorder()
    ctx.scope = turn_scope(trace, recorder)
    outcome = await default_registry().run("goal", {"add": "reproduce, fix"}, ctx)
    assert outcome.ok
    assert outcome.output.splitlines()[0] == "added 1, 2"
    assert "reproduce" in outcome.output and "fix" in outcome.output
    assert outcome.data == {"goal": {"add": "reproduce, fix"}}
    assert [g.description for g in trace.goals().goals] == ["reproduce", "fix"]
    assert len(recorder.trees) == 1  # the editor heard of the change once


async def test_goal_done_queues_the_fold_for_the_end_of_the_step(
    ctx: ToolContext, trace: Trace
) -> None:
    ctx.scope = turn_scope(trace)
    registry = default_registry()
    await registry.run("goal", {"add": "reproduce"}, ctx)
    await registry.run("goal", {"focus": "1"}, ctx)
    outcome = await registry.run("goal", {"done": "it fails on touching intervals"}, ctx)
    assert outcome.output.splitlines()[0] == "done 1: it fails on touching intervals"
    folds = ctx.scope.session.pending_folds
    assert [(f.goal_id, f.verb, f.summary) for f in folds] == [
        ("1", "done", "it fails on touching intervals")
    ]


async def test_goal_error_is_a_tool_error(ctx: ToolContext, trace: Trace) -> None:
    ctx.scope = turn_scope(trace)
    outcome = await default_registry().run("goal", {"done": "finished"}, ctx)
    assert not outcome.ok
    assert outcome.output == "error: done needs a focused goal; focus one first"
    assert trace.goals() == GoalTree()


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        ({}, "give exactly one of add, done, abandon, focus (got: none)"),
        (
            {"add": "a", "focus": "1"},
            "give exactly one of add, done, abandon, focus (got: add, focus)",
        ),
        ({"add": 3}, "add: Input should be a valid string"),
        ({"add": "a", "verb": "x"}, "verb: unknown argument"),
    ],
)
async def test_goal_arguments_are_checked_once_by_the_args_model(
    ctx: ToolContext, trace: Trace, args: dict[str, Any], problem: str
) -> None:
    recorder = Recorder()
    ctx.scope = turn_scope(trace, recorder)
    outcome = await default_registry().run("goal", args, ctx)
    assert not outcome.ok
    assert outcome.output.startswith("error: invalid arguments for goal: ")
    assert problem in outcome.output
    assert recorder.trees == [] and trace.goals() == GoalTree()  # nothing changed


def test_goal_args_name_their_one_verb() -> None:
    assert GoalArgs.model_validate({"abandon": "dead end"}).change == ("abandon", "dead end")
    with pytest.raises(ValidationError, match="give exactly one of"):
        GoalArgs.model_validate({"done": "a", "abandon": "b"})


async def test_goal_outside_a_turn_or_in_a_branch_is_unavailable(
    ctx: ToolContext, trace: Trace
) -> None:
    outcome = await default_registry().run("goal", {"focus": "1"}, ctx)
    assert outcome.output == "error: the goal tool is not available here"
    ctx.scope = turn_scope(trace, read_only=True)
    outcome = await default_registry().run("goal", {"add": "x"}, ctx)
    assert outcome.output == "error: the goal tool is not available here"
    assert trace.goals() == GoalTree()


# -- explore -------------------------------------------------------------------


class RecordingExplorer(Explorer):
    """Runs no branch: keeps what the `explore` tool hands over (the tool's side of the call)."""

    def __init__(self) -> None:
        self.calls: list[tuple[TurnScope, ExploreArgs]] = []

    async def explore(self, parent: TurnScope, args: ExploreArgs) -> str:
        self.calls.append((parent, args))
        return "branch 0: parser is fine\nbranch 1: bug is in the lexer"


async def test_explore_hands_typed_arguments_and_its_scope_to_the_explorer(
    ctx: ToolContext, trace: Trace
) -> None:
    explorer = RecordingExplorer()
    scope = dataclasses.replace(turn_scope(trace), explorer=explorer)
    ctx.scope = scope
    args = {"branches": ["  check the parser ", "check the lexer"], "background": ""}
    outcome = await default_registry().run("explore", args, ctx)
    assert outcome.ok
    assert "bug is in the lexer" in outcome.output
    assert outcome.data == {"branches": 2}
    [(parent, typed)] = explorer.calls
    assert parent is scope
    assert typed.branches == ["check the parser", "check the lexer"]
    assert typed.background is None  # an empty background means "see this conversation"


@pytest.mark.parametrize("branches", [[], ["ok", "  "], [f"b{i}" for i in range(9)]])
async def test_explore_rejects_bad_branches_before_the_explorer(
    ctx: ToolContext, trace: Trace, branches: list[str]
) -> None:
    explorer = RecordingExplorer()
    ctx.scope = dataclasses.replace(turn_scope(trace), explorer=explorer)
    outcome = await default_registry().run("explore", {"branches": branches}, ctx)
    assert not outcome.ok
    assert "invalid arguments for explore: branches" in outcome.output
    assert explorer.calls == []


async def test_explore_without_an_explorer_is_unavailable(ctx: ToolContext, trace: Trace) -> None:
    outcome = await default_registry().run("explore", {"branches": ["a"]}, ctx)
    assert outcome.output == "error: explore is not available here (branches cannot explore)"
    ctx.scope = turn_scope(trace)  # a scope without an explorer: a branch's, or a dry run's
    outcome = await default_registry().run("explore", {"branches": ["a"]}, ctx)
    assert outcome.output == "error: explore is not available here (branches cannot explore)"


# -- diagnostics ---------------------------------------------------------------


def _diagnostic(line: int, col: int, message: str, severity: Any = 1) -> Diagnostic:
    position = Position(line=line, character=col)
    return Diagnostic(
        range=Range(start=position, end=position),
        message=message,
        severity=severity,
        source="pyright",
        code="reportX",
    )


async def test_diagnostics_are_formatted_one_per_line(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    ctx.workspace.set_diagnostics(
        tmp_path / "a.py", [_diagnostic(4, 2, "second"), _diagnostic(0, 0, "first\nline", 2)]
    )
    ctx.workspace.set_diagnostics(tmp_path / "pkg" / "b.py", [_diagnostic(9, 0, "in b", 3)])
    everything = await default_registry().run("diagnostics", {}, ctx)
    assert everything.output.splitlines() == [
        "a.py:1:1 warning pyright: first line [reportX]",
        "a.py:5:3 error pyright: second [reportX]",
        "pkg/b.py:10:1 info pyright: in b [reportX]",
    ]
    one_folder = await default_registry().run("diagnostics", {"path": "pkg"}, ctx)
    assert one_folder.output == "pkg/b.py:10:1 info pyright: in b [reportX]"
    clean = await default_registry().run("diagnostics", {"path": "pkg/none.py"}, ctx)
    assert clean.output == "no diagnostics in pkg/none.py"
