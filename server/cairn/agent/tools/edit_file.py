"""`edit_file(path, new, old?)`: replace the one exact occurrence of `old`, or write the file.

With `old`, it must occur exactly once in the current text (the editor's
unsaved text when the file is open, or when the editor serves reads): zero or several matches are an error
naming the count, so the model re-reads and quotes more context. Without
`old`, `new` becomes the whole file (creating it, and its folders, when
needed). The change goes through the editor (`ctx.apply_edit`) when one is
attached, else it is written to disk with `trace.files.atomic_write` (the
file's permissions kept) in the file's own encoding (`cairn.files.encoding`:
BOM, UTF-16, cp1252/Latin-1 kept byte for byte, or the edit refused with the
reason). Refused: a file whose text changed since the model last read or
wrote it in this session (`cairn.agent.tools.file_text`: "read it again"), a
read-only file, a path starting with `~` or holding a NUL byte. A write the
system refuses (EACCES, ENOSPC, ...) is a one-line failure; the file is left
as it was. The result is a unified diff
(`cairn.files.patches.file_patch`), also stored as a `patch` artifact for the
session's ledger.
"""

from __future__ import annotations

import errno
import stat
from pathlib import Path
from typing import ClassVar

from pydantic import Field

from cairn.agent.tools.base import (
    Tool,
    ToolArgs,
    ToolContext,
    ToolFailure,
    ToolOutcome,
    shorten_output,
)
from cairn.agent.tools.file_text import check_not_stale, current_text, saw
from cairn.agent.tools.paths import display, guard
from cairn.files.encoding import Decoded, EncodingRefusal, encode
from cairn.files.guard import PathRefusal
from cairn.files.patches import file_patch
from cairn.files.text import content_hash
from cairn.trace.files import atomic_write

HOME_PREFIX = "~"


class EditFileArgs(ToolArgs):
    path: str = Field(description="Workspace-relative path of the file to change or create.")
    new: str = Field(description="The replacement text (or the whole new file when no `old`).")
    old: str | None = Field(
        default=None,
        description=(
            "Exact text to replace, copied from the file (whitespace included); it must occur "
            "exactly once. Omit it to write the whole file."
        ),
    )


def replace_once(text: str, old: str, new: str, name: str) -> str:
    """`text` with the single occurrence of `old` replaced; `ToolFailure` unless exactly one.

    In a CRLF file, `old` and `new` written with plain newlines (as read_file shows
    them) are matched and inserted with CRLF.
    """
    if not old:
        raise ToolFailure("`old` is empty: omit it to write the whole file")
    count = text.count(old)
    if count == 0 and "\r\n" in text and "\n" in old and "\r\n" not in old:
        old, new = old.replace("\n", "\r\n"), new.replace("\r\n", "\n").replace("\n", "\r\n")
        count = text.count(old)
    if count == 0:
        raise ToolFailure(
            f"{name}: `old` not found (0 matches); read the file and copy the exact text"
        )
    if count > 1:
        raise ToolFailure(
            f"{name}: `old` matches {count} times; include more surrounding lines so it "
            "matches exactly once"
        )
    return text.replace(old, new, 1)


def write_file(path: Path, text: str, decoded: Decoded | None, name: str) -> None:
    """Write `text` (in the file's encoding, else UTF-8; line endings as given) with the one
    atomic writer, folders created; `ToolFailure` when the encoding cannot hold it."""
    try:
        data = text.encode("utf-8") if decoded is None else encode(text, decoded, name)
    except EncodingRefusal as refusal:
        raise ToolFailure(str(refusal)) from None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, data)
    except OSError as error:
        raise ToolFailure(write_refusal(name, error)) from None


def write_refusal(name: str, error: OSError) -> str:
    """One line saying why `name` could not be written (the file is left as it was)."""
    code = errno.errorcode.get(error.errno or 0, "")
    why = error.strerror or str(error)
    return f"{name}: cannot be written: {why}{f' ({code})' if code else ''}; it is left as it was"


def check_writable(path: Path, name: str) -> None:
    """A refusal for a file without write permission (its mode says so, whoever we are)."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return
    if not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
        raise ToolFailure(
            f"{name} is read-only (mode {stat.S_IMODE(mode):04o}); it is left as it is —"
            " ask the user to make it writable if it should change"
        )


def check_path_text(ref: str) -> None:
    """Refuse a path the model wrote as a shell would expand it (`~`)."""
    if ref.startswith(HOME_PREFIX):
        raise ToolFailure(
            f"{ref}: `~` is not expanded (no shell here); give the path relative to the workspace"
        )


def _target(ctx: ToolContext, ref: str, *, creating: bool) -> tuple[Path, bool]:
    """(resolved path, exists). A missing file is fine only when writing a whole file."""
    try:
        return guard(ctx, ref), True
    except PathRefusal as refusal:
        if refusal.reason != "not_found" or not creating:
            raise
        return ctx.workspace.resolve(ref), False


def _counts(diff: str) -> tuple[int, int]:
    added = removed = 0
    for line in diff.splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1
    return added, removed


class EditFile(Tool[EditFileArgs]):
    name: ClassVar[str] = "edit_file"
    description: ClassVar[str] = (
        "Change a file: replace the one exact occurrence of `old` with `new` (copy `old` "
        "verbatim from read_file output, without the line numbers), or, without `old`, write "
        "`new` as the whole file (creates it if needed). Returns the unified diff."
    )
    args_model = EditFileArgs

    async def run(self, args: EditFileArgs, ctx: ToolContext) -> ToolOutcome:
        check_path_text(args.path)
        path, exists = _target(ctx, args.path, creating=args.old is None)
        name = display(ctx, path)
        before, decoded = await current_text(ctx, path, name) if exists else ("", None)
        if exists:
            check_not_stale(ctx, name, before)
            check_writable(path, name)
        after = args.new if args.old is None else replace_once(before, args.old, args.new, name)
        if exists and after == before:
            raise ToolFailure(f"{name}: the edit changes nothing")
        applied = await ctx.write_in_editor(path, after)
        if not applied:
            write_file(path, after, decoded, name)
        saw(ctx, name, after)
        if not exists:
            ctx.refresh_files()
        diff = file_patch(name, before if exists else None, after)
        patch_id = ctx.trace.write_artifact(diff, "patch") if ctx.trace is not None else None
        added, removed = _counts(diff)
        verb = "edited" if exists else "created"
        shown, _ = shorten_output(ctx, diff, "patch")
        return ToolOutcome(
            output=f"{verb} {name} (+{added} -{removed})\n{shown.rstrip()}",
            artifact_id=patch_id,
            data={
                "path": name,
                "hash": content_hash(after),
                "patch_artifact_id": patch_id,
                "created": not exists,
                "added": added,
                "removed": removed,
                "via_editor": applied,
            },
        )
