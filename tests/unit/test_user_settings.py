"""The user's own settings: their config.toml, CAIRN_CONFIG and CAIRN_MODEL among the layers.

Precedence, lowest first: defaults < user config < the workspace's cairn.toml
(its exec-relevant keys only when trusted) < CAIRN_MODEL < the editor < flags;
the user's file is trusted, so its exec-relevant keys apply in every folder.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn.errors import SettingsError
from cairn.files.settings_layers import load_settings, origin_label
from cairn.files.trust import grant, workspace_settings
from cairn.files.user_config import (
    CONFIG_ENV,
    MODEL_ENV,
    default_user_config_path,
    user_config_path,
)
from cairn.frontends.settings_fallback import settings_with_fallback
from cairn.settings import with_flags

USER_TOML = """\
model = "anthropic/claude-haiku-4-5"
context_window = 1000
max_output_tokens = 111
api_base = "http://user.example/v1"
allowed_commands = ["make check"]
[mcp.servers.notes]
command = "notes-server"
"""
WORKSPACE_TOML = """\
model = "openai/gpt-4.1"
context_window = 64000
api_base = "http://workspace.example/v1"
[mcp.servers.repo]
command = "repo-server"
"""


def _user_file(config_home: Path, text: str = USER_TOML) -> Path:
    path = config_home / "cairn" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_the_user_file_is_in_the_platform_config_folder(isolated_user_config: Path) -> None:
    assert default_user_config_path() == isolated_user_config / "cairn" / "config.toml"
    assert user_config_path({}) == default_user_config_path()
    assert user_config_path({CONFIG_ENV: "~/other.toml"}) == Path.home() / "other.toml"


def test_each_source_wins_over_the_ones_below_it(
    tmp_path: Path, isolated_user_config: Path
) -> None:
    _user_file(isolated_user_config)
    (tmp_path / "cairn.toml").write_text(WORKSPACE_TOML, encoding="utf-8")
    env = {MODEL_ENV: "gemini/gemini-2.5-pro"}
    settings = load_settings(tmp_path, {"stepLimit": 7}, trusted=True, environ=env)
    assert settings.model == "gemini/gemini-2.5-pro"  # CAIRN_MODEL over both files
    assert settings.context_window == 64000  # cairn.toml over the user's file
    assert settings.max_output_tokens == 111  # the user's file over the default
    assert settings.step_limit == 7  # the editor over everything loaded
    origins = settings.origins
    assert origins["model"] == "environment" and origins["context_window"] == "cairn.toml"
    assert origins["max_output_tokens"] == "user config" and origins["step_limit"] == "editor"
    assert origins["safety_margin"] == "default"
    editor = load_settings(tmp_path, {"model": "openai/o3"}, trusted=True, environ=env)
    assert editor.model == "openai/o3" and editor.origins["model"] == "editor"
    flagged = with_flags(editor, {"model": "openai/gpt-4o", "step_limit": None})
    assert flagged.model == "openai/gpt-4o" and flagged.origins["model"] == "flag"
    assert flagged.origins["max_output_tokens"] == "user config"
    # MCP servers join by name across the layers.
    assert sorted(settings.mcp.servers) == ["notes", "repo"]


def test_the_user_file_is_trusted_and_the_workspace_only_when_trusted(
    tmp_path: Path, isolated_user_config: Path
) -> None:
    _user_file(isolated_user_config)
    (tmp_path / "cairn.toml").write_text(WORKSPACE_TOML, encoding="utf-8")
    untrusted = workspace_settings(tmp_path)
    assert untrusted.api_base == "http://user.example/v1"  # the user's, in any folder
    assert untrusted.origins["api_base"] == "user config"
    assert untrusted.allowed_commands == ["make check"]
    assert sorted(untrusted.mcp.servers) == ["notes"]  # the workspace's server is ignored
    assert untrusted.ignored_keys == ("api_base", "mcp")
    assert untrusted.model == "openai/gpt-4.1"  # not exec-relevant: applies untrusted
    grant(tmp_path)
    trusted = workspace_settings(tmp_path)
    assert trusted.api_base == "http://workspace.example/v1"
    assert trusted.origins["api_base"] == "cairn.toml" and trusted.ignored_keys == ()
    assert sorted(trusted.mcp.servers) == ["notes", "repo"]


def test_a_wrong_value_names_the_key_and_the_file(
    tmp_path: Path, isolated_user_config: Path
) -> None:
    path = _user_file(isolated_user_config, "step_limit = 0\n")
    with pytest.raises(SettingsError) as raised:
        load_settings(tmp_path)
    assert str(raised.value).startswith(f"{path}: setting 'step_limit'")
    _user_file(isolated_user_config, "stepp_limit = 3\n")
    with pytest.raises(SettingsError, match="unknown setting 'stepp_limit'"):
        load_settings(tmp_path)
    _user_file(isolated_user_config, "model = [\n")
    with pytest.raises(SettingsError, match="not valid TOML"):
        load_settings(tmp_path)


def test_cairn_config_names_another_file_which_must_exist(
    tmp_path: Path, isolated_user_config: Path
) -> None:
    _user_file(isolated_user_config)
    other = tmp_path / "team.toml"
    other.write_text('model = "deepseek/deepseek-chat"\n', encoding="utf-8")
    settings = load_settings(tmp_path, environ={CONFIG_ENV: str(other)})
    assert settings.model == "deepseek/deepseek-chat"  # the named file, not the default one
    assert settings.max_output_tokens == 4096
    assert origin_label("user config", {CONFIG_ENV: str(other)}) == f"user config {other}"
    with pytest.raises(SettingsError, match=f"{CONFIG_ENV} names .*missing.toml"):
        load_settings(tmp_path, environ={CONFIG_ENV: str(tmp_path / "missing.toml")})


def test_an_empty_cairn_model_sets_nothing(tmp_path: Path, isolated_user_config: Path) -> None:
    _user_file(isolated_user_config)
    settings = load_settings(tmp_path, environ={MODEL_ENV: "  "})
    assert settings.model == "anthropic/claude-haiku-4-5"
    assert settings.origins["model"] == "user config"


def test_the_demo_and_the_front_ends_choose_whether_the_user_layers_count(
    tmp_path: Path, isolated_user_config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _user_file(isolated_user_config)
    monkeypatch.setenv(MODEL_ENV, "openai/gpt-4o")
    settings, _, problems = settings_with_fallback(tmp_path, {"stepLimit": 3})
    assert problems == [] and settings.model == "openai/gpt-4o"
    assert settings.api_base == "http://user.example/v1"
    alone = load_settings(tmp_path, user_settings=False)
    assert alone.model is None and alone.api_base is None
