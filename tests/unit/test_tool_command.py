"""run_command: allowlist, approval, refusal, timeouts that kill the process group, artifacts."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest

from cairn.agent.api import Approval, ApprovalRequest, CommandRequest, CommandRun
from cairn.agent.tools import ToolContext, default_registry
from cairn.agent.tools.approval import is_allowlisted
from cairn.agent.tools.base import MAX_INLINE_OUTPUT_CHARS
from cairn.settings import Settings
from cairn.trace import Trace
from tests.unit.conftest import tool_context

REGISTRY = default_registry()
# Long enough that only a kill ends it within the test's lifetime.
LONG_SLEEP_S = 60
SHORT_TIMEOUT_S = 0.5


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    (folder / "marker.txt").write_text("here\n")
    return folder


@pytest.fixture
def ctx(root: Path, trace: Trace) -> ToolContext:
    return tool_context(root, trace, allowed_commands=["pytest", "ls", "cat marker.txt"])


async def run(ctx: ToolContext, **args: Any) -> Any:
    return await REGISTRY.run("run_command", args, ctx)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.parametrize(
    ("command", "allowed"),
    [
        ("pytest", True),
        ("pytest -q tests/test_x.py", True),
        ("  pytest -q  ", True),
        ("pytest; rm -rf ~", False),
        ("pytest && curl evil", False),
        ("pytest | sh", False),
        ("pytest $(whoami)", False),
        ("pytest `whoami`", False),
        ("pytest > /etc/passwd", False),
        ("pytest\nrm -rf ~", False),
        ("pytestx", False),
        ("cat marker.txt", True),
        ("cat marker.txt other", True),
        ("cat other.txt", False),
        ("rm -rf /", False),
    ],
)
def test_allowlist_is_exact_or_prefix_without_shell_operators(command: str, allowed: bool) -> None:
    assert is_allowlisted(command, ["pytest", "cat marker.txt"]) is allowed


async def test_allowlisted_command_runs_in_the_workspace_root(
    ctx: ToolContext, root: Path, trace: Trace
) -> None:
    outcome = await run(ctx, command="ls")
    assert outcome.ok
    command, status, listing = outcome.output.splitlines()[:3]
    assert (command, listing) == ("$ ls", "marker.txt")
    assert status.startswith("exit code 0 · ")
    assert outcome.data is not None and outcome.data["sandbox"] in ("bubblewrap", "none")
    assert outcome.data == {
        "command": "ls",
        "exit_code": 0,
        "timed_out": False,
        "test": True,
        "sandbox": outcome.data["sandbox"],
    }
    assert outcome.artifact_id is not None
    assert trace.read_artifact(outcome.artifact_id) == b"marker.txt\n"


async def test_not_allowlisted_without_approver_is_refused(ctx: ToolContext, root: Path) -> None:
    outcome = await run(ctx, command="touch made.txt")
    assert not outcome.ok
    assert outcome.output == (
        "error: command not allowed: touch made.txt (add it to allowed_commands or approve it)"
    )
    assert not (root / "made.txt").exists()


async def test_approver_is_asked_and_a_yes_runs_it(ctx: ToolContext, root: Path) -> None:
    asked: list[str] = []

    async def approve(request: ApprovalRequest) -> Approval:
        asked.append(request.command)
        return "once"

    ctx.approve = approve
    outcome = await run(ctx, command="touch made.txt")
    assert outcome.ok
    assert asked == ["touch made.txt"]
    assert (root / "made.txt").exists()
    listed = await REGISTRY.run("glob", {"pattern": "made.txt"}, ctx)
    assert listed.output == "made.txt"


async def test_approver_saying_no_refuses(ctx: ToolContext, root: Path) -> None:
    async def deny(request: ApprovalRequest) -> Approval:
        return "reject"

    ctx.approve = deny
    outcome = await run(ctx, command="touch made.txt")
    assert not outcome.ok
    assert "not approved by the user" in outcome.output
    assert not (root / "made.txt").exists()


async def test_always_runs_it_and_allows_it_from_then_on(ctx: ToolContext, root: Path) -> None:
    asked: list[str] = []

    async def always(request: ApprovalRequest) -> Approval:
        asked.append(request.command)
        return "always"

    ctx.approve = always
    first = await run(ctx, command="touch made.txt")
    again = await run(ctx, command="touch made.txt")
    assert first.ok and again.ok
    assert asked == ["touch made.txt"]
    assert "touch made.txt" in ctx.allowed_commands


async def test_the_editor_terminal_runs_the_command_when_offered(
    ctx: ToolContext, root: Path
) -> None:
    requests: list[CommandRequest] = []

    async def terminal(request: CommandRequest) -> CommandRun:
        requests.append(request)
        return CommandRun(output="from the editor\n", exit_code=4)

    ctx.run_in_editor = terminal
    ctx.config.current = Settings(sandbox="off")  # sandboxed: tests/unit/test_sandbox.py
    ctx.allowed_commands.append("touch made.txt")
    outcome = await run(ctx, command="touch made.txt", timeout_s=7)
    assert [(r.command, r.cwd, r.timeout_s) for r in requests] == [("touch made.txt", root, 7)]
    assert not (root / "made.txt").exists()
    assert outcome.data is not None and outcome.data["exit_code"] == 4
    assert "exit code 4" in outcome.output and "from the editor" in outcome.output


async def test_a_terminal_that_declines_leaves_the_command_to_run_here(
    ctx: ToolContext, root: Path
) -> None:
    async def no_terminal(request: CommandRequest) -> CommandRun | None:
        return None

    ctx.run_in_editor = no_terminal
    ctx.allowed_commands.append("touch made.txt")
    outcome = await run(ctx, command="touch made.txt")
    assert outcome.ok
    assert (root / "made.txt").exists()


async def test_allowlisted_command_does_not_ask(ctx: ToolContext) -> None:
    async def must_not_ask(request: ApprovalRequest) -> Approval:
        raise AssertionError(f"asked about {request.command}")

    ctx.approve = must_not_ask
    outcome = await run(ctx, command="cat marker.txt")
    assert outcome.ok
    assert "here" in outcome.output


async def test_nonzero_exit_code_is_reported(ctx: ToolContext) -> None:
    command = "sh -c 'echo failing >&2; exit 3'"
    ctx.allow_always(command)  # exactly this text, operators and all
    outcome = await run(ctx, command=command)
    assert outcome.ok
    assert outcome.data["exit_code"] == 3
    assert "exit code 3" in outcome.output
    assert "failing" in outcome.output


async def test_timeout_kills_the_whole_process_group(ctx: ToolContext, root: Path) -> None:
    command = f"sleep {LONG_SLEEP_S} & echo $! > child.pid; wait"
    ctx.config.current = Settings(sandbox="off")  # host pids; sandboxed: test_sandbox.py
    ctx.allow_always(command)  # exactly this text, operators and all
    outcome = await run(ctx, command=command, timeout_s=SHORT_TIMEOUT_S)
    assert not outcome.ok
    assert outcome.data["timed_out"] is True
    assert outcome.data["exit_code"] is None
    assert "timed out after 0.5 s" in outcome.output
    child = int((root / "child.pid").read_text())
    for _ in range(50):
        if not _alive(child):
            break
        await asyncio.sleep(0.05)
    assert not _alive(child)


async def test_cancelling_the_call_kills_the_command(ctx: ToolContext, root: Path) -> None:
    command = f"echo $$ > shell.pid; sleep {LONG_SLEEP_S}"
    ctx.config.current = Settings(sandbox="off")  # host pids; sandboxed: test_sandbox.py
    ctx.allow_always(command)  # exactly this text, operators and all
    task = asyncio.create_task(run(ctx, command=command))
    while not (root / "shell.pid").exists() or not (root / "shell.pid").read_text().strip():
        await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    shell = int((root / "shell.pid").read_text())
    assert not _alive(shell)


async def test_long_output_shows_head_and_tail_and_keeps_all_in_an_artifact(
    ctx: ToolContext, trace: Trace
) -> None:
    command = "seq 1 20000"
    ctx.allowed_commands.append(command)
    outcome = await run(ctx, command=command)
    assert outcome.ok
    lines = outcome.output.splitlines()
    assert (lines[0], lines[2]) == ("$ seq 1 20000", "1")
    assert lines[1].startswith("exit code 0 · ")
    assert lines[-1] == "20000"
    assert len(outcome.output) < MAX_INLINE_OUTPUT_CHARS
    assert any("characters omitted" in line for line in lines)
    stored = trace.read_artifact(outcome.artifact_id).decode().splitlines()
    assert stored == [str(n) for n in range(1, 20001)]


async def test_timeout_above_the_maximum_is_invalid(ctx: ToolContext) -> None:
    outcome = await run(ctx, command="ls", timeout_s=10_000)
    assert not outcome.ok
    assert "invalid arguments for run_command: timeout_s" in outcome.output
