"""`cairn config set` and `cairn config edit`: change the user's or a folder's settings file.

`set KEY VALUE` writes one key (a setting's name, snake_case or camelCase;
dotted for a table: `mcp.servers.docs.command`) into the user's `config.toml`
(the default, `--user`) or the folder's `cairn.toml` (`--workspace`). VALUE
is read as a TOML value (`32768`, `true`, `["pytest"]`, `{read = 0.5}`), else
taken as a string (`openai/gpt-4.1`). The file is edited with tomlkit, so
its comments and layout are kept, and the whole new file is validated as a
load would validate it before anything is written (atomically). It then says
when, in this folder, another layer's value wins over the one just set, and
when a change to a folder's exec-relevant keys ends its trust.

`edit` opens the file in `$VISUAL`, else `$EDITOR` (created first, with a
commented header, when missing) and validates it when the editor exits: a
wrong value is shown, naming the key and the file, with exit code 1; the
file stays as the user left it.
"""

from __future__ import annotations

import difflib
import os
import shlex
import subprocess
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import tomlkit
import typer
from tomlkit.container import Container
from tomlkit.exceptions import TOMLKitError
from tomlkit.items import Table

from cairn.commands.checks import require_workspace
from cairn.errors import InvalidRequestError, SettingsError
from cairn.files.settings_layers import origin_label
from cairn.files.trust import is_trusted, workspace_settings
from cairn.files.user_config import user_config_path
from cairn.settings import EXEC_KEYS, SETTINGS_FILE, Settings, field_name, validate_settings
from cairn.trace.files import atomic_write

Scope = Literal["user", "workspace"]
USER_HEADER = """\
# Cairn's user settings: the keys of a workspace's cairn.toml (README, "Settings"), applied
# in every folder under that folder's own cairn.toml. Yours, so all of them apply, also in
# folders you have not trusted. `cairn config show` shows where each value comes from.
# model = "anthropic/claude-sonnet-4-5"
"""
WORKSPACE_HEADER = """\
# Cairn's settings for this folder (README, "Settings"), over your user settings.
# Keys that run or send something apply only once you trust the folder (`cairn trust`).
"""


def settings_file(scope: Scope, workspace: Path, environ: Mapping[str, str]) -> Path:
    """The file `--user` or `--workspace` names."""
    return user_config_path(environ) if scope == "user" else workspace / SETTINGS_FILE


def parse_value(text: str) -> Any:
    """VALUE as a TOML value, else as the string it is."""
    try:
        return tomllib.loads(f"value = {text}")["value"]
    except tomllib.TOMLDecodeError:
        return text


def _known_field(key: str) -> str:
    name = field_name(key)
    if name is None:
        close = difflib.get_close_matches(key, list(Settings.model_fields), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise InvalidRequestError(f"unknown setting {key!r}{hint}; `cairn config show` lists them")
    return name


def _existing_key(doc: Container, name: str) -> str:
    """The key the file already uses for field `name` (it may be camelCase), else `name`."""
    return next((key for key in doc if field_name(key) == name), name)


def _read_document(path: Path) -> tomlkit.TOMLDocument:
    if not path.exists():
        return tomlkit.document()
    if not path.is_file():
        raise SettingsError(f"{path}: not a regular file; remove it or make it a TOML file")
    try:
        return tomlkit.parse(path.read_text(encoding="utf-8"))
    except (TOMLKitError, UnicodeDecodeError) as exc:
        raise SettingsError(
            f"{path}: not valid TOML: {exc}; fix it with `cairn config edit`"
        ) from None


def set_in_document(doc: tomlkit.TOMLDocument, key: str, value: Any) -> str:
    """Set dotted `key` in `doc` (tables made as needed); the setting's field name."""
    first, *rest = key.split(".")
    name = _known_field(first)
    parts = [_existing_key(doc, name), *rest]
    container: Container | Table = doc
    for part in parts[:-1]:
        child = container.get(part)
        if not isinstance(child, Table):
            if child is not None:
                raise InvalidRequestError(f"{key}: {part} is a value, not a table")
            child = tomlkit.table(is_super_table=True)
            container[part] = child
        container = child
    container[parts[-1]] = value
    return name


def set_value(key: str, text: str, scope: Scope, workspace: Path) -> None:
    """`cairn config set` (see the module docstring)."""
    if scope == "workspace":
        require_workspace(workspace)
    path = settings_file(scope, workspace, os.environ)
    doc = _read_document(path)
    was_trusted = scope == "workspace" and is_trusted(workspace)
    name = set_in_document(doc, key, parse_value(text))
    rendered = tomlkit.dumps(doc)
    validate_settings(tomllib.loads(rendered), origin=str(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, rendered.encode("utf-8"))
    typer.echo(f"{key} set in {path}")
    for note in _notes(name, scope, workspace, was_trusted):
        typer.echo(f"note: {note}")


def _notes(name: str, scope: Scope, workspace: Path, was_trusted: bool) -> list[str]:
    """What the user should know after a set: a layer above wins here; trust lapsed."""
    notes: list[str] = []
    if was_trusted and name in EXEC_KEYS:
        notes.append(
            f"{name} is exec-relevant: {workspace} is no longer trusted until you run"
            f" `cairn trust {shlex.quote(str(workspace))}` again"
        )
    if not workspace.is_dir():
        return notes
    origin = workspace_settings(workspace).origins[name]
    own = "user config" if scope == "user" else "cairn.toml"
    if origin not in (own, "default"):
        notes.append(f"in {workspace}, {name} comes from {origin_label(origin, os.environ)}")
    return notes


def editor_command(environ: Mapping[str, str]) -> list[str]:
    """`$VISUAL`, else `$EDITOR`, as argv; an error saying how to choose one when neither."""
    for variable in ("VISUAL", "EDITOR"):
        if words := shlex.split(environ.get(variable, "")):
            return words
    raise InvalidRequestError("no editor: set $VISUAL or $EDITOR (e.g. export EDITOR=nano)")


def edit_file(scope: Scope, workspace: Path) -> None:
    """`cairn config edit` (see the module docstring)."""
    if scope == "workspace":
        require_workspace(workspace)
    path = settings_file(scope, workspace, os.environ)
    command = editor_command(os.environ)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        header = USER_HEADER if scope == "user" else WORKSPACE_HEADER
        atomic_write(path, header.encode("utf-8"))
    try:
        subprocess.run([*command, str(path)], check=False)
    except OSError as exc:
        raise InvalidRequestError(
            f"cannot start the editor {command[0]!r}: {exc.strerror}"
        ) from None
    try:
        validate_settings(tomllib.loads(path.read_text(encoding="utf-8")), origin=str(path))
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(
            f"{path}: not valid TOML: {exc}; the file is kept as you left it"
        ) from None
    except SettingsError as exc:
        raise SettingsError(f"{exc}; the file is kept as you left it") from None
    typer.echo(f"{path}: valid")
