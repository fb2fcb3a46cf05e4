"""`cairn context`: the manifest the next model call would get, without calling a model.

Asks a read-only engine on the workspace (`cairn.agent.read_only`) for the
next call's context: the same builder path as a real call (sources, open
buffers, the mode's tools — `--mode`, else the settings' — project profile,
repository map with its index under `.cairn/cache/`), over a session's
history and goals when `--session` is given. `--file` (repeatable) and the
message's `@path` mentions are referenced, through the same guard and with
the same refusals as in a real turn; a missing workspace is an error.
Prints it as a table of blocks (with the cache zone each sits in) and
totals — the tokens per zone, the cost of each per-call extra (map,
profile, rules, buffers, diff, diagnostics, plan), the tokenizer and its
calibration, the share the provider should serve from its prompt cache
(the unchanged prefix of the session's last call) and what it reported for
that call — as the Manifest wire JSON (`--json`), or as the
exact chat messages (`--text`). It is a dry run:
no trace, no artifact, no profile document is written; only the repository
map's index is read and refreshed, so a second run starts warm. It never
starts a process, trusted folder or not: configured MCP servers are listed
as not started in a dry run (their tools unknown), and an untrusted
folder's ignored keys are the manifest's note (`cairn.files.trust`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from cairn.agent.read_only import ReadOnlyEngine
from cairn.commands.checks import file_reference, parse_mode, require_workspace
from cairn.context.builder import BuiltContext
from cairn.errors import InvalidRequestError
from cairn.files.trust import workspace_settings
from cairn.settings import Mode

COLUMNS = ("ZONE", "SOURCE", "REF", "TOKENS", "STATUS")
PERCENT = 100
REF_WIDTH = 48
ELLIPSIS = "…"
RULE = "─" * 8


def next_context(
    engine: ReadOnlyEngine,
    files: list[Path],
    message: str,
    session_id: str | None,
    model: str | None,
    mode: Mode | None = None,
) -> BuiltContext:
    """What `cairn context` shows: the engine's next context with `files` (`--file`) and the
    message's `@` mentions referenced."""
    references = [file_reference(f) for f in files]
    return engine.next_context(
        message, session_id=session_id, references=references, model=model, mode=mode
    )


def build_dry_run(
    workspace_dir: Path,
    files: list[Path],
    message: str,
    session_id: str | None,
    model: str | None,
    mode: Mode | None = None,
) -> BuiltContext:
    """The context the next call would get (see the module docstring)."""
    require_workspace(workspace_dir)
    engine = ReadOnlyEngine([workspace_dir], workspace_settings(workspace_dir))
    return next_context(engine, files, message, session_id, model, mode)


def _short(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + ELLIPSIS


def _status(included: bool, reason: str | None) -> str:
    if included:
        return f"included ({reason})" if reason else "included"
    return f"dropped: {reason}" if reason else "dropped"


def format_table(built: BuiltContext) -> str:
    """Blocks (source, ref, tokens, status) with the budget totals underneath."""
    rows = [COLUMNS] + [
        (
            b.zone or "-",
            b.source,
            _short(f"{b.ref} → {b.target}" if b.target else b.ref or "-", REF_WIDTH),
            str(b.tokens),
            _status(b.included, b.reason),
        )
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
        *extra_lines(built),
        *cache_lines(built),
        *(f"note: {note}" for note in built.manifest.notes),
    ]
    return "\n".join(lines)


def extra_lines(built: BuiltContext) -> list[str]:
    """What each per-call extra costs, and how the tokens were counted."""
    tokens = built.stats.tokens
    kind = "the model's own" if tokens.exact else "an estimate"
    calibrated = (
        f"budget calibrated ×{tokens.factor:g} from {tokens.samples} reported calls"
        if tokens.samples
        else "not calibrated yet (no reported call)"
    )
    lines = [
        f"tokens: {tokens.tokenizer} ({kind}), {calibrated}; the provider should count"
        f" about {tokens.estimated_input} input tokens"
    ]
    if built.manifest.extras:
        lines.append(
            "extras: "
            + ", ".join(
                f"{e.source} {e.tokens}" + (f" ({e.dropped} dropped)" if e.dropped else "")
                for e in built.manifest.extras
            )
        )
    return lines


def cache_lines(built: BuiltContext) -> list[str]:
    """Tokens per zone, the predicted cached share, and the last call's reported figures."""
    zones: dict[str, int] = {}
    for block in built.manifest.blocks:
        if block.included and block.zone:
            zones[block.zone] = zones.get(block.zone, 0) + block.tokens
    sent = sum(zones.values())
    cache = built.stats.cache
    share = cache.predicted_cached * PERCENT // sent if sent else 0
    lines = [
        "by zone: " + ", ".join(f"{zone} {tokens}" for zone, tokens in zones.items()),
        f"prompt cache: {cache.predicted_cached} of {sent} tokens ({share}%) repeat the"
        " session's last call unchanged",
    ]
    usage = built.manifest.usage
    if cache.cached_input or cache.cache_write_input or usage is not None:
        lines.append(
            f"last call: the provider reported {cache.cached_input} cached and"
            f" {cache.cache_write_input} cache-write input tokens"
        )
    if built.manifest.cache_break or cache.last_break:
        lines.append(f"cache break: {built.manifest.cache_break or cache.last_break}")
    return lines


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
    mode: str | None = None,
) -> None:
    """Print the next call's manifest (table, `--json`) or its messages (`--text`)."""
    if as_json and as_text:
        raise InvalidRequestError("--json and --text cannot be used together")
    chosen = parse_mode(mode) if mode is not None else None
    built = build_dry_run(workspace, files, message, session_id, model, chosen)
    if as_json:
        typer.echo(json.dumps(built.manifest.wire(), indent=2, ensure_ascii=False))
    elif as_text:
        typer.echo(format_messages(built.messages))
    else:
        typer.echo(format_table(built))
