"""`read_file(path, start_line?, end_line?)`: a file (or a stored artifact) with line numbers.

The editor's unsaved text wins over the disk (read through the editor when it
serves reads, as an ACP client does). `path` may be `artifact:<id>` to read
a large output an earlier tool stored, or `mcp:<server>/<uri>` to read a
resource of one of the turn's MCP servers (an MCP tool result links to them
that way). When the requested lines do not fit inline, the model gets the
first lines that do, a note telling it how to continue, and the whole
numbered text in an artifact — except for a log or command output
(recognised by its content, `context.kinds`) read without a range: it gets
the head, the error lines with context and the tail, each left-out range
naming the `read_file` call that shows it. A file over the read limit
(`MAX_FILE_BYTES`) is not refused but streamed (`cairn.files.reading`): a
range of it is read line by line, and without a range the model gets the
same head/error lines/tail excerpt of it.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import ClassVar

from pydantic import Field, model_validator

from cairn.agent.tools.base import (
    MAX_INLINE_OUTPUT_CHARS,
    MAX_LINE_CHARS,
    OUTPUT_EXCERPT,
    Tool,
    ToolArgs,
    ToolContext,
    ToolFailure,
    ToolOutcome,
)
from cairn.agent.tools.file_text import current_text, saw
from cairn.agent.tools.mcp_tool import artifact_store
from cairn.agent.tools.paths import display, guard
from cairn.context.excerpt import ARTIFACT_REF_PREFIX, TextLines, fitting_excerpt_of
from cairn.context.kinds import looks_like_log
from cairn.context.large_files import large_file_excerpt
from cairn.errors import InvalidRequestError
from cairn.files.guard import PathRefusal
from cairn.files.reading import MAX_FILE_BYTES, MAX_STREAM_BYTES, read_lines_bounded
from cairn.files.text import clip_line, content_hash, cut_line_marker
from cairn.mcp import MCP_REF_PREFIX
from cairn.mcp.results import render_resource

KEY_MCP_RESOURCE = "mcp_resource"

# Width of the right-aligned line-number column (as `cat -n`).
LINE_NUMBER_WIDTH = 6


class ReadFileArgs(ToolArgs):
    path: str = Field(
        description=(
            "Workspace-relative file path, `artifact:<id>` for a stored tool output, or"
            " `mcp:<server>/<uri>` for a resource of an MCP server."
        )
    )
    start_line: int | None = Field(
        default=None, ge=1, description="First line to show (1-based). Default: 1."
    )
    end_line: int | None = Field(
        default=None, ge=1, description="Last line to show (inclusive). Default: end of file."
    )

    @model_validator(mode="after")
    def _ordered(self) -> ReadFileArgs:
        if self.start_line and self.end_line and self.end_line < self.start_line:
            raise ValueError("end_line must not be smaller than start_line")
        return self


def number_lines(lines: list[str], first: int) -> list[str]:
    """`cat -n`-style lines: the 1-based number, a tab, the text (line ending removed)."""
    return [
        f"{number:>{LINE_NUMBER_WIDTH}}\t{line.rstrip(chr(13) + chr(10))}"
        for number, line in enumerate(lines, start=first)
    ]


def _clip(line: str) -> str:
    return clip_line(line, MAX_LINE_CHARS)


def _fit(numbered: list[str]) -> list[str]:
    """The leading lines of `numbered` (long ones clipped) that fit inline (at least one)."""
    kept: list[str] = []
    size = 0
    for line in map(_clip, numbered):
        size += len(line) + 1
        if kept and size > MAX_INLINE_OUTPUT_CHARS:
            break
        kept.append(line)
    return kept


class ReadFile(Tool[ReadFileArgs]):
    name: ClassVar[str] = "read_file"
    description: ClassVar[str] = (
        "Read a text file of the workspace, with line numbers (number, tab, text). Use "
        "start_line/end_line for a part of a long file. Unsaved editor changes are included. "
        "A path `artifact:<id>` reads a stored long tool output; `mcp:<server>/<uri>` reads an "
        "MCP server's resource."
    )
    args_model = ReadFileArgs

    async def run(self, args: ReadFileArgs, ctx: ToolContext) -> ToolOutcome:
        if args.path.startswith(ARTIFACT_REF_PREFIX):
            label = args.path
            text = _read_artifact(ctx, args.path[len(ARTIFACT_REF_PREFIX) :])
            data: dict[str, object] = {"artifact_id": args.path[len(ARTIFACT_REF_PREFIX) :]}
        elif args.path.startswith(MCP_REF_PREFIX):
            label = args.path
            text = await _read_resource(ctx, args.path[len(MCP_REF_PREFIX) :])
            data = {KEY_MCP_RESOURCE: args.path}
        else:
            limit = MAX_FILE_BYTES
            try:
                path = guard(ctx, args.path)
            except PathRefusal as refusal:
                if refusal.reason != "too_large":
                    raise
                path = guard(ctx, args.path, max_bytes=MAX_STREAM_BYTES * 1024)
                if path not in ctx.workspace.buffers:
                    return _streamed(display(ctx, path), path, args)
                limit = MAX_STREAM_BYTES  # an editor buffer: its text is in memory already
            label = display(ctx, path)
            text, _ = await current_text(ctx, path, label, max_bytes=limit)
            data = {"path": label, "hash": content_hash(text)}
            saw(ctx, label, text)
            return replace(self._view(ctx, label, text, args, data), seen=(path,))
        return self._view(ctx, label, text, args, data)

    def _view(
        self,
        ctx: ToolContext,
        label: str,
        text: str,
        args: ReadFileArgs,
        data: dict[str, object],
    ) -> ToolOutcome:
        lines = text.splitlines(keepends=True)
        if not lines:
            return ToolOutcome(output=f"{label}: (empty file)", data=data)
        total = len(lines)
        start = args.start_line or 1
        if start > total:
            raise ToolFailure(f"{label}: start_line {start} is past the end ({total} lines)")
        end = min(args.end_line or total, total)
        numbered = number_lines(lines[start - 1 : end], start)
        shown = _fit(numbered)
        data.update(start_line=start, end_line=start + len(shown) - 1, total_lines=total)
        complete = len(shown) == len(numbered)
        whole_file = args.start_line is None and args.end_line is None
        if not complete and whole_file and looks_like_log(text):
            excerpt = _log_excerpt(label, text)
            if excerpt is not None:
                return ToolOutcome(output=excerpt, data=data)
        if complete and shown == numbered:
            suffix = "" if start == 1 and end == total else f"\n[lines {start}-{end} of {total}]"
            return ToolOutcome(output="\n".join(shown) + suffix, data=data)
        artifact_id = None
        if ctx.trace is not None:
            artifact_id = ctx.trace.write_artifact("\n".join(numbered), "text")
        stored = f"; the full text is in artifact {artifact_id}" if artifact_id else ""
        last = start + len(shown) - 1
        note = (
            f"[long lines were cut{stored}]"
            if complete
            else f"[lines {start}-{last} of {total} shown (output limit); continue with "
            f"read_file(path={label!r}, start_line={last + 1}){stored}]"
        )
        return ToolOutcome(
            output="\n".join(shown) + "\n" + note, artifact_id=artifact_id, data=data
        )


def _log_excerpt(label: str, text: str) -> str | None:
    """Head, error lines with context and tail of a log too long to show inline."""
    lines = text.splitlines()
    note = (
        f"[{label}: {len(lines)} lines, a log: head, error lines with context and tail shown;"
        f' read_file("{label}", start_line, end_line) shows any range]'
    )
    return fitting_excerpt_of(
        TextLines(lines),
        MAX_INLINE_OUTPUT_CHARS,
        len,
        OUTPUT_EXCERPT,
        note=note,
        ref=label,
        max_line_chars=MAX_LINE_CHARS,
    )


def _streamed(label: str, path: Path, args: ReadFileArgs) -> ToolOutcome:
    """A file over the read limit: the range asked for, read by streaming, or without a
    range its head, error lines and tail."""
    data: dict[str, object] = {"path": label, "streamed": True}
    try:
        if args.start_line is None and args.end_line is None:
            return ToolOutcome(output=large_file_excerpt(path, label).text, data=data)
        start = args.start_line or 1
        found = read_lines_bounded(path, start, args.end_line, MAX_INLINE_OUTPUT_CHARS)
    except OSError as error:
        raise ToolFailure(f"{label}: cannot be read ({error})") from None
    if not found.lines:
        raise ToolFailure(f"{label}: start_line {start} is past the end ({found.total} lines)")
    shown = [
        line
        if length <= MAX_LINE_CHARS
        else f"{line[:MAX_LINE_CHARS]}{cut_line_marker(length - MAX_LINE_CHARS)}"
        for line, length in zip(found.lines, found.lengths, strict=True)
    ]
    numbered = number_lines(shown, start)
    last = start + len(shown) - 1
    data.update(start_line=start, end_line=last, total_lines=found.total)
    more = (
        f"; continue with read_file(path={label!r}, start_line={last + 1})"
        if not found.complete
        else ""
    )
    return ToolOutcome(
        output="\n".join(numbered) + f"\n[lines {start}-{last} of {found.total}{more}]", data=data
    )


def _read_artifact(ctx: ToolContext, artifact_id: str) -> str:
    if ctx.trace is None:
        raise ToolFailure("no trace: artifacts are not available here")
    try:
        return ctx.trace.read_artifact(artifact_id).decode("utf-8", errors="replace")
    except InvalidRequestError as exc:
        raise ToolFailure(str(exc)) from None


async def _read_resource(ctx: ToolContext, ref: str) -> str:
    """The text of `<server>/<uri>`, a resource of one of the turn's MCP servers."""
    server, _, uri = ref.partition("/")
    catalog = ctx.scope.offer.catalog if ctx.scope is not None else None
    names = [s.name for s in catalog.servers] if catalog is not None else []
    if catalog is None or server not in names:
        known = ", ".join(names) or "none"
        raise ToolFailure(f"no MCP server {server!r} in this turn (servers: {known})")
    if not uri:
        raise ToolFailure(
            f"give the resource's URI: read_file(path='{MCP_REF_PREFIX}{server}/<uri>')"
        )
    result = await catalog.read_resource(server, uri)
    return render_resource(result.contents, artifact_store(ctx))
