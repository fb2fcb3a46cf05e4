"""`cairn config show` and `cairn config path`: the settings in effect, each with its source.

`show` loads a folder's settings as every command does (`workspace_settings`:
the user's config, the folder's `cairn.toml` as far as its trust allows,
`CAIRN_MODEL`) and prints every setting as a TOML line with where its value
came from (`origin_label`), then what an untrusted folder's file lost.
Header and MCP `env` values are shown as `<hidden>` (they often hold tokens)
unless they are `${VAR}` references. `path` prints the user's file and the
folder's `cairn.toml`, whether each exists. `set` and `edit` are
`cairn.commands.config_write`.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import typer

from cairn.commands.checks import require_workspace
from cairn.files.settings_layers import origin_label
from cairn.files.trust import trust_notes, workspace_settings
from cairn.files.user_config import CONFIG_ENV, user_config_named, user_config_path
from cairn.settings import SETTINGS_FILE, Settings

HIDDEN = "<hidden>"
# A value that only names a variable (`${VAR}`) shows no secret.
_REFERENCE = re.compile(r"^\$\{[A-Za-z_][A-Za-z0-9_]*\}$")
# The maps whose values are hidden: the provider's headers; an MCP server's env and headers.
_HIDDEN_MAPS = ("extra_headers", "env", "headers")


def _hide(value: Any, key: str = "") -> Any:
    """`value` with the values of `_HIDDEN_MAPS` hidden (`${VAR}` references kept)."""
    if isinstance(value, dict):
        if key in _HIDDEN_MAPS:
            return {k: v if _REFERENCE.match(str(v)) else HIDDEN for k, v in value.items()}
        return {k: _hide(v, str(k)) for k, v in value.items()}
    return value


def _toml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key)


def toml_value(value: Any) -> str:
    """`value` written as a TOML value (tables inline)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
    if isinstance(value, dict):
        items = ", ".join(f"{_toml_key(str(k))} = {toml_value(v)}" for k, v in value.items())
        return "{" + items + "}" if items else "{}"
    return str(value)


def shown_settings(settings: Settings) -> dict[str, Any]:
    """Every setting's value as shown (None when unset), secrets hidden."""
    dumped = settings.model_dump(mode="json", exclude_none=False)
    return {name: _hide(value, name) for name, value in dumped.items()}


def _lines(settings: Settings, environ: Mapping[str, str]) -> list[str]:
    values = shown_settings(settings)
    rows: list[tuple[str, str]] = []
    for name, origin in settings.origins.items():
        value = values[name]
        text = f"# {name}: not set" if value is None else f"{name} = {toml_value(value)}"
        rows.append((text, origin_label(origin, environ)))
    width = min(max(len(text) for text, _ in rows), 48)
    return [f"{text:<{width}}  # {source}" for text, source in rows]


def files_lines(workspace: Path, environ: Mapping[str, str]) -> list[str]:
    """The user's file and the folder's `cairn.toml`, whether each exists."""
    user = user_config_path(environ)
    named = f"; named by {CONFIG_ENV}" if user_config_named(environ) else ""
    rows = [("user", user, named), ("workspace", workspace / SETTINGS_FILE, "")]
    return [
        f"{label:<10} {path}  ({'exists' if path.is_file() else 'does not exist'}{extra})"
        for label, path, extra in rows
    ]


def _json(settings: Settings, workspace: Path, environ: Mapping[str, str]) -> dict[str, Any]:
    values = shown_settings(settings)
    user = user_config_path(environ)
    return {
        "files": {
            "user": {"path": str(user), "exists": user.is_file()},
            "workspace": {
                "path": str(workspace / SETTINGS_FILE),
                "exists": (workspace / SETTINGS_FILE).is_file(),
            },
        },
        "trusted": settings.workspace_trusted,
        "ignored": list(settings.ignored_keys),
        "settings": {
            name: {"value": values[name], "origin": origin, "source": origin_label(origin, environ)}
            for name, origin in settings.origins.items()
        },
    }


def show_config(workspace: Path, as_json: bool) -> None:
    """`cairn config show` (see the module docstring)."""
    require_workspace(workspace)
    settings = workspace_settings(workspace)
    if as_json:
        typer.echo(json.dumps(_json(settings, workspace, os.environ), indent=2))
        return
    lines = [*files_lines(workspace, os.environ), "", *_lines(settings, os.environ)]
    lines += [f"# {note}" for note in trust_notes(settings, workspace)]
    typer.echo("\n".join(lines))


def show_paths(workspace: Path) -> None:
    """`cairn config path`: the two settings files and whether each exists."""
    require_workspace(workspace)
    typer.echo("\n".join(files_lines(workspace, os.environ)))
