"""`cairn trace list|show|fork|delete|repair|forget-limits`: recorded sessions from the
command line.

`list` and `show` only read (`show` streams: memory does not grow with
the size of `messages.jsonl`, see `cairn.commands.trace_view`): a damaged or crashed session is shown as
`cairn trace repair` would leave it (with a warning saying what is wrong),
but nothing is written. `fork` copies a session up to a message with the
goal tree of that moment; `delete` removes one after a confirmation (or
`--yes`); `repair` brings a session's records back to a consistent state
(`cairn.agent.sessions.recovery`) and says what it did; `forget-limits`
clears the context windows providers stated in a session (the configured
`context_window`, or the model map's, applies again until a provider
states another) and says which.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from pathlib import Path

import typer

from cairn.agent.sessions.recovery import fork_session, goals_of, meta_of, recover
from cairn.agent.sessions.session import Session
from cairn.commands.checks import require_workspace
from cairn.commands.trace_slim import slim_message
from cairn.commands.trace_view import (
    SessionData,
    call_lines,
    goal_lines,
    overview_lines,
    selected_data,
    turn_lines,
)
from cairn.errors import InvalidRequestError
from cairn.files.trust import workspace_settings
from cairn.models.session import SessionMeta
from cairn.trace import Trace, TraceStore

TIME_FORMAT = "%Y-%m-%d %H:%M"
TITLE_WIDTH = 40
COLUMNS = ("ID", "TITLE", "TURNS", "LAST", "UPDATED", "PARENT")
NO_PARENT = "-"
NO_TITLE = "(untitled)"
ELLIPSIS = "…"
CONFIRM_ANSWERS = frozenset({"y", "yes"})


def _store(workspace: Path) -> TraceStore:
    require_workspace(workspace)
    return TraceStore(workspace / workspace_settings(workspace).trace_dir)


def _title(meta: SessionMeta) -> str:
    title = " ".join(meta.title.split()) or NO_TITLE
    return title if len(title) <= TITLE_WIDTH else title[: TITLE_WIDTH - 1] + ELLIPSIS


def _last_end(meta: SessionMeta, store: TraceStore) -> str:
    """How the last turn ended; an open one is `running` while its writer lives."""
    if not meta.turns:
        return "-"
    end = meta.turns[-1].finish_reason
    if end is not None:
        return end
    return "running" if store.open(meta.id).writer_pid() is not None else "interrupted"


def _row(meta: SessionMeta, store: TraceStore) -> tuple[str, ...]:
    return (
        meta.id,
        _title(meta),
        str(len(meta.turns)),
        _last_end(meta, store),
        meta.updated_at.strftime(TIME_FORMAT),
        meta.parent_id or NO_PARENT,
    )


def format_table(metas: list[SessionMeta], store: TraceStore) -> str:
    """The sessions as an aligned text table with a header row."""
    rows = [COLUMNS, *(_row(m, store) for m in metas)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(COLUMNS))]
    return "\n".join(
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows
    )


def list_traces(workspace: Path) -> None:
    """Print the workspace's sessions, most recently updated first."""
    store = _store(workspace)
    metas = store.list()
    if not metas:
        typer.echo(f"no sessions in {workspace}")
        return
    typer.echo(format_table(metas, store))


def _warn(line: str) -> None:
    sys.stderr.write(f"warning: {line}\n")


def _warn_skipped(trace: Trace) -> None:
    report = trace.load_report
    for line_report in (report.messages, report.manifests):
        if line_report.skipped:
            _warn(
                f"{line_report.skipped} unreadable line(s) skipped in "
                f"{trace.dir / line_report.file}"
            )


def _session_data(trace: Trace) -> SessionData:
    """The trace as `cairn trace repair` would leave it, read without writing anything: a
    bounded copy of each message in memory (`slim_message`), the whole ones read again from
    disk when printed (`SessionData.stream`)."""
    trace.keep_message = slim_message
    _warn_skipped(trace)
    notes = recover(trace, write=False)
    for note in notes:
        _warn(f"{note} (not written: run `cairn trace repair {trace.id}`)")
    meta = meta_of(trace)
    tree, _ = goals_of(trace)
    patches: dict[str, str] = {}
    for turn in meta.turns:
        if turn.patch_artifact_id is not None:
            try:
                patches[turn.id] = trace.read_artifact(turn.patch_artifact_id).decode(
                    "utf-8", "replace"
                )
            except InvalidRequestError:
                _warn(f"turn {turn.id}: patch artifact {turn.patch_artifact_id} is missing")
    branches: list[tuple[str, int]] = []
    for name in trace.branches():
        branch = trace.existing_branch(name)
        count = sum(1 for _ in branch.iter_messages()) if branch is not None else 0
        branches.append((name, count))
    return SessionData(
        meta=meta,
        tree=tree,
        messages=trace.messages(),
        manifests=trace.manifests(),
        branches=branches,
        patches=patches,
        reread=trace.iter_messages,
    )


def show_trace(
    workspace: Path,
    session_id: str,
    *,
    goal: str | None = None,
    turn: int | None = None,
    call: int | None = None,
    full: bool = False,
    as_json: bool = False,
) -> None:
    """Print a session (overview), or one turn, model call or goal of it in detail."""
    if sum(x is not None for x in (goal, turn, call)) > 1:
        raise InvalidRequestError("give at most one of --goal, --turn and --call")
    data = _session_data(_store(workspace).open(session_id))
    if as_json:
        chosen = selected_data(data, turn=turn, call=call, goal=goal, full=full)
        typer.echo(json.dumps(chosen, indent=2, ensure_ascii=False))
        return
    if turn is not None:
        lines: Iterable[str] = turn_lines(data, turn, full)
    elif call is not None:
        lines = call_lines(data, call)
    elif goal is not None:
        lines = goal_lines(data, goal, full)
    else:
        lines = overview_lines(data)
    for line in lines:  # printed as they are made: a turn's messages are read as they go
        typer.echo(line)


def fork_trace(workspace: Path, session_id: str, at_message: str | None) -> None:
    """Fork a session (at a message: its id or a unique prefix of it) and print the new id."""
    store = _store(workspace)
    parent = store.open(session_id)
    at = _message_id(parent, at_message) if at_message is not None else None
    child = fork_session(store, parent.id, at)
    child.close()
    where = f" at message {at}" if at is not None else ""
    typer.echo(child.id)
    sys.stderr.write(
        f"forked {parent.id}{where} → {child.id} "
        f'(continue it with: cairn run --session {child.id} "…")\n'
    )


def _message_id(trace: Trace, wanted: str) -> str:
    ids = [m.id for m in trace.messages()]
    if wanted in ids:
        return wanted
    matches = [i for i in ids if wanted and i.startswith(wanted)]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise InvalidRequestError(
            f"message {wanted!r} is not in session {trace.id} "
            f"(see the ids with `cairn trace show {trace.id} --full`)"
        )
    raise InvalidRequestError(f"ambiguous message id {wanted!r}: matches {len(matches)} messages")


def delete_trace(workspace: Path, session_id: str, yes: bool) -> None:
    """Delete a session after asking (a TTY), or at once with `--yes`; only by its exact id
    (a prefix that happens to be unique today could name another session tomorrow)."""
    store = _store(workspace)
    resolved = store.resolve_id(session_id)
    if resolved != session_id:
        raise InvalidRequestError(
            f"not deleting: {session_id!r} is only a prefix of session {resolved};"
            " delete needs the exact id"
        )
    meta = store.open(resolved).meta()
    if not yes:
        if not sys.stdin.isatty():
            raise InvalidRequestError(
                f"not deleting session {resolved} without confirmation: add --yes"
            )
        title = f" ({meta.title!r})" if meta.title else ""
        answer = input(
            f"Delete session {resolved}{title}: {len(meta.turns)} turn(s) and its artifacts? [y/N] "
        )
        if answer.strip().lower() not in CONFIRM_ANSWERS:
            sys.stderr.write("not deleted\n")
            raise SystemExit(1)
    store.delete(resolved)
    sys.stderr.write(f"deleted session {resolved}\n")


def repair_trace(workspace: Path, session_id: str) -> None:
    """Repair a session's records now; print each repair (or that none was needed)."""
    trace = _store(workspace).open(session_id)
    _warn_skipped(trace)
    notes = recover(trace, write=True)
    trace.close()
    if not notes:
        typer.echo(f"session {trace.id}: nothing to repair")
        return
    for note in notes:
        typer.echo(f"repaired: {note}" if "not repaired" not in note else note)


def forget_limits(workspace: Path, session_id: str, model: str | None) -> None:
    """Clear a session's learned context limits (one model's, or all); print each one."""
    trace = _store(workspace).open(session_id)
    try:
        cleared = Session(trace).forget_limits([model] if model else [])
    finally:
        trace.close()
    if not cleared:
        which = f" for {model}" if model else ""
        typer.echo(f"session {trace.id}: no context limit learned{which}")
        return
    for name, tokens in sorted(cleared.items()):
        typer.echo(
            f"session {trace.id}: forgot the limit of {name} ({tokens:,} tokens); its next call"
            " builds for the configured window (context_window, else the model map)"
        )
