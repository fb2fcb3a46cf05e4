"""The tool registry (schemas, errors never raised) and the goal, explore, diagnostics tools."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import pytest

from cairn.agent.tools import (
    READ_ONLY_TOOLS,
    Tool,
    ToolArgs,
    ToolContext,
    ToolOutcome,
    ToolRegistry,
    default_registry,
)
from cairn.errors import GoalError, InvalidRequestError
from cairn.files.workspace import Workspace
from cairn.goals import apply_goal, render_plan
from cairn.models.diagnostics import Diagnostic, Position, Range
from cairn.models.goals import GoalTree
from cairn.settings import Settings

DESIGN_TOOLS = {
    "read_file": ({"path"}, {"start_line", "end_line"}),
    "list_dir": (set(), {"path"}),
    "glob": ({"pattern"}, set()),
    "grep": ({"pattern"}, {"path", "glob"}),
    "edit_file": ({"path", "new"}, {"old"}),
    "run_command": ({"command"}, {"timeout_s"}),
    "diagnostics": (set(), {"path"}),
    "goal": (set(), {"add", "done", "abandon", "focus"}),
    "explore": ({"branches"}, {"background"}),
}


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    (tmp_path / "a.py").write_text("x = 1\n")
    return ToolContext(workspace=Workspace([tmp_path]), settings=Settings())


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


async def test_goal_calls_the_handler_and_returns_the_plan(ctx: ToolContext) -> None:
    state = {"tree": GoalTree(mission="fix the bug")}

    def handler(verbs: dict[str, Any]) -> str:
        state["tree"] = apply_goal(state["tree"], **verbs)
        return render_plan(state["tree"])

    ctx.goal_handler = handler
    outcome = await default_registry().run("goal", {"add": "reproduce, fix"}, ctx)
    assert outcome.ok
    assert "reproduce" in outcome.output and "fix" in outcome.output
    assert outcome.data == {"goal": {"add": "reproduce, fix"}}
    assert len(state["tree"].goals) == 2


async def test_goal_error_is_a_tool_error(ctx: ToolContext) -> None:
    def handler(verbs: dict[str, Any]) -> str:
        raise GoalError("no focused goal to mark done")

    ctx.goal_handler = handler
    outcome = await default_registry().run("goal", {"done": "finished"}, ctx)
    assert not outcome.ok
    assert outcome.output == "error: no focused goal to mark done"


async def test_goal_needs_exactly_one_verb(ctx: ToolContext) -> None:
    ctx.goal_handler = lambda verbs: "unused"
    outcome = await default_registry().run("goal", {}, ctx)
    assert not outcome.ok
    assert "give exactly one of add, done, abandon, focus (got: none)" in outcome.output


async def test_goal_without_a_handler_is_unavailable(ctx: ToolContext) -> None:
    outcome = await default_registry().run("goal", {"focus": "1"}, ctx)
    assert outcome.output == "error: the goal tool is not available here"


# -- explore -------------------------------------------------------------------


async def test_explore_passes_branches_to_the_handler(ctx: ToolContext) -> None:
    seen: list[dict[str, Any]] = []

    async def handler(request: dict[str, Any]) -> str:
        seen.append(request)
        return "branch 0: parser is fine\nbranch 1: bug is in the lexer"

    ctx.explore_handler = handler
    args = {"branches": ["check the parser", "check the lexer"], "background": "a bug"}
    outcome = await default_registry().run("explore", args, ctx)
    assert outcome.ok
    assert seen == [args]
    assert "bug is in the lexer" in outcome.output


@pytest.mark.parametrize("branches", [[], ["ok", "  "]])
async def test_explore_rejects_empty_branches(ctx: ToolContext, branches: list[str]) -> None:
    ctx.explore_handler = None
    outcome = await default_registry().run("explore", {"branches": branches}, ctx)
    assert not outcome.ok
    assert "invalid arguments for explore: branches" in outcome.output


async def test_explore_without_a_handler_is_unavailable(ctx: ToolContext) -> None:
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
