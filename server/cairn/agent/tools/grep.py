"""`grep(pattern, path?, glob?)`: a regular expression over the workspace's text files.

Searches non-ignored files (under `path` when given, filtered by the `glob`
pattern), skipping secrets and binary files, with the editor's unsaved text
winning over the disk. A file over the read limit (`MAX_FILE_BYTES`) is
searched by streaming it line by line (`cairn.files.reading.stream_lines`),
up to `MAX_STREAM_BYTES`; a larger or unreadable file is skipped and the
output names it with the reason (never a silent "no matches"). Only regular
files are opened (a FIFO or device in the tree is skipped, never read).
Prints ripgrep-style `path:line: text` lines, capped at `MAX_GREP_MATCHES`.

The pattern is the model's, so it may backtrack catastrophically (`(a+)+$` on
a long line of `a`s). It runs under the `regex` package (Python's `re`
syntax, GIL released while matching, so the event loop keeps answering), with
one time limit for the whole search, `GREP_TIMEOUT_S`: past it the call fails
naming the pattern, the line it was on and the fix.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import regex
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
from cairn.files.reading import regular_file_size, stream_lines

MAX_GREP_MATCHES = 200
# The largest file searched (streamed past MAX_FILE_BYTES); larger ones are skipped, and named.
MAX_STREAM_BYTES = 256 * 1024 * 1024
# Skipped files named in the output at most (the rest are counted).
MAX_SKIPPED_SHOWN = 10
# Longest matching line shown; longer lines are cut (with an ellipsis).
MAX_GREP_LINE_CHARS = 300
# Seconds one search may spend matching, all files together (a backtracking pattern fails).
GREP_TIMEOUT_S = 10.0


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
    pattern: regex.Pattern[str]
    files: list[Path]
    deadline: float  # time.monotonic()

    def matches(self, line: str, where: str) -> bool:
        """True when the pattern is found in `line`; ToolFailure past the search's deadline."""
        left = self.deadline - time.monotonic()
        try:
            return left > 0 and self.pattern.search(line, concurrent=True, timeout=left) is not None
        except TimeoutError:
            pass
        raise ToolFailure(too_slow(self.pattern.pattern, where))


def too_slow(pattern: str, where: str) -> str:
    """The failure of a search that ran out of time (at `where`, a path and line)."""
    return (
        f"the regular expression {pattern!r} took more than {GREP_TIMEOUT_S:.0f} s (stopped at"
        f" {where}): it backtracks too much; simplify it (no nested quantifiers such as"
        " '(a+)+', no overlapping alternatives under a repeat) or narrow the path or glob"
    )


@dataclass
class _Found:
    shown: list[str]
    total: int
    files: list[Path]
    skipped: list[str]


def _size_if_searchable(ctx: ToolContext, path: Path) -> int | None:
    """The size of a regular file (checked before it is opened) that is not secret and not
    binary, else None (skipped unsaid: secrets are never hinted at, binaries are no text).
    Raises OSError for a file that cannot be looked at (missing, a FIFO or device, a loop)."""
    size = regular_file_size(path)
    if secret_rule(ctx.workspace, path) is not None or is_binary(path):
        return None
    return size


def _lines(ctx: ToolContext, path: Path, size: int) -> Iterator[tuple[int, str]]:
    if path in ctx.workspace.buffers or size <= MAX_FILE_BYTES:
        yield from enumerate(ctx.workspace.read_text(path).splitlines(), start=1)
    else:
        yield from stream_lines(path)


def _matches(ctx: ToolContext, search: _Search) -> _Found:
    """The formatted matching lines (up to the cap), the total number of matches, the
    files whose matches are shown and the files skipped (with why)."""
    shown: list[str] = []
    files: list[Path] = []
    skipped: list[str] = []
    total = 0
    for path in search.files:
        name = display(ctx, path)
        size = 0
        if path not in ctx.workspace.buffers:
            try:
                found = _size_if_searchable(ctx, path)
            except FileNotFoundError:
                continue  # deleted since it was listed
            except OSError as error:
                skipped.append(f"{name} ({error.strerror or error})")
                continue
            if found is None:
                continue
            if found > MAX_STREAM_BYTES:
                skipped.append(f"{name} ({found} bytes > the {MAX_STREAM_BYTES}-byte limit)")
                continue
            size = found
        try:
            for number, line in _lines(ctx, path, size):
                if not search.matches(line, f"{name}:{number}"):
                    continue
                total += 1
                if len(shown) < MAX_GREP_MATCHES:
                    if not files or files[-1] != path:
                        files.append(path)
                    cut = line[:MAX_GREP_LINE_CHARS] + "…"
                    shown.append(
                        f"{name}:{number}: {line if len(line) <= MAX_GREP_LINE_CHARS else cut}"
                    )
        except OSError as error:
            skipped.append(f"{name} ({error.strerror or error})")
    return _Found(shown, total, files, skipped)


def _skipped_note(skipped: list[str]) -> str:
    named = "; ".join(skipped[:MAX_SKIPPED_SHOWN])
    more = len(skipped) - MAX_SKIPPED_SHOWN
    rest = f"; and {more} more" if more > 0 else ""
    return f"[not searched: {named}{rest}]"


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
            pattern = regex.compile(args.pattern, flags=regex.VERSION0)
        except regex.error as exc:
            raise ToolFailure(f"invalid regular expression {args.pattern!r}: {exc}") from None
        under = (
            guard(ctx, args.path, allow_dir=True, max_bytes=MAX_STREAM_BYTES) if args.path else None
        )
        candidates = [under] if under is not None and under.is_file() else visible_files(ctx, under)
        deadline = time.monotonic() + GREP_TIMEOUT_S
        search = _Search(pattern, _filter(ctx, candidates, args.glob), deadline)
        found = await asyncio.to_thread(_matches, ctx, search)
        shown, total, files = found.shown, found.total, found.files
        data = {
            "matches": total,
            "files_searched": len(search.files) - len(found.skipped),
            "skipped": found.skipped,
        }
        if not shown:
            output = f"no matches for {args.pattern!r}"
            if found.skipped:
                output += f" in the files searched\n{_skipped_note(found.skipped)}"
            return ToolOutcome(output=output, data=data)
        if found.skipped:
            shown.append(_skipped_note(found.skipped))
        if total > len(shown) - bool(found.skipped):
            shown.append(
                f"[... {total - len(shown)} more matches not shown; narrow the pattern, path or glob]"
            )
        seen = tuple(files[:MAX_SEEN_PER_CALL])
        return ToolOutcome(output="\n".join(shown), data=data, seen=seen)
