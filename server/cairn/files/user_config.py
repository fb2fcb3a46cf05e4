"""The user's own settings: their `config.toml`, and the model named in the environment.

The file is `config.toml` in the user's config folder (`platformdirs`:
`$XDG_CONFIG_HOME/cairn`, else `~/.config/cairn`, on Linux; `~/Library/
Application Support/cairn` on macOS; `%LOCALAPPDATA%\\cairn` on Windows), or the
file `CAIRN_CONFIG` names (which must then exist). It takes the same keys
and validation as a workspace's `cairn.toml`, and it is the user's own: its
exec-relevant keys (`EXEC_KEYS`) always apply, in every folder.
`CAIRN_MODEL` sets the model. Where they sit among the other layers is
`cairn.files.settings_layers`. Pure apart from reading the file: the
environment is passed in.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import platformdirs

from cairn.errors import SettingsError
from cairn.settings import Origin, read_settings_toml

APP_NAME = "cairn"
USER_CONFIG_FILE = "config.toml"
# The environment variables: another file instead of the user's, and the model.
CONFIG_ENV = "CAIRN_CONFIG"
MODEL_ENV = "CAIRN_MODEL"


@dataclass(frozen=True)
class SettingsLayer:
    """One source of settings: its origin, where it is (named in errors), its raw keys."""

    origin: Origin
    source: str
    values: Mapping[str, Any]


def default_user_config_path() -> Path:
    """`config.toml` in the platform's user config folder for Cairn."""
    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False)) / USER_CONFIG_FILE


def user_config_path(environ: Mapping[str, str]) -> Path:
    """The user's settings file: the one `CAIRN_CONFIG` names, else the default one."""
    named = environ.get(CONFIG_ENV, "").strip()
    return Path(named).expanduser() if named else default_user_config_path()


def user_config_named(environ: Mapping[str, str]) -> bool:
    """Whether `CAIRN_CONFIG` chooses the user's settings file."""
    return bool(environ.get(CONFIG_ENV, "").strip())


def user_layer(environ: Mapping[str, str]) -> SettingsLayer | None:
    """The user's settings file as a layer (None when there is none: it is optional, unless
    `CAIRN_CONFIG` names it)."""
    path = user_config_path(environ)
    if not path.exists():
        if user_config_named(environ):
            raise SettingsError(
                f"{CONFIG_ENV} names {path}, which does not exist; create it "
                f"(`cairn config edit --user`) or unset {CONFIG_ENV}"
            )
        return None
    return SettingsLayer("user config", str(path), read_settings_toml(path))


def environment_layer(environ: Mapping[str, str]) -> SettingsLayer | None:
    """The settings the environment sets (`CAIRN_MODEL`), or None; an empty one is unset."""
    model = environ.get(MODEL_ENV, "").strip()
    return SettingsLayer("environment", MODEL_ENV, {"model": model}) if model else None
