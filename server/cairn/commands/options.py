"""The command-line options several `cairn` command groups share."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

WorkspaceOpt = Annotated[
    Path,
    typer.Option("--workspace", "-w", help="Workspace folder.", file_okay=False, resolve_path=True),
]
