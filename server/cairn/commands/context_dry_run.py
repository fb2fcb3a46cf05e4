"""`cairn context`: the manifest the next model call would get, without calling a model.

Builds the context exactly as the engine would (same builder, tool schemas of
the mode, project profile, repository map), over a session's history and
goals when `--session` is given, and prints it as a table of blocks with
totals, as the Manifest wire JSON (`--json`), or as the exact chat messages
(`--text`). It is a dry run: nothing is written — no artifact, no profile
document, no repository-map cache.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from cairn.agent.tools import default_registry
from cairn.context.builder import BuiltContext, ContextBuilder, ContextRequest
from cairn.context.sources.mode import MODE_TOOLS
from cairn.errors import InvalidRequestError
from cairn.files.ignore import IgnoreRules
from cairn.files.workspace import Workspace
from cairn.models.goals import GoalTree
from cairn.models.messages import Message
from cairn.profile.store import ProfileManager
from cairn.repomap.map import RepoMap
from cairn.settings import Settings, load_settings
from cairn.trace import TraceStore

COLUMNS = ("SOURCE", "REF", "TOKENS", "STATUS")
REF_WIDTH = 48
ELLIPSIS = "…"
DRY_RUN_SESSION = "(dry run)"
RULE = "─" * 8


class _ReadOnlyDocs:
    """The trace store's documents, read but never written (this command is a dry run)."""

    def __init__(self, store: TraceStore) -> None:
        self.store = store

    def read_doc(self, name: str) -> dict[str, Any] | None:
        return self.store.read_doc(name)

    def write_doc(self, name: str, data: dict[str, Any]) -> None:
        """Discarded: `cairn context` writes nothing."""


def _file_path(workspace: Workspace, file: Path) -> Path:
    """A `--file` as typed: absolute, relative to the current folder, or to the workspace."""
    if not file.is_absolute() and (Path.cwd() / file).exists():
        file = Path.cwd() / file
    return workspace.resolve(file)


def _session_state(
    store: TraceStore, session_id: str | None
) -> tuple[str, list[Message], GoalTree, str | None]:
    """(session id, history, goals, the session's model) — empty for no session."""
    if session_id is None:
        return DRY_RUN_SESSION, [], GoalTree(), None
    trace = store.open(session_id)
    return trace.id, trace.messages(), trace.goals(), trace.meta().model


def build_dry_run(
    workspace_dir: Path,
    files: list[Path],
    message: str,
    session_id: str | None,
    model: str | None,
) -> BuiltContext:
    """The context the next call would get (see the module docstring)."""
    settings: Settings = load_settings(workspace_dir)
    workspace = Workspace([workspace_dir])
    store = TraceStore(workspace.root / settings.trace_dir)
    sid, history, goals, session_model = _session_state(store, session_id)
    chosen_model = model or session_model or settings.model
    ignore = IgnoreRules.for_folder(workspace.root)
    profiles = ProfileManager(workspace.root, _ReadOnlyDocs(store), ignore)
    builder = ContextBuilder(
        workspace,
        settings,
        profile_provider=profiles.get,
        repomap=RepoMap(workspace.root, ignore, cache_dir=None),
    )
    registry = default_registry()
    tools = [name for name in MODE_TOOLS[settings.mode] if registry.get(name) is not None]
    return builder.build(
        ContextRequest(
            session_id=sid,
            model=chosen_model,
            mode=settings.mode,
            goals=goals,
            history=history,
            user_message=message,
            files_in_play=[_file_path(workspace, f) for f in files],
            tool_schemas=registry.schemas(tools),
        )
    )


def _short(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + ELLIPSIS


def _status(included: bool, reason: str | None) -> str:
    if included:
        return f"included ({reason})" if reason else "included"
    return f"dropped: {reason}" if reason else "dropped"


def format_table(built: BuiltContext) -> str:
    """Blocks (source, ref, tokens, status) with the budget totals underneath."""
    rows = [COLUMNS] + [
        (b.source, _short(b.ref or "-", REF_WIDTH), str(b.tokens), _status(b.included, b.reason))
        for b in built.manifest.blocks
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(COLUMNS) - 1)]
    lines = [
        "  ".join([*(c.ljust(w) for c, w in zip(row[:-1], widths, strict=True)), row[-1]]).rstrip()
        for row in rows
    ]
    stats = built.stats
    dropped = sum(1 for b in built.manifest.blocks if not b.included)
    lines += [
        "",
        f"model {built.manifest.model}: used {stats.used_input} of {stats.available_input}"
        f" input tokens ({len(built.manifest.blocks) - dropped} blocks included,"
        f" {dropped} dropped)",
        f"context window {stats.context_window} = input {stats.available_input}"
        f" + output {stats.max_output_tokens} + tool schemas {stats.tool_schema_tokens}"
        f" + safety margin {stats.safety_margin}",
        "by source: "
        + ", ".join(f"{source} {tokens}" for source, tokens in stats.by_source.items()),
    ]
    return "\n".join(lines)


def format_messages(messages: list[dict[str, Any]]) -> str:
    """The chat messages verbatim, each under a role header; tool calls as JSON."""
    out: list[str] = []
    for message in messages:
        header = message["role"]
        if message.get("tool_call_id"):
            header += f" (tool_call_id {message['tool_call_id']})"
        out.append(f"{RULE} {header} {RULE}")
        if message.get("content"):
            out.append(str(message["content"]))
        for call in message.get("tool_calls") or []:
            out.append("tool_call " + json.dumps(call, ensure_ascii=False))
    return "\n".join(out)


def show_context(
    workspace: Path,
    files: list[Path],
    message: str,
    session_id: str | None,
    model: str | None,
    as_json: bool,
    as_text: bool,
) -> None:
    """Print the next call's manifest (table, `--json`) or its messages (`--text`)."""
    if as_json and as_text:
        raise InvalidRequestError("--json and --text cannot be used together")
    built = build_dry_run(workspace, files, message, session_id, model)
    if as_json:
        typer.echo(json.dumps(built.manifest.wire(), indent=2, ensure_ascii=False))
    elif as_text:
        typer.echo(format_messages(built.messages))
    else:
        typer.echo(format_table(built))
