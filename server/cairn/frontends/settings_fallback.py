"""Settings that do not validate never stop a front end: report, and fall back to defaults.

`settings_with_fallback` loads a root's settings (the user's config, its
`cairn.toml`, `CAIRN_MODEL`, the front end's overrides), with the folder's trust resolved (the editor's word,
else the user's record: `cairn.files.trust`). An invalid override is dropped, keeping the valid
ones; an invalid `cairn.toml` falls back to the defaults. Each problem is one
line naming the key and ending with `FALLBACK_NOTE`, for the front end to
show (as jedi-language-server does).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cairn.errors import SettingsError
from cairn.files.settings_layers import load_settings
from cairn.files.trust import resolve_trust
from cairn.settings import Settings, validate_settings

FALLBACK_NOTE = "defaults are used instead"


def fallback_problem(problem: object) -> str:
    """One problem line, ending with the fallback used."""
    return f"{problem}; {FALLBACK_NOTE}"


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


def settings_with_fallback(
    root: Path, overrides: Mapping[str, Any] | None = None, editor_trust: bool | None = None
) -> tuple[Settings, dict[str, Any], list[str]]:
    """(settings, the overrides kept, problems) of `root` under `overrides`."""
    given = dict(overrides or {})
    problems: list[str] = []
    try:
        trusted = resolve_trust(root, editor_trust)
    except SettingsError:  # cairn.toml itself is invalid: nothing of it is used
        trusted = False
    try:
        return load_settings(root, given, trusted=trusted), given, problems
    except SettingsError as exc:
        problems.append(fallback_problem(exc))
    if not given:
        return validate_settings({}).with_trust(trusted), given, problems
    kept = _valid_overrides(given)
    try:
        return load_settings(root, kept, trusted=trusted), kept, problems
    except SettingsError as exc:  # cairn.toml itself is invalid
        problems.append(fallback_problem(exc))
    return validate_settings(kept).with_trust(trusted), kept, problems
