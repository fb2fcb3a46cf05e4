"""Command approvals: run once, always (the session's allowlist learns it), reject; AGENTS.md."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from cairn.agent.api import Approval, ApprovalRequest
from cairn.agent.engine import Engine
from cairn.files.commands import markdown_test_commands
from cairn.models.messages import ToolCallPart, ToolResultPart
from cairn.settings import Settings
from tests.unit.test_agent_support import call, reply, write_script

COMMAND = f"{shlex.quote(sys.executable)} -c 'print(40 + 2)'"


class Asker:
    """An approver answering from a list, keeping every request."""

    def __init__(self, *answers: Approval) -> None:
        self.answers = list(answers)
        self.asked: list[ApprovalRequest] = []

    async def __call__(self, request: ApprovalRequest) -> Approval:
        self.asked.append(request)
        return self.answers.pop(0)


def engine_with(root: Path, lines: list[dict[str, object]], asker: Asker) -> Engine:
    model = write_script(root, lines)
    settings = Settings(model=model, allowed_commands=[])
    return Engine([root], settings, approver=asker)


def results(engine: Engine, session_id: str) -> list[ToolResultPart]:
    return [
        part
        for message in engine.session(session_id).messages()
        for part in message.parts
        if isinstance(part, ToolResultPart)
    ]


async def test_always_teaches_the_session_allowlist(tmp_path: Path) -> None:
    run = call("run_command", command=COMMAND)
    again = call("run_command", command=COMMAND + " extra-arg")
    lines = [reply("", run), reply("", again), reply("done"), reply("", run), reply("done")]
    asker = Asker("always")
    engine = engine_with(tmp_path, lines, asker)
    first = await engine.turn("run it")
    [request] = asker.asked
    assert request.command == COMMAND and request.tool is None  # a shell command, not an MCP tool
    assert request.site.session_id == first.session_id and request.turn_id == first.turn_id
    calls = [
        part.call_id
        for message in engine.session(first.session_id).messages()
        for part in message.parts
        if isinstance(part, ToolCallPart)
    ]
    assert request.site.call_id == calls[0]
    assert [r.ok for r in results(engine, first.session_id)] == [True, True]
    assert "42" in results(engine, first.session_id)[0].output
    assert engine.session(first.session_id).meta().allowed_commands == [COMMAND]

    fork = engine.fork(first.session_id)
    await engine.turn("and again", session_id=fork)
    assert len(asker.asked) == 1, "the fork inherits the allowlist; nothing more was asked"
    engine.close()


async def test_reject_fails_the_call_with_the_command_and_once_asks_again(tmp_path: Path) -> None:
    run = call("run_command", command=COMMAND)
    lines = [reply("", run), reply("", run), reply("ok")]
    asker = Asker("reject", "once")
    engine = engine_with(tmp_path, lines, asker)
    result = await engine.turn("run it twice")
    first, second = results(engine, result.session_id)
    assert not first.ok and f"command not approved by the user: {COMMAND}" in first.output
    assert second.ok and "42" in second.output
    assert len(asker.asked) == 2
    assert engine.session(result.session_id).meta().allowed_commands == []
    engine.close()


def test_test_commands_are_read_from_code_in_markdown() -> None:
    text = (
        "# Rules\n\nRun `python -m pytest -q` before you finish. Never run `rm -rf /`.\n\n"
        "```bash\n$ npm test -- --watch=false\n# a comment\nmake lint\n```\n"
        "    go test ./...\n"
    )
    assert markdown_test_commands(text) == [
        "python -m pytest -q",
        "npm test -- --watch=false",
        "go test ./...",
    ]


async def test_the_agents_md_test_command_runs_without_asking(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("Run the tests with `python -m pytest -q`.\n")
    (tmp_path / "web").mkdir()
    (tmp_path / "web" / "AGENTS.md").write_text("```\nnpm test\n```\n")
    (tmp_path / "test_ok.py").write_text("def test_ok():\n    assert True\n")
    lines = [reply("", call("run_command", command="python -m pytest -q")), reply("ok")]
    engine = Engine([tmp_path], Settings(model=write_script(tmp_path, lines)), approver=Asker())
    suites = engine.project_profile().test_suites
    assert suites["AGENTS.md"] == "python -m pytest -q"
    assert suites["web/AGENTS.md"] == "cd web && npm test"
    result = await engine.turn("test it")
    [tool] = results(engine, result.session_id)
    assert "command not" not in tool.output, "allowed without an approver being asked"
    engine.close()
