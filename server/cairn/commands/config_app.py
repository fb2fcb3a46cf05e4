"""The `cairn config` group's typer wiring: `show`, `path`, `set`, `edit`.

Wiring only, as `cairn.cli` (which adds this group): the work is
`cairn.commands.config` and `cairn.commands.config_write`, imported when a
command runs. `--dir` is the folder whose `cairn.toml` counts (default: the
current one); `--user` / `--workspace` choose the file `set` and `edit` change.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer

config_app = typer.Typer(
    help="The settings in effect and their files (your config.toml, the folder's cairn.toml).",
    no_args_is_help=True,
)

DirOpt = Annotated[
    Path,
    typer.Option("--dir", "-C", help="The workspace folder.", file_okay=False, resolve_path=True),
]
UserOpt = Annotated[
    bool, typer.Option("--user", help="Your own config.toml, for every folder (the default).")
]
WorkspaceFlag = Annotated[
    bool, typer.Option("--workspace", help="The folder's cairn.toml instead.")
]


@config_app.command("show")
def config_show(
    folder: DirOpt = Path("."),
    as_json: Annotated[bool, typer.Option("--json", help="Print the settings as JSON.")] = False,
) -> None:
    """Every setting's value in this folder and where it came from."""
    from cairn.commands.config import show_config

    show_config(folder, as_json)


@config_app.command("path")
def config_path(folder: DirOpt = Path(".")) -> None:
    """Your config.toml and the folder's cairn.toml, and whether each exists."""
    from cairn.commands.config import show_paths

    show_paths(folder)


@config_app.command("set")
def config_set(
    key: Annotated[
        str, typer.Argument(help="The setting (dotted for a table: mcp.servers.x.url).")
    ],
    value: Annotated[str, typer.Argument(help='A TOML value (32768, true, ["a"]), else a string.')],
    user: UserOpt = False,
    workspace: WorkspaceFlag = False,
    folder: DirOpt = Path("."),
) -> None:
    """Set one key in your config.toml (default) or the folder's cairn.toml, validated first."""
    from cairn.commands.config_write import set_value

    set_value(key, value, _scope(user, workspace), folder)


@config_app.command("edit")
def config_edit(
    user: UserOpt = False, workspace: WorkspaceFlag = False, folder: DirOpt = Path(".")
) -> None:
    """Open your config.toml (default) or the folder's cairn.toml in $VISUAL / $EDITOR."""
    from cairn.commands.config_write import edit_file

    edit_file(_scope(user, workspace), folder)


def _scope(user: bool, workspace: bool) -> Literal["user", "workspace"]:
    """The file `--user` / `--workspace` choose (the user's when neither is given)."""
    if user and workspace:
        raise typer.BadParameter("choose --user or --workspace, not both")
    return "workspace" if workspace else "user"
