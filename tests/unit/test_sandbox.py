"""The command sandbox (issue 26 item 4): with bubblewrap, a command the agent runs can write
only in the workspace, cannot read the user's secrets, has no network unless allowed, and
dies whole on cancel; without one, `auto` says so and `required` refuses, naming the fix.

The tests that need a working bubblewrap run the real `bwrap` and are skipped, with the
reason, only where it is absent or cannot create a sandbox. Folders outside the workspace
live under /var/tmp, not /tmp: the sandbox's private /tmp would hide them anyway, and the
point is that the rest of the file system is read-only.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import stat
import sys
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cairn.acp.client import permission_call
from cairn.agent.api import Approval, ApprovalRequest, CallSite, CommandRequest, CommandRun
from cairn.agent.tools import ToolContext, default_registry
from cairn.files.settings_layers import load_settings
from cairn.frontends.sentences import sandbox_sentence
from cairn.models.messages import ToolResultPart
from cairn.sandbox import choice
from cairn.sandbox.bubblewrap import BWRAP, probe_bwrap
from cairn.sandbox.choice import choose_sandbox
from cairn.settings import Settings
from cairn.trace import Trace
from tests.unit.conftest import tool_context
from tests.unit.test_agent_support import call, make_engine, reply

REGISTRY = default_registry()
PYTEST = f"{sys.executable} -m pytest"
OUTSIDE_ROOT = Path("/var/tmp")
NO_LANDLOCK = "the kernel has no Landlock (simulated)"


def _bwrap_problem() -> str | None:
    found = shutil.which(BWRAP)
    if found is None:
        return f"{BWRAP} is not installed (Debian: apt-get install bubblewrap)"
    return probe_bwrap(found)


BWRAP_PROBLEM = _bwrap_problem()
needs_bwrap = pytest.mark.skipif(
    BWRAP_PROBLEM is not None, reason=f"no working bubblewrap: {BWRAP_PROBLEM}"
)


@pytest.fixture
def outside() -> Iterator[Path]:
    """A folder outside the workspace and outside /tmp (removed afterwards)."""
    if not OUTSIDE_ROOT.is_dir() or not os.access(OUTSIDE_ROOT, os.W_OK):
        pytest.skip(f"{OUTSIDE_ROOT} is not a writable folder")
    folder = Path(tempfile.mkdtemp(prefix="cairn-sandbox-", dir=OUTSIDE_ROOT))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    return folder


@pytest.fixture
def ctx(root: Path, trace: Trace) -> ToolContext:
    return tool_context(root, trace)


async def run(ctx: ToolContext, command: str, **settings: Any) -> Any:
    ctx.config.current = Settings(**settings)
    ctx.allow_always(command)  # exactly this text: what is tested is the sandbox
    return await REGISTRY.run("run_command", {"command": command}, ctx)


def _results(engine: Any, session_id: str) -> list[ToolResultPart]:
    return [
        part
        for message in engine.session(session_id).messages()
        for part in message.parts
        if isinstance(part, ToolResultPart)
    ]


async def _pytest_turn(root: Path, arguments: str) -> ToolResultPart:
    (root / "test_ok.py").write_text(
        "def test_ok(tmp_path):\n    (tmp_path / 'f').write_text('x')\n"
    )
    command = f"{PYTEST} -q -p no:cacheprovider {arguments}"
    lines = [reply("", call("run_command", command=command)), reply("done")]
    engine = make_engine(root, lines, allowed_commands=[PYTEST])
    try:
        result = await engine.turn("run the tests")
        [outcome] = _results(engine, result.session_id)
        return outcome
    finally:
        engine.close()


@needs_bwrap
async def test_an_allowlisted_pytest_basetemp_outside_runs_sandboxed_and_writes_nothing_there(
    root: Path, outside: Path
) -> None:
    (outside / "keep.txt").write_text("mine")
    outcome = await _pytest_turn(root, f"--basetemp={outside}")
    assert "not allowed" not in outcome.output  # no need to ask: it cannot write there
    assert outcome.data is not None and outcome.data["sandbox"] == "bubblewrap"
    assert "sandboxed (bubblewrap, no network)" in outcome.output
    assert sorted(p.name for p in outside.iterdir()) == ["keep.txt"]
    assert (outside / "keep.txt").read_text() == "mine"


@needs_bwrap
async def test_an_allowlisted_pytest_junitxml_outside_cannot_write_the_file(
    root: Path, outside: Path
) -> None:
    report = outside / "report.xml"
    report.write_text("the user's file")
    outcome = await _pytest_turn(root, f"--junitxml={report}")
    assert outcome.data is not None and outcome.data["sandbox"] == "bubblewrap"
    assert report.read_text() == "the user's file"
    assert "Read-only file system" in outcome.output


@needs_bwrap
async def test_the_workspace_and_a_private_tmp_are_writable(ctx: ToolContext, root: Path) -> None:
    outcome = await run(ctx, "echo made > made.txt && touch /tmp/cairn-private && ls /tmp")
    assert outcome.data["exit_code"] == 0
    assert (root / "made.txt").read_text() == "made\n"
    assert "cairn-private" in outcome.output
    assert not Path("/tmp/cairn-private").exists()


@needs_bwrap
async def test_cairns_own_python_environment_under_tmp_stays_visible(
    ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A venv under /tmp (`cairn demo` from a throwaway venv names its python) is not
    hidden by the private /tmp: it is there, read-only."""
    with tempfile.TemporaryDirectory(dir="/tmp", prefix="cairn-venv-") as env:
        tool = Path(env) / "bin" / "tool"
        tool.parent.mkdir()
        tool.write_text("#!/bin/sh\necho from the venv\n")
        tool.chmod(0o755)
        monkeypatch.setattr(sys, "prefix", env)
        outcome = await run(ctx, f"{tool} && touch {env}/written")
        assert "from the venv" in outcome.output
        assert outcome.data["exit_code"] != 0  # read-only
        assert not (Path(env) / "written").exists()


@pytest.fixture
def fake_home(outside: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = outside / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("-----BEGIN OPENSSH PRIVATE KEY----- planted\n")
    (home / "deploy.pem").write_text("planted pem\n")
    (home / ".netrc").write_text("machine x login planted\n")
    (home / "notes.txt").write_text("readable notes\n")
    monkeypatch.setenv("HOME", str(home))
    return home


@needs_bwrap
async def test_a_sandboxed_command_cannot_read_the_users_secrets(
    ctx: ToolContext, fake_home: Path
) -> None:
    command = "cat ~/.ssh/id_rsa ~/deploy.pem ~/.netrc ~/notes.txt"
    unsandboxed = await run(ctx, command, sandbox="off")
    assert unsandboxed.output.count("planted") == 3  # the files are there to read
    outcome = await run(ctx, command)
    assert outcome.data["sandbox"] == "bubblewrap"
    assert "planted" not in outcome.output
    assert "readable notes" in outcome.output  # the rest of the home folder stays readable


@needs_bwrap
async def test_cairns_own_state_and_the_workspace_records_are_out_of_reach(
    ctx: ToolContext, root: Path, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(outside))  # not under the private /tmp
    secret = outside / "cairn" / "secret"
    secret.parent.mkdir(parents=True)
    secret.write_text("user secret")
    (root / ".cairn").mkdir()
    (root / ".cairn" / "meta.json").write_text("{}")
    command = f"cat {secret}; echo tampered > .cairn/meta.json"
    outcome = await run(ctx, command)
    assert "user secret" not in outcome.output
    assert (root / ".cairn" / "meta.json").read_text() == "{}"


@pytest.fixture
def listener() -> Iterator[int]:
    """A socket listening on 127.0.0.1 (its port)."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    try:
        yield server.getsockname()[1]
    finally:
        server.close()


def _connect_command(port: int) -> str:
    code = f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=5); print('up', 6 * 7)"
    return f'{sys.executable} -c "{code}"'


@needs_bwrap
async def test_no_network_by_default_and_network_when_allowed(
    ctx: ToolContext, listener: int
) -> None:
    command = _connect_command(listener)
    closed = await run(ctx, command)
    assert closed.data["exit_code"] != 0 and "up 42" not in closed.output
    opened = await run(ctx, command, sandbox_network=True)
    assert opened.data["sandbox"] == "bubblewrap"
    assert opened.data["exit_code"] == 0 and "up 42" in opened.output
    assert "sandboxed (bubblewrap, network allowed)" in opened.output


def _without_bwrap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No bwrap on PATH, and no Landlock either (a kernel without it, simulated: the
    Landlock fallback has its own tests, tests/unit/test_sandbox_landlock.py)."""
    empty = tmp_path / "empty-path"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.setattr(choice, "probe_landlock", lambda: NO_LANDLOCK)


async def test_required_without_bwrap_refuses_and_names_the_fix(
    ctx: ToolContext, root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _without_bwrap(tmp_path, monkeypatch)
    outcome = await run(ctx, "echo ran > ran.txt", sandbox="required")
    assert not outcome.ok
    assert f"bwrap was not found on PATH; {NO_LANDLOCK}" in outcome.output
    assert "install bubblewrap" in outcome.output
    assert not (root / "ran.txt").exists()


async def test_auto_without_bwrap_runs_unsandboxed_and_says_so(
    ctx: ToolContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _without_bwrap(tmp_path, monkeypatch)
    outcome = await run(ctx, "echo ran")
    assert outcome.data["exit_code"] == 0 and outcome.data["sandbox"] == "none"
    assert f"not sandboxed (bwrap was not found on PATH; {NO_LANDLOCK})" in outcome.output


async def test_a_bwrap_that_cannot_sandbox_is_found_out_once_and_named(
    ctx: ToolContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "fake-bin"
    folder.mkdir()
    fake = folder / BWRAP
    fake.write_text(
        "#!/bin/sh\necho 'bwrap: No permissions to creating new namespace' >&2\nexit 1\n"
    )
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", str(folder))
    monkeypatch.setattr(choice, "probe_landlock", lambda: NO_LANDLOCK)
    use = choose_sandbox("auto", False)
    assert use.kind == "none"
    assert "cannot create a sandbox here (exit 1: bwrap: No permissions" in use.why_not
    assert probe_bwrap.cache_info().currsize >= 1
    outcome = await run(ctx, "echo ran", sandbox="required")
    assert not outcome.ok and "No permissions to creating new namespace" in outcome.output


def _alive_with(marker: str) -> list[int]:
    found: list[int] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            arguments = (entry / "cmdline").read_bytes().split(b"\0")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in arguments and state != "Z":
            found.append(int(entry.name))
    return found


async def _gone(marker: str) -> list[int]:
    for _ in range(100):
        if not _alive_with(marker):
            break
        await asyncio.sleep(0.05)
    return _alive_with(marker)


@needs_bwrap
async def test_cancel_kills_the_whole_sandboxed_tree_even_a_process_that_left_its_group(
    ctx: ToolContext,
) -> None:
    escaped, waiting = f"600.{uuid.uuid4().int % 10**6}", f"601.{uuid.uuid4().int % 10**6}"
    command = f"setsid sleep {escaped} & sleep {waiting}; wait"
    ctx.config.current = Settings()
    ctx.allow_always(command)
    task = asyncio.create_task(REGISTRY.run("run_command", {"command": command}, ctx))
    while len(_alive_with(escaped) + _alive_with(waiting)) < 2:
        await asyncio.sleep(0.05)
    assert ctx.processes.running()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await _gone(escaped) == [] and await _gone(waiting) == []
    assert ctx.processes.running() == []


@needs_bwrap
async def test_a_front_ends_kill_all_ends_the_sandboxed_tree(ctx: ToolContext) -> None:
    marker = f"602.{uuid.uuid4().int % 10**6}"
    command = f"setsid sleep {marker} & wait"
    ctx.allow_always(command)
    task = asyncio.create_task(REGISTRY.run("run_command", {"command": command}, ctx))
    while not _alive_with(marker):
        await asyncio.sleep(0.05)
    assert ctx.processes.kill_all()
    outcome = await task
    assert outcome.data is not None and outcome.data["exit_code"] != 0
    assert await _gone(marker) == []


@needs_bwrap
async def test_the_editor_terminal_gets_the_sandboxed_command(ctx: ToolContext, root: Path) -> None:
    requests: list[CommandRequest] = []

    async def terminal(request: CommandRequest) -> CommandRun:
        requests.append(request)
        return CommandRun(output="", exit_code=0)

    ctx.run_in_editor = terminal
    outcome = await run(ctx, "touch made.txt")
    [request] = requests
    assert request.command.startswith("exec ") and "--unshare-net" in request.command
    assert request.command.endswith("-- /bin/sh -c 'touch made.txt'")
    assert outcome.data["sandbox"] == "bubblewrap"


@needs_bwrap
async def test_the_approval_request_says_the_command_runs_sandboxed(ctx: ToolContext) -> None:
    asked: list[ApprovalRequest] = []

    async def reject(request: ApprovalRequest) -> Approval:
        asked.append(request)
        return "reject"

    ctx.approve = reject
    await REGISTRY.run("run_command", {"command": "touch x"}, ctx)
    [request] = asked
    sentence = sandbox_sentence(request.sandbox)
    assert sentence == (
        "It runs sandboxed (bubblewrap): it can write only in the workspace, no network."
    )
    assert permission_call(request)["title"].endswith(sentence)


def test_the_unsandboxed_sentence_says_why() -> None:
    use = choose_sandbox("off", False)
    sentence = sandbox_sentence(use)
    assert sentence == 'It runs without a sandbox (sandbox = "off"), with your rights.'
    request = ApprovalRequest(CallSite("s", "c"), "touch x", sandbox=use)
    assert permission_call(request)["title"].endswith(sentence)
    assert sandbox_sentence(None) == ""


def test_an_untrusted_workspace_can_only_tighten_the_sandbox(tmp_path: Path) -> None:
    (tmp_path / "cairn.toml").write_text('sandbox = "off"\nsandbox_network = true\n')
    untrusted = load_settings(tmp_path, trusted=False)
    assert (untrusted.sandbox, untrusted.sandbox_network) == ("auto", False)
    assert set(untrusted.ignored_keys) == {"sandbox", "sandbox_network"}
    trusted = load_settings(tmp_path, trusted=True)
    assert (trusted.sandbox, trusted.sandbox_network) == ("off", True)
    editor = load_settings(tmp_path, {"sandbox": "off", "sandboxNetwork": True}, trusted=False)
    assert (editor.sandbox, editor.sandbox_network) == ("off", True)
    (tmp_path / "cairn.toml").write_text('sandbox = "required"\nsandbox_network = false\n')
    stricter = load_settings(tmp_path, trusted=False)
    assert (stricter.sandbox, stricter.sandbox_network) == ("required", False)
    assert stricter.ignored_keys == ()


def test_an_untrusted_workspace_cannot_loosen_the_users_own_sandbox(tmp_path: Path) -> None:
    """The user's config.toml says `required`: an untrusted `auto` would loosen it."""
    workspace, user_file = tmp_path / "ws", tmp_path / "config.toml"
    workspace.mkdir()
    user_file.write_text('sandbox = "required"\n')
    (workspace / "cairn.toml").write_text('sandbox = "auto"\n')
    environ = {"CAIRN_CONFIG": str(user_file)}
    untrusted = load_settings(workspace, trusted=False, environ=environ)
    assert untrusted.sandbox == "required"
    assert untrusted.ignored_keys == ("sandbox",)
    assert load_settings(workspace, trusted=True, environ=environ).sandbox == "auto"
