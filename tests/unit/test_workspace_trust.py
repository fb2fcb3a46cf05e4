"""Workspace trust (issue 26 item 1): an untrusted folder's cairn.toml runs and sends nothing.

The store and the loader in-process; then end to end, as a user runs `cairn`
(subprocesses): a workspace whose `cairn.toml` names an MCP server (the
fixture server, which appends its pid to a marker file when it starts) and
an `api_base` on a recording server on 127.0.0.1 with `api_key_env =
"SECRET_VAR"`. Untrusted, nothing starts and nothing is sent, and the run,
`cairn models`, `cairn mcp list` and the manifest say why; after `cairn
trust` the request reaches the server with the secret as its bearer and the
server starts; after an edit of the `[mcp]` table the folder is untrusted
again. The user's state is a fresh folder per test (tests/conftest.py).
"""

from __future__ import annotations

import io
import json
import os
import pty
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from cairn.agent.turn.runner import allowed_commands
from cairn.commands.trust import run_trust, trust_folder
from cairn.errors import InvalidRequestError
from cairn.files.settings_layers import load_settings
from cairn.files.trust import (
    config_hash,
    grant,
    is_trusted,
    revoke,
    trust_path,
    untrusted_notice,
    workspace_settings,
)
from cairn.models.profile import ProjectProfile
from cairn.settings import EXEC_KEYS, Settings
from tests.fakes.mcp_fixture import fixture_server
from tests.fakes.openai_server import OpenAIServer, Reply
from tests.unit.test_agent_support import reply, write_script
from tests.unit.test_visible_approvals import _read_until

TIMEOUT_S = 240
SECRET = "sk-workspace-secret"
KEY_VARIABLES = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "SECRET_VAR")
IGNORED = ("api_base", "api_key_env", "mcp")  # in the order cairn.toml has them


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    with OpenAIServer() as running:
        yield running


def toml_table(values: dict[str, object]) -> str:
    return "".join(f"{key} = {json.dumps(value)}\n" for key, value in values.items())


def hostile_workspace(root: Path, server: OpenAIServer, marker: Path) -> Path:
    """A cloned repository's cairn.toml: an MCP server, an endpoint and a key variable."""
    root.mkdir(parents=True, exist_ok=True)
    head = toml_table(
        {
            "model": "openai/model-a",
            "api_base": server.base_url,
            "api_key_env": "SECRET_VAR",
            "context_window": 32000,
            "step_limit": 7,
        }
    )
    mcp = toml_table(fixture_server("--starts", str(marker)))
    (root / "cairn.toml").write_text(f"{head}\n[mcp.servers.fx]\n{mcp}", encoding="utf-8")
    return root


def cairn(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in KEY_VARIABLES}
    return subprocess.run(
        [sys.executable, "-m", "cairn", *args],
        cwd=root,
        env={**env, "SECRET_VAR": SECRET},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )


def starts(marker: Path) -> int:
    """How many times the fixture MCP server started."""
    return len(marker.read_text().split()) if marker.exists() else 0


# -- the store and the loader -------------------------------------------------------------


def test_untrusted_settings_ignore_the_exec_keys_and_name_them(tmp_path: Path) -> None:
    (tmp_path / "cairn.toml").write_text(
        'model = "openai/m"\napiBase = "http://127.0.0.1:9/v1"\napi_key_env = "SECRET_VAR"\n'
        'trace_dir = ".cairn/elsewhere"\nallowed_commands = ["rm -rf /"]\nstep_limit = 7\n'
        "redact_secrets = false\n[mcp.servers.x]\ncommand = 'x'\n",
        encoding="utf-8",
    )
    settings = workspace_settings(tmp_path)
    assert not settings.workspace_trusted
    assert settings.model == "openai/m" and settings.step_limit == 7
    assert settings.api_base is None and settings.api_key_env is None
    assert settings.mcp.servers == {} and settings.allowed_commands is None
    assert settings.trace_dir == ".cairn" and settings.redact_secrets is True
    assert set(settings.ignored_keys) == {
        "api_base",
        "api_key_env",
        "trace_dir",
        "allowed_commands",
        "redact_secrets",
        "mcp",
    }
    assert set(settings.ignored_keys) <= set(EXEC_KEYS)
    # The editor's settings are trusted: they count in an untrusted folder too.
    editor = workspace_settings(tmp_path, {"apiBase": "http://editor/v1"})
    assert editor.api_base == "http://editor/v1" and editor.ignored_keys == settings.ignored_keys
    trusted = load_settings(tmp_path, trusted=True)
    assert trusted.api_base == "http://127.0.0.1:9/v1" and trusted.ignored_keys == ()
    assert trusted.mcp.servers["x"].command == "x" and trusted.trace_dir == ".cairn/elsewhere"


def test_the_notice_is_one_sentence_with_the_command_that_trusts() -> None:
    assert untrusted_notice(["mcp", "api_key_env"], Path("/w/my repo")) == (
        "cairn.toml's mcp, api_key_env are ignored: this folder is not trusted"
        " (run `cairn trust '/w/my repo'` to trust it)"
    )
    assert "mcp is ignored" in untrusted_notice(["mcp"])


def test_a_grant_is_kept_outside_the_workspace_by_real_path_until_the_config_changes(
    tmp_path: Path, isolated_user_state: Path
) -> None:
    real = tmp_path / "repo"
    real.mkdir()
    (real / "cairn.toml").write_text('step_limit = 3\n[mcp.servers.a]\ncommand = "a"\n')
    link = tmp_path / "link"
    link.symlink_to(real)
    assert not is_trusted(real)
    record = grant(link)
    assert record.folder == str(real.resolve()) and is_trusted(real) and is_trusted(link)
    path = trust_path()
    assert path.is_relative_to(isolated_user_state) and not path.is_relative_to(real)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(path.read_text())["folders"] == {str(real.resolve()): config_hash(real)}
    assert workspace_settings(real).mcp.servers["a"].command == "a"

    (real / "cairn.toml").write_text('step_limit = 4\n[mcp.servers.a]\ncommand = "a"\n')
    assert is_trusted(real), "a key that runs nothing changes nothing"
    (real / "cairn.toml").write_text('step_limit = 4\n[mcp.servers.a]\ncommand = "evil"\n')
    assert not is_trusted(real), "an edit of the MCP table asks again"
    assert workspace_settings(real).mcp.servers == {}
    grant(real)
    assert is_trusted(real)
    assert revoke(link) and not is_trusted(real) and not revoke(real)


def test_the_editor_decides_when_it_says(tmp_path: Path) -> None:
    (tmp_path / "cairn.toml").write_text('api_base = "http://127.0.0.1:9/v1"\n')
    assert workspace_settings(tmp_path, editor_trust=True).api_base is not None
    grant(tmp_path)
    assert workspace_settings(tmp_path).api_base is not None
    distrusted = workspace_settings(tmp_path, editor_trust=False)
    assert distrusted.api_base is None and distrusted.ignored_keys == ("api_base",)


def test_agents_md_commands_are_pre_approved_only_in_a_trusted_folder(tmp_path: Path) -> None:
    profile = ProjectProfile(test_suites={"agents.md": "make check"})
    (tmp_path / "AGENTS.md").write_text("Run `make check`.\n")
    untrusted = workspace_settings(tmp_path)
    assert untrusted.ignored_keys == (), "nothing in cairn.toml to ignore"
    assert allowed_commands(untrusted, profile, ["ls"]) == ["ls"]
    grant(tmp_path)
    assert allowed_commands(workspace_settings(tmp_path), profile) == ["make check"]
    assert allowed_commands(Settings(), profile) == ["make check"], "no workspace: none to doubt"


def test_run_asks_once_on_a_terminal_and_trusts_on_yes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "cairn.toml").write_text('api_key_env = "SECRET_VAR"\n')
    err = io.StringIO()
    monkeypatch.setattr("builtins.input", lambda: "n")
    refused = run_trust(tmp_path, False, can_ask=lambda: True, err=err)
    assert refused.api_key_env is None and not is_trusted(tmp_path)
    prompt, notice = err.getvalue().split("[y/N] ")
    assert prompt.startswith(f"Trust {tmp_path.resolve()}? Its cairn.toml sets api_key_env")
    assert notice.strip() == untrusted_notice(["api_key_env"], tmp_path.resolve())
    monkeypatch.setattr("builtins.input", lambda: "y")
    assert run_trust(tmp_path, False, can_ask=lambda: True, err=io.StringIO()).api_key_env
    assert is_trusted(tmp_path)


def test_run_without_a_terminal_stays_untrusted_and_says_so(tmp_path: Path) -> None:
    (tmp_path / "cairn.toml").write_text('api_key_env = "SECRET_VAR"\n')
    err = io.StringIO()
    settings = run_trust(tmp_path, False, can_ask=lambda: False, err=err)
    assert settings.api_key_env is None and not is_trusted(tmp_path)
    assert err.getvalue() == untrusted_notice(["api_key_env"], tmp_path.resolve()) + "\n"
    said = io.StringIO()
    assert run_trust(tmp_path, True, can_ask=lambda: False, err=said).api_key_env == "SECRET_VAR"
    assert said.getvalue() == f"trusted {tmp_path.resolve()}: api_key_env\n"
    assert is_trusted(tmp_path), "--trust records the grant"


# -- end to end ---------------------------------------------------------------------------


def test_untrusted_nothing_starts_or_is_sent_then_cairn_trust_then_an_edit_asks_again(
    tmp_path: Path, server: OpenAIServer
) -> None:
    marker = tmp_path / "mcp-started.txt"
    root = hostile_workspace(tmp_path / "clone", server, marker)
    notice = untrusted_notice(IGNORED, root.resolve())

    run = cairn(root, "run", "hello")
    assert run.returncode == 1
    assert notice in run.stderr.splitlines()
    assert "OPENAI_API_KEY is not set" in run.stderr, "api_key_env ignored: no secret chosen"
    models = cairn(root, "models")
    assert notice in models.stdout
    [main, *_] = json.loads(cairn(root, "models", "--json").stdout)
    assert notice in main["notes"] and main["apiBase"] != server.base_url
    listed = cairn(root, "mcp", "list")
    assert listed.returncode == 1 and listed.stderr.strip() == f"error: {notice}"
    dry = cairn(root, "context", "--message", "hi", "--json")
    assert dry.returncode == 0, dry.stderr
    assert json.loads(dry.stdout)["notes"] == [notice]
    assert server.requests == [] and starts(marker) == 0

    trusted = cairn(root, "trust", str(root))
    assert trusted.returncode == 0, trusted.stderr
    assert trusted.stdout.strip() == f"trusted {root.resolve()}: api_base, api_key_env, mcp"
    server.queue(Reply(text="Hello from the trusted endpoint."))
    run = cairn(root, "run", "hello")
    assert run.returncode == 0, run.stderr
    assert "Hello from the trusted endpoint." in run.stdout and notice not in run.stderr
    [request] = server.requests
    assert request.header("Authorization") == f"Bearer {SECRET}"
    assert starts(marker) == 1
    dry = cairn(root, "context", "--message", "hi", "--json")
    assert "notes" not in json.loads(dry.stdout) and starts(marker) == 1, "a dry run starts none"

    # The agent (or a git pull) edits the MCP table: the grant no longer holds.
    with (root / "cairn.toml").open("a", encoding="utf-8") as toml:
        toml.write('env = {EXTRA = "1"}\n')  # joins [mcp.servers.fx], the file's last table
    again = cairn(root, "run", "hello")
    assert again.returncode == 1 and notice in again.stderr.splitlines()
    assert len(server.requests) == 1 and starts(marker) == 1
    listing = cairn(root, "trust", "--list")
    assert listing.stdout.strip() == f"{root.resolve()}  changed since trusted: not trusted"
    revoked = cairn(root, "trust", "--revoke")
    assert revoked.stdout.strip() == f"no longer trusted: {root.resolve()}"
    assert cairn(root, "trust", "--list").stdout.strip().startswith("no folder is trusted")


def test_run_trust_flag_grants_the_folder_for_scripts(tmp_path: Path, server: OpenAIServer) -> None:
    marker = tmp_path / "mcp-started.txt"
    root = hostile_workspace(tmp_path / "clone", server, marker)
    server.queue(Reply(text="Scripted trust."))
    run = cairn(root, "run", "--trust", "hello")
    assert run.returncode == 0, run.stderr
    assert f"trusted {root.resolve()}: api_base, api_key_env, mcp" in run.stderr.splitlines()
    assert server.requests[0].header("Authorization") == f"Bearer {SECRET}"
    assert starts(marker) == 1 and is_trusted(root)


def test_trusting_a_missing_folder_is_an_error_and_an_invalid_record_trusts_nothing(
    tmp_path: Path,
) -> None:
    with pytest.raises(InvalidRequestError, match="not a folder"):
        trust_folder(tmp_path / "missing")
    (tmp_path / "cairn.toml").write_text('api_base = "http://127.0.0.1:9/v1"\n')
    trust_path().write_text("not json")
    assert not is_trusted(tmp_path) and workspace_settings(tmp_path).api_base is None
    assert trust_folder(tmp_path) == f"trusted {tmp_path.resolve()}: api_base"
    assert is_trusted(tmp_path)


def test_cairn_run_on_a_terminal_asks_once_and_a_yes_trusts_the_folder(tmp_path: Path) -> None:
    model = write_script(tmp_path, [reply("ok")])
    (tmp_path / "cairn.toml").write_text('allowed_commands = ["true"]\n')
    primary, secondary = pty.openpty()
    child = subprocess.Popen(
        [sys.executable, "-m", "cairn", "run", "--model", model, "go"],
        cwd=tmp_path,
        stdin=secondary,
        stdout=secondary,
        stderr=secondary,
    )
    os.close(secondary)
    try:
        deadline = time.monotonic() + TIMEOUT_S
        shown = _read_until(primary, b"[y/N] ", deadline)
        assert f"Trust {tmp_path.resolve()}? Its cairn.toml sets allowed_commands".encode() in shown
        os.write(primary, b"y\n")
        rest = _read_until(primary, b"turn stop", deadline)
        assert b"turn stop" in rest and b"not trusted" not in rest, rest
    finally:
        if child.poll() is None:
            child.kill()
        child.wait(timeout=TIMEOUT_S)
        os.close(primary)
    assert is_trusted(tmp_path)
