"""`glob(pattern)`: workspace files whose path matches a gitignore-style pattern.

Patterns follow `.gitignore` syntax (`pathspec`): `*.py` matches at any
depth, `src/**/*.ts` under `src/`, a leading `/` anchors at the root. Only
non-ignored files are listed, sorted, up to `MAX_GLOB_RESULTS`.
"""

from __future__ import annotations

import asyncio
from typing import ClassVar

import pathspec
from pydantic import Field

from cairn.agent.tools.base import (
    MAX_SEEN_PER_CALL,
    Tool,
    ToolArgs,
    ToolContext,
    ToolFailure,
    ToolOutcome,
)
from cairn.agent.tools.paths import display, visible_files

MAX_GLOB_RESULTS = 500


class GlobArgs(ToolArgs):
    pattern: str = Field(
        min_length=1,
        description="Gitignore-style pattern: '*.py' (any depth), 'src/**/*.ts', '/setup.py'.",
    )


def compile_pattern(pattern: str) -> pathspec.PathSpec:
    """A matcher for one gitignore-style pattern (negations are refused)."""
    if pattern.lstrip().startswith("!"):
        raise ToolFailure(f"glob pattern {pattern!r}: negation ('!') is not supported")
    try:
        return pathspec.GitIgnoreSpec.from_lines([pattern])
    except (ValueError, TypeError) as exc:
        raise ToolFailure(f"invalid glob pattern {pattern!r}: {exc}") from None


class Glob(Tool[GlobArgs]):
    name: ClassVar[str] = "glob"
    description: ClassVar[str] = (
        "Find workspace files by path pattern (gitignore syntax: '*.py' matches at any depth, "
        "'src/**/test_*.py' under src/). Lists non-ignored files, sorted."
    )
    args_model = GlobArgs

    async def run(self, args: GlobArgs, ctx: ToolContext) -> ToolOutcome:
        spec = compile_pattern(args.pattern)
        found = await asyncio.to_thread(
            lambda: [
                (path, name)
                for path, name in ((p, display(ctx, p)) for p in visible_files(ctx))
                if spec.match_file(name)
            ]
        )
        if not found:
            return ToolOutcome(output=f"no files match {args.pattern!r}", data={"count": 0})
        lines = [name for _path, name in found[:MAX_GLOB_RESULTS]]
        if len(found) > MAX_GLOB_RESULTS:
            lines.append(f"[... {len(found) - MAX_GLOB_RESULTS} more files; narrow the pattern]")
        seen = tuple(path for path, _name in found[:MAX_SEEN_PER_CALL])
        return ToolOutcome(output="\n".join(lines), data={"count": len(found)}, seen=seen)
