"""Fixtures for every test: the user's Cairn state lives in a fresh folder per test.

Cairn keeps per-user state outside the workspace (`cairn.files.user_state`:
the secret, the trusted folders). Each test gets its own `XDG_STATE_HOME`
under its tmp folder, so no test reads or writes the real user's state, and
a folder trusted by one test is not trusted in the next. Subprocesses
started by a test inherit the variable.
"""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def isolated_user_state(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """A fresh, empty `XDG_STATE_HOME` for the test."""
    state = tmp_path_factory.mktemp("user-state")
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    return state
