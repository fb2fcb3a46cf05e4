"""`diagnostics(path?)`: what the editor's language servers report, one line each.

Lines read `path:line:col severity source: message` (1-based line and
column), sorted by path and position, errors of the whole workspace when no
path is given, or those of one file or folder.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from pydantic import Field

from cairn.agent.tools.base import Tool, ToolArgs, ToolContext, ToolOutcome
from cairn.agent.tools.paths import display
from cairn.models.diagnostics import Diagnostic

MAX_DIAGNOSTICS = 200
SEVERITY_NAMES = {1: "error", 2: "warning", 3: "info", 4: "hint"}
UNKNOWN_SEVERITY = "error"  # LSP: a missing severity is up to the client; treat as error


class DiagnosticsArgs(ToolArgs):
    path: str | None = Field(
        default=None,
        description="Workspace-relative file or folder. Default: the whole workspace.",
    )


def format_diagnostic(name: str, diagnostic: Diagnostic) -> str:
    start = diagnostic.range.start
    severity = SEVERITY_NAMES.get(diagnostic.severity or 0, UNKNOWN_SEVERITY)
    source = f"{diagnostic.source}" if diagnostic.source else "unknown"
    code = f" [{diagnostic.code}]" if diagnostic.code is not None else ""
    message = " ".join(diagnostic.message.split())
    return f"{name}:{start.line + 1}:{start.character + 1} {severity} {source}: {message}{code}"


def _selected(ctx: ToolContext, scope: Path | None) -> list[tuple[str, Diagnostic]]:
    found: list[tuple[str, Diagnostic]] = []
    for path, items in ctx.workspace.diagnostics_for().items():
        if scope is not None and not (path == scope or path.is_relative_to(scope)):
            continue
        name = display(ctx, path)
        found.extend((name, d) for d in items)
    found.sort(key=lambda item: (item[0], item[1].range.start.line, item[1].range.start.character))
    return found


class Diagnostics(Tool[DiagnosticsArgs]):
    name: ClassVar[str] = "diagnostics"
    description: ClassVar[str] = (
        "Errors and warnings the editor's language servers report, as "
        "'path:line:col severity source: message', for a file, a folder or the whole workspace."
    )
    args_model = DiagnosticsArgs

    async def run(self, args: DiagnosticsArgs, ctx: ToolContext) -> ToolOutcome:
        scope = ctx.workspace.resolve(args.path) if args.path else None
        found = _selected(ctx, scope)
        where = f" in {args.path}" if args.path else ""
        if not found:
            return ToolOutcome(output=f"no diagnostics{where}", data={"count": 0})
        lines = [format_diagnostic(name, d) for name, d in found[:MAX_DIAGNOSTICS]]
        if len(found) > MAX_DIAGNOSTICS:
            lines.append(f"[... {len(found) - MAX_DIAGNOSTICS} more diagnostics not shown]")
        return ToolOutcome(output="\n".join(lines), data={"count": len(found)})
