"""Settings: one model for cairn.toml (snake_case) and the editor (camelCase)."""

from pathlib import Path

import pytest

from cairn.errors import SettingsError
from cairn.files.settings_layers import load_settings
from cairn.settings import validate_settings


def test_defaults_match_the_design() -> None:
    s = validate_settings({})
    # Unset: chosen per provider (`cairn.compaction.retention`, tested there).
    assert s.compaction_threshold is None and s.summary_keep_recent is None
    assert s.prune_minimum is None and s.prune_protect is None
    assert s.trace_dir == ".cairn"


def test_camel_and_snake_keys_are_both_accepted() -> None:
    assert validate_settings({"contextWindow": 1000}).context_window == 1000
    assert validate_settings({"context_window": 1000}).context_window == 1000


def test_wrong_value_names_the_key() -> None:
    with pytest.raises(SettingsError, match="compactionThreshold"):
        validate_settings({"compactionThreshold": 3})


def test_unknown_key_is_named() -> None:
    with pytest.raises(SettingsError, match="unknown setting 'bogus'"):
        validate_settings({"bogus": 1})


def test_editor_overrides_cairn_toml(tmp_path: Path) -> None:
    (tmp_path / "cairn.toml").write_text('model = "a/b"\nstep_limit = 7\n')
    s = load_settings(tmp_path, {"stepLimit": 9})
    assert s.model == "a/b"
    assert s.step_limit == 9


def test_broken_toml_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "cairn.toml").write_text("model = \n")
    with pytest.raises(SettingsError, match="not valid TOML"):
        load_settings(tmp_path)
