"""Settings and folders from `initialize`: `initializationOptions` over `cairn.toml`.

`initializationOptions.workspaceTrusted` (a boolean, not a setting) is the
editor's word on the folder's trust: true trusts it for the server's life,
false distrusts it even when the user's record trusts it, absent leaves it
to the record (`cairn.files.trust`). It is taken out before the settings
are validated.

Invalid values never stop the server: the offending keys are reported (one
line naming each key) and their defaults are used
(`cairn.frontends.settings_fallback`, as in `cairn acp`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lsprotocol import types

from cairn.files.workspace import uri_to_path
from cairn.frontends.settings_fallback import fallback_problem, settings_with_fallback
from cairn.settings import Settings


def workspace_folders(params: types.InitializeParams) -> list[Path]:
    """The folders to serve: workspaceFolders, else rootUri, else rootPath, else the cwd."""
    if params.workspace_folders:
        return [uri_to_path(folder.uri) for folder in params.workspace_folders]
    if params.root_uri:
        return [uri_to_path(params.root_uri)]
    if params.root_path:
        return [Path(params.root_path)]
    return [Path.cwd()]


TRUST_OPTION = "workspaceTrusted"


def editor_trust(options: object) -> bool | None:
    """The editor's `workspaceTrusted` option: True, False, or None when absent (or not a bool)."""
    if isinstance(options, Mapping):
        value = options.get(TRUST_OPTION)
        if isinstance(value, bool):
            return value
    return None


def resolve_settings(
    root: Path, options: object, trust: bool | None = None
) -> tuple[Settings, dict[str, Any], list[str]]:
    """(settings, the overrides kept, problems) for `initializationOptions` = `options`, with
    the editor's word on trust `trust` (see the module docstring).

    Each problem is one line naming the key, ending with the fallback used.
    """
    if options is None or isinstance(options, Mapping):
        overrides = {
            str(key): value for key, value in (options or {}).items() if key != TRUST_OPTION
        }
        return settings_with_fallback(root, overrides, trust)
    settings, kept, problems = settings_with_fallback(root, None, trust)
    problem = f"initializationOptions: expected an object of settings, got {type(options).__name__}"
    return settings, kept, [fallback_problem(problem), *problems]


def settings_section(raw: object) -> object:
    """The Cairn part of `workspace/didChangeConfiguration` settings (`{"cairn": {...}}` or flat)."""
    if isinstance(raw, Mapping) and isinstance(raw.get("cairn"), Mapping):
        return raw["cairn"]
    return raw
