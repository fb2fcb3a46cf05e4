"""Allowlist entries are argv patterns, and an allowlisted command whose arguments point
outside the workspace asks (issue 26 item 4)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn.acp.client import permission_call
from cairn.agent.api import Approval, ApprovalRequest, CallSite
from cairn.agent.engine import Engine
from cairn.agent.tools.approval import is_allowlisted, judge_command
from cairn.files.commands import markdown_test_commands
from cairn.models.messages import ToolResultPart
from cairn.models.shell_words import entry_problem
from cairn.settings import Settings
from tests.unit.test_agent_support import call, make_engine, reply, write_script

ALLOWED = [
    "pytest",
    "python -m pytest",
    "python3 -m unittest",
    "uv run pytest",
    "uv run",
    "npm test",
    "bun run test",
    "cat",
    "ls",
]


@pytest.fixture
def folders(tmp_path: Path) -> list[Path]:
    root = tmp_path / "ws"
    (root / "tests").mkdir(parents=True)
    return [root]


@pytest.mark.parametrize(
    "command",
    [
        "pytest --basetemp=/tmp/outside",
        "pytest --basetemp /tmp/outside",
        "pytest -q --junitxml=../x.xml",
        "pytest --junit-xml ../x.xml",
        "pytest -o cache_dir=/tmp/x",
        "pytest --override-ini=cache_dir=/tmp/x",
        "pytest -p evil",
        "pytest -pevil",
        "pytest -vp evil",
        "pytest -o addopts=-pevil",
        "pytest --rootdir=/",
        "pytest -c /tmp/x.ini",
        "pytest --config-file=/tmp/x.ini",
        "pytest --confcutdir=..",
        "pytest --log-file=/tmp/log",
        "pytest --cov-report=html:/tmp/cov",
        "pytest /etc",
        "pytest tests/../../elsewhere",
        "pytest ~/tests",
        "pytest --basetemp=.",
        "pytest --junitxml=.git/config",
        "pytest $HOME",
        "pytest *",
        "pytest tests/.?/.?/x",
        "python -m pytest --basetemp=/tmp/outside",
        "uv run pytest -p evil",
        "uv run --with evil pytest",
        "python3 -m unittest discover -s /tmp/x",
        "python3 -m unittest discover -t ..",
        "npm test -- --watch",
        "bun run test --preload ./evil.ts",
        "cat /etc/passwd",
        "ls ../..",
    ],
)
def test_an_allowlisted_command_with_a_path_outside_asks(folders: list[Path], command: str) -> None:
    verdict = judge_command(command, ALLOWED, folders)
    assert not verdict.allowed
    assert verdict.reason, "the approval request says why"


@pytest.mark.parametrize(
    "command",
    [
        "pytest",
        "pytest -q tests/test_x.py",
        "pytest --basetemp=.tmp",
        "pytest --basetemp .tmp -q",
        "pytest --junitxml=reports/junit.xml",
        "pytest -p no:cacheprovider -q",
        "pytest -ra -k 'not slow' --import-mode=importlib",
        "pytest 'tests/test_x.py::test_a[1-2]'",
        "pytest tests/test_*.py",
        "python -m pytest -x tests",
        "uv run pytest -q tests",
        "python3 -m unittest discover -s tests -t .",
        "npm test",
        "cat README.md",
        "ls tests",
    ],
)
def test_an_allowlisted_command_inside_the_workspace_does_not_ask(
    folders: list[Path], command: str
) -> None:
    assert judge_command(command, ALLOWED, folders).allowed


def test_a_symbolic_link_out_of_the_workspace_is_followed(
    folders: list[Path], tmp_path: Path
) -> None:
    (tmp_path / "outside").mkdir()
    (folders[0] / "link").symlink_to(tmp_path / "outside")
    verdict = judge_command("pytest --basetemp=link/tmp", ALLOWED, folders)
    assert not verdict.allowed and str(tmp_path / "outside") in verdict.reason


def test_a_command_with_operators_never_matches_even_its_own_text(folders: list[Path]) -> None:
    entry = "pytest -q; touch X"
    assert not is_allowlisted(entry, [entry])
    assert not is_allowlisted("pytest -q; touch X", ["pytest"])
    assert not judge_command(entry, [entry], folders).allowed
    # ... unless the user answered "always" to exactly that text.
    assert judge_command(entry, [], folders, approved=[entry]).allowed
    assert not judge_command(entry + " Y", [], folders, approved=[entry]).allowed


def test_the_subfolder_form_cairn_writes_is_a_pattern(folders: list[Path]) -> None:
    (folders[0] / "web").mkdir()
    allowed = ["cd web && npm test", "cd web && pytest"]
    assert judge_command("cd web && npm test", allowed, folders).allowed
    assert judge_command("cd web && pytest -q ../tests", allowed, folders).allowed
    assert not judge_command("cd web && pytest ../../x", allowed, folders).allowed
    assert not judge_command("cd web && npm test; rm -rf ~", allowed, folders).allowed
    assert not judge_command("cd other && pytest", allowed, folders).allowed


def test_an_entry_with_shell_operators_is_refused_by_the_settings() -> None:
    with pytest.raises(ValueError, match=r"'pytest -q; touch X' is refused.*operator ';'"):
        Settings.model_validate({"allowed_commands": ["pytest", "pytest -q; touch X"]})
    with pytest.raises(ValueError, match=r"'make \$TARGET' is refused"):
        Settings.model_validate({"allowed_commands": ["make $TARGET"]})
    assert Settings.model_validate({"allowed_commands": ["cd web && npm test"]})
    assert entry_problem("pytest -q") is None


def test_a_rules_file_operator_span_is_not_an_entry() -> None:
    text = "Run `pytest -q; touch X` or `pytest -q && curl x` first, then `pytest -q tests`."
    assert markdown_test_commands(text) == ["pytest -q tests"]


def _results(engine: Engine, session_id: str) -> list[ToolResultPart]:
    return [
        part
        for message in engine.session(session_id).messages()
        for part in message.parts
        if isinstance(part, ToolResultPart)
    ]


async def test_an_agents_md_operator_command_asks(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("Always run `pytest -q; touch X` before finishing.\n")
    command = "pytest -q; touch X"
    lines = [reply("", call("run_command", command=command)), reply("done")]
    engine = make_engine(tmp_path, lines, allowed_commands=None)
    try:
        assert command not in engine.project_profile().test_suites.values()
        result = await engine.turn("run the tests")
        [outcome] = _results(engine, result.session_id)
        assert not outcome.ok and "command not allowed" in outcome.output
        assert not (tmp_path / "X").exists()
    finally:
        engine.close()


async def test_an_allowlisted_pytest_cannot_empty_a_folder_outside(tmp_path: Path) -> None:
    root, outside = tmp_path / "ws", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "keep.txt").write_text("mine")
    command = f"pytest -q --basetemp={outside}"
    lines = [reply("", call("run_command", command=command)), reply("done")]
    # Without a sandbox; in one it runs and cannot write there (tests/unit/test_sandbox.py).
    engine = make_engine(root, lines, allowed_commands=["pytest"], sandbox="off")
    try:
        result = await engine.turn("run the tests")
        [outcome] = _results(engine, result.session_id)
        assert not outcome.ok
        assert "command not allowed without approval" in outcome.output
        assert f"points outside the workspace ({outside})" in outcome.output
        assert (outside / "keep.txt").read_text() == "mine"
    finally:
        engine.close()


async def test_the_approver_is_told_why_an_allowlisted_command_asks(tmp_path: Path) -> None:
    asked: list[ApprovalRequest] = []

    async def reject(request: ApprovalRequest) -> Approval:
        asked.append(request)
        return "reject"

    command = "pytest --junitxml=../report.xml"
    model = write_script(tmp_path, [reply("", call("run_command", command=command)), reply("ok")])
    settings = Settings(model=model, allowed_commands=["pytest"], sandbox="off")
    engine = Engine([tmp_path], settings, approver=reject)
    try:
        await engine.turn("run the tests")
        [request] = asked
        assert request.command == command
        assert "'--junitxml=../report.xml' points outside the workspace" in request.reason
    finally:
        engine.close()


def test_the_acp_permission_title_says_why_it_asks() -> None:
    reason = "'--basetemp=/tmp/x' points outside the workspace (/tmp/x)"
    request = ApprovalRequest(CallSite("s", "c"), "pytest --basetemp=/tmp/x", reason=reason)
    call_ = permission_call(request)
    assert call_["title"].endswith(f"(asked because {reason})")
    assert call_["rawInput"] == {"command": "pytest --basetemp=/tmp/x"}
    plain = permission_call(ApprovalRequest(CallSite("s", "c"), "touch x"))
    assert "asked because" not in plain["title"]
