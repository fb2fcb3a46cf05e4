"""`grep(pattern, path?, glob?)`: a regular expression over the workspace's text files.

Searches non-ignored files (under `path` when given, filtered by the `glob`
pattern), skipping secrets, binary and oversized files, with the editor's
unsaved text winning over the disk. Only regular files are opened (a FIFO
or device in the tree is skipped, never read). Prints ripgrep-style `path:line: text`
lines, capped at `MAX_GREP_MATCHES`.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from pydantic import Field

from cairn.agent.tools.base import (
    MAX_SEEN_PER_CALL,
    Tool,
    ToolArgs,
    ToolContext,
    ToolFailure,
    ToolOutcome,
)
from cairn.agent.tools.glob_files import compile_pattern
from cairn.agent.tools.paths import display, guard, visible_files
from cairn.files.guard import MAX_FILE_BYTES, is_binary, secret_rule
from cairn.files.reading import regular_file_size

MAX_GREP_MATCHES = 200
# Longest matching line shown; longer lines are cut (with an ellipsis).
MAX_GREP_LINE_CHARS = 300


class GrepArgs(ToolArgs):
    pattern: str = Field(
        min_length=1,
        description="Python regular expression, e.g. 'def \\w+_test' or '(?i)todo'.",
    )
    path: str | None = Field(
        default=None, description="Workspace-relative file or folder to search. Default: all."
    )
    glob: str | None = Field(
        default=None, description="Only files matching this gitignore-style pattern ('*.py')."
    )


@dataclass(frozen=True, slots=True)
class _Search:
    regex: re.Pattern[str]
    files: list[Path]


def _searchable(ctx: ToolContext, path: Path) -> bool:
    """A regular file (checked before it is opened) of at most `MAX_FILE_BYTES`, not secret
    and not binary."""
    try:
        if regular_file_size(path) > MAX_FILE_BYTES:
            return False
        return secret_rule(ctx.workspace, path) is None and not is_binary(path)
    except OSError:  # missing, unreadable, a FIFO or device, a symlink loop
        return False


def _matches(ctx: ToolContext, search: _Search) -> tuple[list[str], int, list[Path]]:
    """The formatted matching lines (up to the cap), the total number of matches and the
    files whose matches are shown."""
    shown: list[str] = []
    files: list[Path] = []
    total = 0
    for path in search.files:
        if path not in ctx.workspace.buffers and not _searchable(ctx, path):
            continue
        try:
            text = ctx.workspace.read_text(path)
        except OSError:
            continue
        name = display(ctx, path)
        for number, line in enumerate(text.splitlines(), start=1):
            if search.regex.search(line) is None:
                continue
            total += 1
            if len(shown) < MAX_GREP_MATCHES:
                if not files or files[-1] != path:
                    files.append(path)
                body = (
                    line if len(line) <= MAX_GREP_LINE_CHARS else line[:MAX_GREP_LINE_CHARS] + "…"
                )
                shown.append(f"{name}:{number}: {body}")
    return shown, total, files


def _filter(ctx: ToolContext, files: Iterable[Path], pattern: str | None) -> list[Path]:
    if pattern is None:
        return list(files)
    spec = compile_pattern(pattern)
    return [p for p in files if spec.match_file(display(ctx, p))]


class Grep(Tool[GrepArgs]):
    name: ClassVar[str] = "grep"
    description: ClassVar[str] = (
        "Search the workspace's text files with a regular expression; prints 'path:line: text' "
        "for each matching line. Narrow with path (file or folder) and glob ('*.py')."
    )
    args_model = GrepArgs

    async def run(self, args: GrepArgs, ctx: ToolContext) -> ToolOutcome:
        try:
            regex = re.compile(args.pattern)
        except re.error as exc:
            raise ToolFailure(f"invalid regular expression {args.pattern!r}: {exc}") from None
        under = guard(ctx, args.path, allow_dir=True) if args.path else None
        candidates = [under] if under is not None and under.is_file() else visible_files(ctx, under)
        search = _Search(regex, _filter(ctx, candidates, args.glob))
        shown, total, files = await asyncio.to_thread(_matches, ctx, search)
        data = {"matches": total, "files_searched": len(search.files)}
        if not shown:
            return ToolOutcome(output=f"no matches for {args.pattern!r}", data=data)
        if total > len(shown):
            shown.append(
                f"[... {total - len(shown)} more matches not shown; narrow the pattern, path or glob]"
            )
        seen = tuple(files[:MAX_SEEN_PER_CALL])
        return ToolOutcome(output="\n".join(shown), data=data, seen=seen)
