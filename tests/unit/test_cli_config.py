"""`cairn config` (show, path, set, edit) and CAIRN_MODEL, as a user meets them on the command
line: a model configured once for every folder, each value's source, edits that keep the
file's comments and are validated before they are written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from cairn.cli import run_cli
from cairn.files.trust import grant, is_trusted
from cairn.files.user_config import CONFIG_ENV, MODEL_ENV

CLI_TIMEOUT_S = 240


def user_file(config_home: Path, text: str) -> Path:
    path = config_home / "cairn" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = run_cli(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_cairn_model_alone_makes_cairn_context_work_in_an_empty_folder(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    run = [sys.executable, "-m", "cairn", "context", "--json"]
    common = {"cwd": tmp_path, "capture_output": True, "text": True, "timeout": CLI_TIMEOUT_S}
    without = subprocess.run(run, env=env, check=False, **common)
    assert without.returncode == 1 and "no model configured" in without.stderr
    assert "`cairn config set model " in without.stderr and "CAIRN_MODEL=" in without.stderr
    done = subprocess.run(run, env={**env, MODEL_ENV: "openai/gpt-4.1"}, check=False, **common)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["model"] == "openai/gpt-4.1"
    assert not (tmp_path / "cairn.toml").exists()


def test_config_show_names_each_values_source(
    tmp_path: Path,
    isolated_user_config: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = user_file(
        isolated_user_config,
        'model = "anthropic/claude-haiku-4-5"\nmax_output_tokens = 1000\n'
        'extra_headers = { Authorization = "Bearer sk-secret", "X-Team" = "${TEAM}" }\n',
    )
    (tmp_path / "cairn.toml").write_text(
        'context_window = 64000\napi_base = "http://w.example/v1"\n', encoding="utf-8"
    )
    monkeypatch.setenv(MODEL_ENV, "openai/gpt-4.1")
    code, out, _ = cli(capsys, "config", "show", "--dir", str(tmp_path))
    assert code == 0
    lines = {line.split(" ")[0]: line for line in out.splitlines() if " = " in line}
    assert lines["model"].endswith(f"# {MODEL_ENV}")
    assert lines["context_window"].endswith("# cairn.toml")
    assert lines["max_output_tokens"].endswith(f"# user config {path}")
    assert lines["safety_margin"].endswith("# default")
    assert "sk-secret" not in out and 'X-Team = "${TEAM}"' in out
    assert "api_base is ignored: this folder is not trusted" in out
    code, out, _ = cli(capsys, "config", "show", "--dir", str(tmp_path), "--json")
    shown = json.loads(out)
    assert shown["settings"]["model"] == {
        "value": "openai/gpt-4.1",
        "origin": "environment",
        "source": MODEL_ENV,
    }
    assert shown["settings"]["max_output_tokens"]["origin"] == "user config"
    assert shown["ignored"] == ["api_base"] and shown["files"]["user"]["exists"] is True


def test_config_path_names_both_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    other = tmp_path / "team.toml"
    monkeypatch.setenv(CONFIG_ENV, str(other))
    code, out, _ = cli(capsys, "config", "path", "--dir", str(tmp_path))
    assert code == 0
    assert out.splitlines() == [
        f"user       {other}  (does not exist; named by {CONFIG_ENV})",
        f"workspace  {tmp_path / 'cairn.toml'}  (does not exist)",
    ]


def test_config_set_keeps_the_files_comments_and_validates_first(
    tmp_path: Path, isolated_user_config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = '# my models\nmodel = "openai/gpt-4o"  # the fast one\n\nstepLimit = 20\n'
    path = user_file(isolated_user_config, text)
    assert cli(capsys, "config", "set", "model", "anthropic/claude-sonnet-4-5")[0] == 0
    assert cli(capsys, "config", "set", "step_limit", "30")[0] == 0
    assert cli(capsys, "config", "set", "mcp.servers.docs.command", "docs-server")[0] == 0
    written = path.read_text(encoding="utf-8")
    assert written.startswith(
        '# my models\nmodel = "anthropic/claude-sonnet-4-5"  # the fast one\n'
    )
    assert tomllib.loads(written) == {
        "model": "anthropic/claude-sonnet-4-5",
        "stepLimit": 30,  # the key the file already used
        "mcp": {"servers": {"docs": {"command": "docs-server"}}},
    }
    code, _, err = cli(capsys, "config", "set", "step_limit", "0")
    assert code == 1 and f"{path}: setting 'stepLimit'" in err  # the key as the file has it
    code, _, err = cli(capsys, "config", "set", "stepp_limit", "3")
    assert code == 1 and "unknown setting 'stepp_limit' (did you mean 'step_limit'?)" in err
    assert path.read_text(encoding="utf-8") == written  # nothing written on an error


def test_config_set_in_a_workspace_says_what_wins_and_when_trust_lapses(
    tmp_path: Path, isolated_user_config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "cairn.toml").write_text('model = "openai/gpt-4o"\n', encoding="utf-8")
    grant(tmp_path)
    code, out, _ = cli(capsys, "config", "set", "model", "openai/o3", "--dir", str(tmp_path))
    assert code == 0 and f"in {tmp_path}, model comes from cairn.toml" in out
    args = ["config", "set", "api_base", "http://127.0.0.1:9/v1", "--workspace"]
    code, out, _ = cli(capsys, *args, "--dir", str(tmp_path))
    assert code == 0 and "is no longer trusted until you run `cairn trust" in out
    assert not is_trusted(tmp_path)
    written = tomllib.loads((tmp_path / "cairn.toml").read_text(encoding="utf-8"))
    assert written == {"model": "openai/gpt-4o", "api_base": "http://127.0.0.1:9/v1"}
    code, _, err = cli(capsys, "config", "set", "model", "x/y", "--user", "--workspace")
    assert code == 2 and "choose --user or --workspace" in err


def test_config_edit_creates_the_file_and_shows_an_error_after_the_editor(
    tmp_path: Path,
    isolated_user_config: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    editor = tmp_path / "editor.py"
    editor.write_text(
        "import sys\nwith open(sys.argv[-1], 'a') as f:\n    f.write(sys.argv[1] + '\\n')\n",
        encoding="utf-8",
    )
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", f"{sys.executable} {editor} 'step_limit = 0'")
    code, _, err = cli(capsys, "config", "edit")
    path = isolated_user_config / "cairn" / "config.toml"
    assert code == 1
    assert f"{path}: setting 'step_limit'" in err and "kept as you left it" in err
    assert path.read_text(encoding="utf-8").startswith("# Cairn's user settings")
    monkeypatch.setenv("VISUAL", f"{sys.executable} {editor} 'explore_concurrency = 2'")
    path.write_text("", encoding="utf-8")
    code, out, _ = cli(capsys, "config", "edit", "--user")
    assert code == 0 and out == f"{path}: valid\n"
    monkeypatch.delenv("VISUAL")
    monkeypatch.delenv("EDITOR")
    code, _, err = cli(capsys, "config", "edit")
    assert code == 1 and "set $VISUAL or $EDITOR" in err
