"""Fixtures for every test: the user's Cairn state and settings live in fresh folders per test.

Cairn keeps per-user state outside the workspace (`cairn.files.user_state`:
the secret, the trusted folders) and reads the user's own settings
(`cairn.files.user_config`: `config.toml` in the user's config folder, the
file `CAIRN_CONFIG` names, the model `CAIRN_MODEL` names). Each test gets its
own `XDG_STATE_HOME` and `XDG_CONFIG_HOME` under its tmp folder and neither
variable of the developer's shell, so no test reads or writes the real
user's state or settings, and a folder trusted by one test is not trusted in
the next. Subprocesses started by a test inherit the environment.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn.files.user_config import CONFIG_ENV, MODEL_ENV


@pytest.fixture(autouse=True)
def isolated_user_state(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """A fresh, empty `XDG_STATE_HOME` for the test."""
    state = tmp_path_factory.mktemp("user-state")
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    return state


@pytest.fixture(autouse=True)
def isolated_user_config(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """A fresh, empty `XDG_CONFIG_HOME` for the test, without `CAIRN_CONFIG` or `CAIRN_MODEL`."""
    config = tmp_path_factory.mktemp("user-config")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    monkeypatch.delenv(CONFIG_ENV, raising=False)
    monkeypatch.delenv(MODEL_ENV, raising=False)
    return config
