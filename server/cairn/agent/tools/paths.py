"""Path handling shared by the file tools: the guard, display names, file listings.

Every path the model names goes through `cairn.files.guard.guard_path`
(workspace confinement after symlinks, secrets, ignored files, binary and
oversized files), with the ignore rules of the folder it falls in. Listings
(`glob`, `grep`, `list_dir`) only ever show non-ignored files.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from cairn.agent.tools.base import ToolContext
from cairn.errors import PathRefusedError
from cairn.files.guard import MAX_FILE_BYTES, guard_path, read_refusal
from cairn.files.ignore import IgnoreRules

ROOT_REF = "."


def _rules_for_ref(ctx: ToolContext, ref: str) -> IgnoreRules | None:
    """The ignore rules of the folder `ref` lands in (None when it is outside: the guard says so)."""
    try:
        resolved = ctx.workspace.resolve(ref)
    except PathRefusedError:
        return ctx.ignore
    folder = ctx.workspace.folder_of(resolved)
    return ctx.rules_for(folder) if folder is not None else ctx.ignore


def guard(
    ctx: ToolContext, ref: str, *, allow_dir: bool = False, max_bytes: int = MAX_FILE_BYTES
) -> Path:
    """The resolved path if the agent may use it; `PathRefusedError` naming the reason if not."""
    return guard_path(
        ctx.workspace,
        ref,
        ignore=_rules_for_ref(ctx, ref),
        max_bytes=max_bytes,
        allow_dir=allow_dir,
    )


def read_guarded(ctx: ToolContext, path: Path, max_bytes: int = MAX_FILE_BYTES) -> str:
    """The text of a guarded path (editor first); a refusal naming why when it cannot be read
    (replaced by a FIFO or grown past the limit since the guard looked)."""
    try:
        return ctx.workspace.read_text(path, max_bytes)
    except OSError as error:
        raise read_refusal(display(ctx, path), error) from error


async def read_current(ctx: ToolContext, path: Path, max_bytes: int = MAX_FILE_BYTES) -> str:
    """The current text of a guarded path: the editor's when it serves reads (unsaved text
    an ACP client holds), else `read_guarded` (an open buffer, else the disk)."""
    text = await ctx.editor_text(path)
    return text if text is not None else read_guarded(ctx, path, max_bytes)


def display(ctx: ToolContext, path: Path) -> str:
    """The workspace-relative name the model uses for `path`."""
    return ctx.workspace.relative(path)


def visible_files(ctx: ToolContext, under: Path | None = None) -> Iterator[Path]:
    """Every non-ignored file of the workspace (or under one folder of it), sorted per folder."""
    for folder in ctx.workspace.folders:
        if under is not None and not (under.is_relative_to(folder) or folder.is_relative_to(under)):
            continue
        for path in ctx.rules_for(folder).files():
            if under is None or path == under or path.is_relative_to(under):
                yield path
