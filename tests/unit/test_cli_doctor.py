"""`cairn doctor`: each thing a new user gets wrong is named with its fix, and the exit code
says whether a turn could run (a missing key and an unreachable api_base both stop one)."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from cairn.cli import run_cli
from cairn.commands.doctor import probe
from cairn.files.trust import grant
from tests.fakes.openai_server import OpenAIServer

KEY_VARIABLE = "CAIRN_DOCTOR_KEY"


@pytest.fixture
def closed_port() -> int:
    """A local port nothing listens on (bound once to learn a free number, then closed)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    with OpenAIServer(cache="none") as running:
        yield running


def workspace(root: Path, api_base: str) -> Path:
    (root / "cairn.toml").write_text(
        f'model = "openai/model-a"\napi_base = "{api_base}"\napi_key_env = "{KEY_VARIABLE}"\n'
        "context_window = 32000\n",
        encoding="utf-8",
    )
    grant(root)
    return root


def doctor(capsys: pytest.CaptureFixture[str], folder: Path, *extra: str) -> tuple[int, str]:
    code = run_cli(["doctor", "-w", str(folder), *extra])
    return code, capsys.readouterr().out


def test_a_missing_key_and_an_unreachable_api_base_are_named_with_their_fixes(
    tmp_path: Path,
    closed_port: int,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(KEY_VARIABLE, raising=False)
    api_base = f"http://127.0.0.1:{closed_port}/v1"
    code, out = doctor(capsys, workspace(tmp_path, api_base))
    assert code == 1
    lines = out.splitlines()
    key = lines.index(f"problem  key        {KEY_VARIABLE} is not set (api_key_env names it)")
    assert lines[key + 1].strip() == f"fix: export {KEY_VARIABLE}=<your openai API key>"
    endpoint = next(i for i, line in enumerate(lines) if line.startswith("problem  api_base"))
    assert f"{api_base} does not answer: Connection refused" in lines[endpoint]
    assert "fix: start the server it names, or correct api_base (cairn.toml)" in lines[endpoint + 1]
    assert lines[-1] == "a turn cannot run: fix key, api_base"
    assert "ok       model      openai/model-a (cairn.toml)" in lines


def test_a_working_setup_passes_without_a_model_call(
    tmp_path: Path,
    server: OpenAIServer,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(KEY_VARIABLE, "sk-doctor-secret")
    code, out = doctor(capsys, workspace(tmp_path, server.base_url), "--json")
    checks = {check["name"]: check for check in json.loads(out)}
    assert code == 0, out
    assert checks["key"]["detail"] == f"{KEY_VARIABLE} is set (api_key_env names it)"
    assert checks["api_base"]["ok"] and server.base_url in checks["api_base"]["detail"]
    assert checks["trust"]["ok"] and checks["grammars"]["ok"] and checks["python"]["ok"]
    assert "sk-doctor-secret" not in out
    assert server.requests == []  # no model call: the probe is a plain GET


def test_no_model_and_an_untrusted_folder_say_how_to_fix_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "cairn.toml").write_text(
        'api_base = "http://127.0.0.1:9/v1"\n[mcp.servers.x]\ncommand = "x"\n', encoding="utf-8"
    )
    code, out = doctor(capsys, tmp_path)
    assert code == 1
    assert "problem  model      none configured" in out
    assert "fix: `cairn config set model " in out
    assert "note     trust      cairn.toml's api_base, mcp are ignored" in out
    assert "mcp        no servers in effect (cairn.toml's are ignored: see trust)" in out


def test_the_probe_reports_a_refusal_and_a_non_http_url(closed_port: int) -> None:
    assert probe(f"http://127.0.0.1:{closed_port}/") == "Connection refused"
    assert probe("ftp://example.com/") == "not an http:// or https:// URL"
