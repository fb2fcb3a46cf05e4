"""`cairn init`: a starter cairn.toml and an AGENTS.md seeded from the project profile, on the
bundled example; no file is ever overwritten; the model chosen from the catalogue."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from cairn.cli import run_cli
from cairn.commands.init_model import choose_model
from cairn.files.ignore import IgnoreRules
from cairn.files.settings_layers import load_settings
from cairn.profile.scan import scan_profile
from cairn.resources import examples_dir


def example_without_settings(tmp_path: Path) -> Path:
    """The bundled example project, without its cairn.toml and AGENTS.md."""
    folder = tmp_path / "intervals"
    shutil.copytree(examples_dir() / "demo", folder)
    (folder / "cairn.toml").unlink()
    (folder / "AGENTS.md").unlink()
    return folder


def test_init_on_the_bundled_example_writes_a_valid_cairn_toml_and_an_agents_md(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = example_without_settings(tmp_path)
    assert run_cli(["init", str(folder), "--model", "openai/gpt-4.1"]) == 0
    settings = load_settings(folder)
    assert settings.model == "openai/gpt-4.1" and settings.origins["model"] == "cairn.toml"
    agents = (folder / "AGENTS.md").read_text(encoding="utf-8")
    tests = scan_profile(folder, IgnoreRules.for_folder(folder)).test_suites
    assert tests, "the example has a test suite"
    for name, command in tests.items():
        assert f"- Test ({name}): `{command}`" in agents
    assert "`intervals.py`" in agents and "`test_intervals.py`" in agents  # the layout
    assert agents.startswith("# intervals\n")
    out = capsys.readouterr().out
    assert f"wrote {folder / 'cairn.toml'}" in out and f"wrote {folder / 'AGENTS.md'}" in out


def test_init_never_overwrites_and_leaves_a_claude_md_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = example_without_settings(tmp_path)
    (folder / "cairn.toml").write_text('model = "mine/model"\n', encoding="utf-8")
    (folder / "CLAUDE.md").write_text("# mine\n", encoding="utf-8")
    assert run_cli(["init", str(folder), "--model", "openai/gpt-4.1"]) == 0
    assert (folder / "cairn.toml").read_text(encoding="utf-8") == 'model = "mine/model"\n'
    assert not (folder / "AGENTS.md").exists()  # it would shadow CLAUDE.md
    out = capsys.readouterr().out
    assert f"{folder / 'cairn.toml'} exists: left as it is" in out
    assert f"{folder / 'CLAUDE.md'} exists: no AGENTS.md written" in out


def test_init_without_a_model_off_a_terminal_writes_it_commented(
    tmp_path: Path, isolated_user_config: Path
) -> None:
    folder = example_without_settings(tmp_path)
    user = isolated_user_config / "cairn" / "config.toml"
    user.parent.mkdir(parents=True)
    user.write_text('model = "deepseek/deepseek-chat"\n', encoding="utf-8")
    assert run_cli(["init", str(folder)]) == 0  # stdin is not a terminal under pytest
    text = (folder / "cairn.toml").read_text(encoding="utf-8")
    assert '# model = "deepseek/deepseek-chat"  # litellm\'s provider/model (now:' in text
    assert load_settings(folder).origins["model"] == "user config"
    code = run_cli(["init", str(tmp_path / "elsewhere"), "--model", "x"])
    assert code == 1


def answers(*given: str) -> Iterator[str]:
    yield from given
    raise AssertionError("asked once too often")


def test_the_model_is_chosen_from_the_catalogue() -> None:
    said: list[str] = []
    replies = answers("1", "haiku", "1")
    env = {"ANTHROPIC_API_KEY": "k"}
    chosen = choose_model(env, lambda question, default: next(replies), said.append)
    assert chosen.startswith("anthropic/claude-haiku")
    assert "ANTHROPIC_API_KEY" in said[0] and "✓" in said[0]
    default = choose_model({}, lambda question, default: "", said.append)
    assert default == "anthropic/claude-sonnet-4-5"  # Enter twice: the example model
    typed = answers("ollama_chat/qwen2.5-coder:14b")
    assert choose_model({}, lambda q, d: next(typed), said.append) == (
        "ollama_chat/qwen2.5-coder:14b"
    )
    narrowed = answers("openai", "no-such-model", "gpt-4.1")
    picked = choose_model({}, lambda q, d: next(narrowed), said.append)
    assert picked == "openai/gpt-4.1" and "  no model matches 'no-such-model'" in said
