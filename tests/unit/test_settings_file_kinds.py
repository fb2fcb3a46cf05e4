"""A `cairn.toml` that is no regular file, and a `trace_dir` outside `.cairn/`, are errors
naming the problem and the fix (issue 26, item 8); a FIFO is never opened (it would block)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cairn.errors import SettingsError
from cairn.files.settings_layers import load_settings
from cairn.models.trace_location import trace_dir_problem
from cairn.settings import Settings, read_settings_file

# Seconds: a guard for the FIFO case (reading it would block forever), not a timing check.
GUARD_S = 60


def test_no_file_is_no_settings(tmp_path: Path) -> None:
    assert read_settings_file(tmp_path) == {}


def test_a_folder_named_cairn_toml_is_an_error_naming_it(tmp_path: Path) -> None:
    (tmp_path / "cairn.toml").mkdir()
    with pytest.raises(SettingsError, match=r"cairn\.toml: not a regular file; remove it"):
        load_settings(tmp_path)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_a_fifo_named_cairn_toml_is_refused_without_opening_it(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "cairn.toml")
    code = (
        "import sys; from pathlib import Path; from cairn.settings import read_settings_file\n"
        "try:\n    read_settings_file(Path(sys.argv[1]))\n"
        "except Exception as exc:\n    print(type(exc).__name__, exc)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=GUARD_S,
        check=False,
    )
    assert done.stdout.startswith("SettingsError") and "not a regular file" in done.stdout


@pytest.mark.parametrize("value", [".cairn", ".cairn/traces", "./.cairn/a/b"])
def test_trace_dirs_inside_cairn_are_accepted(value: str) -> None:
    assert trace_dir_problem(value) is None
    assert Settings.model_validate({"trace_dir": value}).trace_dir == value


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("/tmp/traces", "an absolute path"),
        ("traces", "outside .cairn/"),
        ("", "outside .cairn/"),
        (".git/cairn", "outside .cairn/"),
        (".cairn/../src", "leaves .cairn/"),
        (".cairn/.git", "enters .git/"),
    ],
)
def test_trace_dirs_elsewhere_are_refused_with_the_fix(value: str, why: str) -> None:
    problem = trace_dir_problem(value)
    assert problem is not None and why in problem
    assert "folder inside" in problem  # the fix
    with pytest.raises(ValueError, match="trace_dir"):
        Settings.model_validate({"trace_dir": value})


def test_a_trusted_cairn_toml_with_a_trace_dir_in_git_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "cairn.toml").write_text('trace_dir = ".git/hooks"\n', encoding="utf-8")
    with pytest.raises(SettingsError, match=r"trace_dir '\.git/hooks'"):
        load_settings(tmp_path, trusted=True)
    # Untrusted, the key is ignored (it is exec-relevant) and the load succeeds.
    assert load_settings(tmp_path).trace_dir == ".cairn"
