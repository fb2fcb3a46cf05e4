"""Settings and folders from `initialize`: `initializationOptions` over `cairn.toml`.

Invalid values never stop the server: the offending keys are reported (one
line naming each key) and their defaults are used, as jedi-language-server does.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lsprotocol import types

from cairn.errors import SettingsError
from cairn.files.workspace import uri_to_path
from cairn.settings import Settings, load_settings, validate_settings

FALLBACK_NOTE = "defaults are used instead"


def workspace_folders(params: types.InitializeParams) -> list[Path]:
    """The folders to serve: workspaceFolders, else rootUri, else rootPath, else the cwd."""
    if params.workspace_folders:
        return [uri_to_path(folder.uri) for folder in params.workspace_folders]
    if params.root_uri:
        return [uri_to_path(params.root_uri)]
    if params.root_path:
        return [Path(params.root_path)]
    return [Path.cwd()]


def _valid_overrides(overrides: Mapping[str, Any]) -> dict[str, Any]:
    """The overrides whose key and value are valid on their own."""
    valid: dict[str, Any] = {}
    for key, value in overrides.items():
        try:
            validate_settings({key: value})
        except SettingsError:
            continue
        valid[key] = value
    return valid


def resolve_settings(root: Path, options: object) -> tuple[Settings, dict[str, Any], list[str]]:
    """(settings, the overrides kept, problems) for `initializationOptions` = `options`.

    Each problem is one line naming the key, ending with the fallback used.
    """
    problems: list[str] = []
    if options is None:
        overrides: dict[str, Any] = {}
    elif isinstance(options, Mapping):
        overrides = {str(key): value for key, value in options.items()}
    else:
        problems.append(
            f"initializationOptions: expected an object of settings, got "
            f"{type(options).__name__}; {FALLBACK_NOTE}"
        )
        overrides = {}
    try:
        return load_settings(root, overrides), overrides, problems
    except SettingsError as exc:
        problems.append(f"{exc}; {FALLBACK_NOTE}")
    kept = _valid_overrides(overrides)
    try:
        return load_settings(root, kept), kept, problems
    except SettingsError as exc:  # cairn.toml itself is invalid
        problems.append(f"{exc}; {FALLBACK_NOTE}")
    return validate_settings(kept), kept, problems


def settings_section(raw: object) -> object:
    """The Cairn part of `workspace/didChangeConfiguration` settings (`{"cairn": {...}}` or flat)."""
    if isinstance(raw, Mapping) and isinstance(raw.get("cairn"), Mapping):
        return raw["cairn"]
    return raw
