"""`list_dir(path?)`: the entries of one workspace folder, ignored ones left out.

Folders end with `/`; files show their size. Defaults to the workspace root
(in a multi-root workspace, the root of each folder is listed).
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from pydantic import Field

from cairn.agent.tools.base import Tool, ToolArgs, ToolContext, ToolFailure, ToolOutcome
from cairn.agent.tools.paths import ROOT_REF, display, guard
from cairn.files.guard import is_secret

# Most entries listed for one folder; the rest are counted.
MAX_LIST_ENTRIES = 500


class ListDirArgs(ToolArgs):
    path: str | None = Field(
        default=None, description="Workspace-relative folder. Default: the workspace root."
    )


def _entry(path: Path) -> str:
    if path.is_dir():
        return f"{path.name}/"
    note = " (secret: not readable)" if is_secret(path) else ""
    try:
        size = path.stat().st_size
    except OSError:
        return f"{path.name}{note}"
    return f"{path.name}  {size} B{note}"


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
        return ToolOutcome(output=self._listing(ctx, folder))

    def _listing(self, ctx: ToolContext, folder: Path) -> str:
        owner = ctx.workspace.folder_of(folder)
        rules = ctx.rules_for(owner) if owner is not None else None
        children = sorted(folder.iterdir(), key=lambda p: (not p.is_dir(), p.name.lower()))
        visible = [p for p in children if rules is None or not rules.is_ignored(p)]
        lines = [_entry(p) for p in visible[:MAX_LIST_ENTRIES]]
        if len(visible) > MAX_LIST_ENTRIES:
            lines.append(f"[... {len(visible) - MAX_LIST_ENTRIES} more entries not shown]")
        title = display(ctx, folder)
        header = f"{title}/" if title != ROOT_REF else "./"
        return header + "\n" + ("\n".join(f"  {line}" for line in lines) or "  (empty)")
