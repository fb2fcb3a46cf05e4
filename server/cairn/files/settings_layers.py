"""The one settings loader: the layers in their order, trust, and where each value came from.

Lowest first, a later layer replacing an earlier one's values key by key (MCP
servers join by name, `merge_mcp`):

1. the defaults (`Settings`);
2. the user's `config.toml` (`cairn.files.user_config`): the user's own, so
   every key applies, its exec-relevant ones (`EXEC_KEYS`) included;
3. the workspace's `cairn.toml`: its `EXEC_KEYS` only when the folder is
   trusted (`cairn.files.trust`), the others always;
4. the environment: `CAIRN_MODEL`. It sits above both files, as Aider's
   variables do: a variable is set for one shell or one job, so it is the
   narrower choice (`CAIRN_MODEL=… cairn run` tries another model without
   editing a committed `cairn.toml`);
5. the editor's settings (`initializationOptions`);
6. command-line flags (`cairn.settings.with_flags`, applied by the command).

Each layer is validated on its own, so a wrong value is an error naming the
key and the file (or variable) it came from. A None value (an empty string
in a file, an editor's empty field) sets nothing. Every loader of the
project comes through `load_settings` (the front ends and commands through
`cairn.files.trust.workspace_settings`); only `cairn demo` leaves the user's
layers out (`user_settings=False`), as its bundled example must run as shipped.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from cairn.files.user_config import (
    MODEL_ENV,
    SettingsLayer,
    environment_layer,
    user_config_path,
    user_layer,
)
from cairn.models.sandbox_mode import tightens
from cairn.settings import (
    EXEC_KEYS,
    SETTINGS_FILE,
    Origin,
    Settings,
    field_name,
    merge_mcp,
    read_settings_file,
    validate_settings,
)

EDITOR_SOURCE = "initializationOptions"
FLAG_SOURCE = "command line"


def exec_keys(raw: Mapping[str, Any], below: Mapping[str, Any] | None = None) -> list[str]:
    """The keys of a raw settings mapping that are exec-relevant (`EXEC_KEYS`), by field,
    bar sandbox keys that only tighten what the layers `below` it chose (`tightens`)."""
    lower = {field_name(key): value for key, value in (below or {}).items()}
    return [
        name
        for key, value in raw.items()
        if (name := field_name(key)) in EXEC_KEYS and not tightens(name, value, lower.get(name))
    ]


def layer_changes(layer: SettingsLayer) -> dict[str, Any]:
    """The fields `layer` sets, validated on their own (errors name `layer.source`)."""
    settings = validate_settings(dict(layer.values), origin=layer.source)
    changes = settings.model_dump(exclude_unset=True)
    return {name: value for name, value in changes.items() if value is not None}


def merge_layers(layers: Sequence[SettingsLayer]) -> Settings:
    """The settings of `layers`, lowest first, with the origin of every value they set."""
    merged: dict[str, Any] = {}
    origins: dict[str, Origin] = {}
    for layer in layers:
        changes = layer_changes(layer)
        if "mcp" in changes and "mcp" in merged:
            changes["mcp"] = merge_mcp(merged["mcp"], changes["mcp"])
        merged.update(changes)
        origins.update(dict.fromkeys(changes, layer.origin))
    return validate_settings(merged).with_origins(origins)


def settings_layers(
    workspace: Path,
    overrides: Mapping[str, Any] | None,
    *,
    trusted: bool,
    environ: Mapping[str, str],
    user_settings: bool = True,
) -> tuple[list[SettingsLayer], list[str]]:
    """(the layers of `workspace`, lowest first; the `cairn.toml` keys left out untrusted)."""
    raw = read_settings_file(workspace)
    user = user_layer(environ) if user_settings else None
    ignored = [] if trusted else exec_keys(raw, user.values if user else None)
    kept = {key: value for key, value in raw.items() if field_name(key) not in ignored}
    found: list[SettingsLayer | None] = [user]
    found.append(SettingsLayer("cairn.toml", str(workspace / SETTINGS_FILE), kept))
    if user_settings:
        found.append(environment_layer(environ))
    if overrides:
        found.append(SettingsLayer("editor", EDITOR_SOURCE, overrides))
    return [layer for layer in found if layer is not None], ignored


def load_settings(
    workspace: Path,
    overrides: Mapping[str, Any] | None = None,
    *,
    trusted: bool = False,
    environ: Mapping[str, str] | None = None,
    user_settings: bool = True,
) -> Settings:
    """The settings of `workspace` (see the module docstring): the user's file and the
    environment (`environ`, default the process's) unless `user_settings` is False, the
    workspace's `cairn.toml` (its `EXEC_KEYS` only when `trusted`), then `overrides`."""
    env = os.environ if environ is None else environ
    layers, ignored = settings_layers(
        workspace, overrides, trusted=trusted, environ=env, user_settings=user_settings
    )
    return merge_layers(layers).with_trust(trusted, ignored)


def origin_label(origin: Origin, environ: Mapping[str, str]) -> str:
    """`origin` as a report shows it: the user's file and the variable named."""
    if origin == "user config":
        return f"user config {user_config_path(environ)}"
    return MODEL_ENV if origin == "environment" else origin
