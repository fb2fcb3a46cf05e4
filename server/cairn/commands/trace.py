"""`cairn trace list` and `cairn trace show ID`: read-only views of recorded sessions."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from cairn.commands.checks import require_workspace
from cairn.goals import render_trace_view
from cairn.models.session import SessionMeta
from cairn.settings import load_settings
from cairn.trace import Trace, TraceStore

TIME_FORMAT = "%Y-%m-%d %H:%M"
TITLE_WIDTH = 40
COLUMNS = ("ID", "TITLE", "TURNS", "UPDATED", "PARENT")
NO_PARENT = "-"
NO_TITLE = "(untitled)"
ELLIPSIS = "…"


def _store(workspace: Path) -> TraceStore:
    require_workspace(workspace)
    return TraceStore(workspace / load_settings(workspace).trace_dir)


def _title(meta: SessionMeta) -> str:
    title = " ".join(meta.title.split()) or NO_TITLE
    return title if len(title) <= TITLE_WIDTH else title[: TITLE_WIDTH - 1] + ELLIPSIS


def _row(meta: SessionMeta) -> tuple[str, ...]:
    return (
        meta.id,
        _title(meta),
        str(len(meta.turns)),
        meta.updated_at.strftime(TIME_FORMAT),
        meta.parent_id or NO_PARENT,
    )


def format_table(metas: list[SessionMeta]) -> str:
    """The sessions as an aligned text table with a header row."""
    rows = [COLUMNS, *(_row(m) for m in metas)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(COLUMNS))]
    return "\n".join(
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows
    )


def list_traces(workspace: Path) -> None:
    """Print the workspace's sessions, most recently updated first."""
    metas = _store(workspace).list()
    if not metas:
        typer.echo(f"no sessions in {workspace}")
        return
    typer.echo(format_table(metas))


def _warn_skipped(trace: Trace) -> None:
    report = trace.load_report
    for line_report in (report.messages, report.manifests):
        if line_report.skipped:
            sys.stderr.write(
                f"warning: {line_report.skipped} unreadable line(s) skipped in "
                f"{trace.dir / line_report.file}\n"
            )


def show_trace(workspace: Path, session_id: str) -> None:
    """Print a session's goal tree together with its messages (and its branches)."""
    trace = _store(workspace).open(session_id)
    _warn_skipped(trace)
    typer.echo(render_trace_view(trace.goals(), trace.messages(), trace.meta()))
    branches = trace.branches()
    if branches:
        typer.echo("")
        typer.echo(
            f"Branches ({len(branches)}; show one with `cairn trace show {trace.id}/<name>`):"
        )
        for name in branches:
            branch = trace.existing_branch(name)
            count = len(branch.messages()) if branch is not None else 0
            typer.echo(f"  {name}: {count} message{'' if count == 1 else 's'}")
