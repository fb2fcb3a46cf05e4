"""The parts of a workspace follow the user's secret-path settings: a folder made secret in
settings is kept out of the repository map and the project profile, as the tools refuse it."""

from __future__ import annotations

from pathlib import Path

from cairn.agent.parts import context_parts
from cairn.settings import Settings, SettingsRef
from cairn.tokens.counter import count_tokens

MODEL = "scripted/none.jsonl"


def _workspace(root: Path) -> None:
    (root / "app").mkdir(parents=True)
    (root / "ops").mkdir()
    (root / "app" / "main.py").write_text("def serve_requests():\n    return 1\n")
    (root / "ops" / "deploy_tool.go").write_text(
        "package ops\n\nfunc RotateProductionKeys() int { return 1 }\n"
    )


def _map_text(root: Path, config: SettingsRef) -> str:
    parts = context_parts([root], config, read_only=True)
    assert parts.repomap is not None
    return parts.repomap.render([], set(), 4000, lambda text: count_tokens(text, MODEL))


def test_a_secret_folder_from_settings_is_not_in_the_repository_map(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    _workspace(root)
    assert "RotateProductionKeys" in _map_text(root, SettingsRef(Settings()))
    secret = _map_text(root, SettingsRef(Settings(secret_paths=["ops/"])))
    assert "serve_requests" in secret
    assert "RotateProductionKeys" not in secret and "deploy_tool" not in secret


def test_a_secret_folder_from_settings_is_not_in_the_project_profile(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    _workspace(root)
    plain = context_parts([root], SettingsRef(Settings()), read_only=True)
    assert "go" in [name.lower() for name in plain.profiles.get().languages]
    parts = context_parts([root], SettingsRef(Settings(secret_paths=["ops/"])), read_only=True)
    profile = parts.profiles.get()
    assert "go" not in [name.lower() for name in profile.languages]
    assert not any(path.startswith("ops") for path in profile.important_paths)
