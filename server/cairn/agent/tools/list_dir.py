"""`list_dir(path?)`: the entries of one workspace folder, ignored ones left out.

Folders end with `/`; files show their size; FIFOs, sockets, devices,
dangling links and symlink loops are named with why they cannot be read
(nothing is opened or followed further). Defaults to the workspace root
(in a multi-root workspace, the root of each folder is listed).
"""

from __future__ import annotations

import errno
import stat
from pathlib import Path
from typing import ClassVar

from pydantic import Field

from cairn.agent.tools.base import Tool, ToolArgs, ToolContext, ToolFailure, ToolOutcome
from cairn.agent.tools.paths import ROOT_REF, display, guard
from cairn.files.guard import secret_rule
from cairn.files.reading import kind_name

# Most entries listed for one folder; the rest are counted.
MAX_LIST_ENTRIES = 500


class ListDirArgs(ToolArgs):
    path: str | None = Field(
        default=None, description="Workspace-relative folder. Default: the workspace root."
    )


def _entry(ctx: ToolContext, path: Path) -> str:
    """One listing line: `name/`, `name  123 B`, or the name with why it cannot be read."""
    try:
        info = path.stat()
    except OSError as error:  # a dangling link or a symlink loop: never followed further
        why = "symlink loop" if error.errno == errno.ELOOP else "dangling symlink"
        return f"{path.name}  ({why}: not readable)"
    if stat.S_ISDIR(info.st_mode):
        return f"{path.name}/"
    if not stat.S_ISREG(info.st_mode):
        return f"{path.name}  ({kind_name(info.st_mode)}: not readable)"
    note = " (secret: not readable)" if secret_rule(ctx.workspace, path) is not None else ""
    return f"{path.name}  {info.st_size} B{note}"


def _children(folder: Path) -> list[Path]:
    """The folder's entries, folders first; `ToolFailure` naming why it cannot be listed."""
    try:
        entries = list(folder.iterdir())
    except OSError as error:
        raise ToolFailure(f"{folder.name}/: cannot be listed ({error.strerror or error})") from None
    return sorted(entries, key=lambda p: (not p.is_dir(), p.name.lower()))


class ListDir(Tool[ListDirArgs]):
    name: ClassVar[str] = "list_dir"
    description: ClassVar[str] = (
        "List a folder of the workspace (folders end with '/', files show their size). "
        "Ignored files (.gitignore, .git, node_modules...) are not shown."
    )
    args_model = ListDirArgs

    async def run(self, args: ListDirArgs, ctx: ToolContext) -> ToolOutcome:
        if args.path is None and len(ctx.workspace.folders) > 1:
            listings = [self._listing(ctx, folder) for folder in ctx.workspace.folders]
            return ToolOutcome(output="\n\n".join(listings))
        folder = guard(ctx, args.path or ROOT_REF, allow_dir=True)
        if not folder.is_dir():
            raise ToolFailure(f"{args.path}: not a folder (use read_file for files)")
        return ToolOutcome(output=self._listing(ctx, folder), seen=(folder,))

    def _listing(self, ctx: ToolContext, folder: Path) -> str:
        owner = ctx.workspace.folder_of(folder)
        rules = ctx.rules_for(owner) if owner is not None else None
        children = _children(folder)
        visible = [p for p in children if rules is None or not rules.is_ignored(p)]
        lines = [_entry(ctx, p) for p in visible[:MAX_LIST_ENTRIES]]
        if len(visible) > MAX_LIST_ENTRIES:
            lines.append(f"[... {len(visible) - MAX_LIST_ENTRIES} more entries not shown]")
        title = display(ctx, folder)
        header = f"{title}/" if title != ROOT_REF else "./"
        return header + "\n" + ("\n".join(f"  {line}" for line in lines) or "  (empty)")
