"""`cairn trace …`: the wiring of the session commands (their work is `cairn.commands.trace`).

Implementations are imported lazily, as in `cairn.cli`, so the command line starts fast.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from cairn.commands.options import WorkspaceOpt

trace_app = typer.Typer(help="Inspect recorded sessions.", no_args_is_help=True)


@trace_app.command("list")
def trace_list(workspace: WorkspaceOpt = Path(".")) -> None:
    """List the sessions of a workspace, newest first."""
    from cairn.commands.trace import list_traces

    list_traces(workspace)


@trace_app.command("show")
def trace_show(
    session_id: Annotated[str, typer.Argument(help="Session id (a unique prefix is enough).")],
    workspace: WorkspaceOpt = Path("."),
    goal: Annotated[
        str | None, typer.Option("--goal", help="Expand this goal (finished ones too).")
    ] = None,
    turn: Annotated[
        int | None, typer.Option("--turn", help="Show turn N in detail (1 = the first).")
    ] = None,
    call: Annotated[
        int | None, typer.Option("--call", help="Show model call N with its manifest.")
    ] = None,
    full: Annotated[
        bool, typer.Option("--full", help="Whole texts and tool outputs, the turn's patch.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the view as JSON.")] = False,
) -> None:
    """Show a session: its turns, its goal tree with steps, and one part in detail on request."""
    from cairn.commands.trace import show_trace

    show_trace(workspace, session_id, goal=goal, turn=turn, call=call, full=full, as_json=as_json)


@trace_app.command("fork")
def trace_fork(
    session_id: Annotated[str, typer.Argument(help="Session id (a unique prefix is enough).")],
    at: Annotated[
        str | None,
        typer.Option("--at", help="Fork at this message (id or unique prefix); default: the end."),
    ] = None,
    workspace: WorkspaceOpt = Path("."),
) -> None:
    """Copy a session up to a message, with its goal tree as it was then; print the new id."""
    from cairn.commands.trace import fork_trace

    fork_trace(workspace, session_id, at)


@trace_app.command("delete")
def trace_delete(
    session_id: Annotated[str, typer.Argument(help="Session id (exactly: no prefix).")],
    workspace: WorkspaceOpt = Path("."),
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
) -> None:
    """Delete a session: its messages, manifests, artifacts and branches."""
    from cairn.commands.trace import delete_trace

    delete_trace(workspace, session_id, yes)


@trace_app.command("repair")
def trace_repair(
    session_id: Annotated[str, typer.Argument(help="Session id (a unique prefix is enough).")],
    workspace: WorkspaceOpt = Path("."),
) -> None:
    """Repair a session after a crash: close turns left open, rebuild damaged files."""
    from cairn.commands.trace import repair_trace

    repair_trace(workspace, session_id)


@trace_app.command("forget-limits")
def trace_forget_limits(
    session_id: Annotated[str, typer.Argument(help="Session id (a unique prefix is enough).")],
    model: Annotated[
        str | None, typer.Option("--model", help="Only this model's limit; default: every one.")
    ] = None,
    workspace: WorkspaceOpt = Path("."),
) -> None:
    """Clear the context limits providers stated in a session (see `cairn models`)."""
    from cairn.commands.trace import forget_limits

    forget_limits(workspace, session_id, model)
