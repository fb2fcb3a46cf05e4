"""`cairn models`: each role's model and whether it can be called, without calling it.

For the main, compaction and explore roles (`cairn.commands.models_report`):
the model and where the setting came from (default / user config /
cairn.toml / environment / flag, or the session's own model with `--session`), the provider and endpoint, whether
the key variable is set (its value is never shown), the context window and
output limit from litellm's model map, for the main model how its history
is compacted (the knobs in effect, and whether its provider caches prompt
prefixes), the context limits providers stated for each role's model in the
workspace's sessions (or in `--session`'s), with the command that clears
each, and whether a call would be possible with the reasons it would not. In a folder that is not trusted, the main role's notes say which of
`cairn.toml`'s keys were ignored (`cairn.files.trust`), and their origins
are the defaults. Text, or JSON with `--json`. Exit code 1
when the main model cannot be called.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import typer

from cairn.agent.sessions.session import session_model
from cairn.commands.checks import require_workspace
from cairn.commands.models_report import (
    LearnedLimit,
    RoleReport,
    learned_limits,
    models_report,
)
from cairn.compaction.retention import Retention
from cairn.files.settings_layers import origin_label
from cairn.files.trust import trust_notes, workspace_settings
from cairn.llm.guide import no_model_message
from cairn.llm.provider import ProviderSetup
from cairn.settings import with_flags
from cairn.trace import TraceStore

LABEL_WIDTH = 10
# Learned limits listed per role (the most constraining first).
MAX_LEARNED_SHOWN = 5


def _key_line(setup: ProviderSetup, origin: str) -> str:
    variable = setup.key_variable
    if setup.key_source == "api_key_env":
        state = "is set" if setup.key_present else "is NOT set"
        return f"{variable} {state} (api_key_env: {origin})"
    if setup.key_source == "none_needed":
        return "none needed (a local provider)"
    if setup.key_source == "unchecked":
        return f"not checked: {setup.provider} takes its own credentials (see litellm's docs)"
    if setup.key_source == "placeholder":
        return f"{' or '.join(setup.key_candidates)} not set: a placeholder key goes to api_base"
    state = "is set" if setup.key_present else "is NOT set"
    return f"{variable} {state} (the provider's variable)"


def _row(label: str, text: str) -> str:
    return f"  {label:<{LABEL_WIDTH}}{text}"


def _retention_line(knobs: Retention) -> str:
    cache = (
        "the provider caches prompt prefixes"
        if knobs.cached
        else "no prompt cache: each kept token is paid on every call"
    )
    return (
        f"summary at {knobs.threshold:.0%} of the input, keeping {knobs.keep_recent:.0%}; "
        f"old tool output pruned past {knobs.prune_protect:,} tokens once "
        f"{knobs.prune_minimum:,} can go ({cache})"
    )


def _learned_lines(learned: list[LearnedLimit]) -> list[str]:
    """One line per learned limit (at most `MAX_LEARNED_SHOWN`, then how many more)."""
    lines = [
        _row(
            "learned",
            f"{limit.tokens:,} tokens in session {limit.session_id} (a provider's stated limit:"
            f" it caps the window; clear it: {limit.clear})",
        )
        for limit in learned[:MAX_LEARNED_SHOWN]
    ]
    if len(learned) > MAX_LEARNED_SHOWN:
        lines.append(_row("", f"… and {len(learned) - MAX_LEARNED_SHOWN} more sessions"))
    return lines


def render_role(report: RoleReport, origins: dict[str, str]) -> list[str]:
    """The lines of one role."""
    lines = [f"{report.role:<{LABEL_WIDTH + 2}}{report.model or '(none)'}  ({report.origin})"]
    setup = report.setup
    if setup is not None:
        endpoint = (
            f"{setup.api_base} (api_base: {origins['api_base']})"
            if setup.api_base
            else "the provider's usual endpoint"
        )
        shared = "" if setup.own_settings else "; not the main model's provider, so its defaults"
        lines.append(_row("provider", f"{setup.provider or 'unknown'}, {endpoint}{shared}"))
        lines.append(_row("key", _key_line(setup, origins["api_key_env"])))
    if report.window is not None:
        lines.append(_row("window", f"{report.window:,} tokens ({report.window_source})"))
    if report.model is not None:
        limit = f"{report.max_output:,} max (litellm); " if report.max_output else ""
        reserved = f"{report.reserved_output:,} reserved (max_output_tokens: "
        lines.append(_row("output", f"{limit}{reserved}{origins['max_output_tokens']})"))
    if report.retention is not None:
        lines.append(_row("history", _retention_line(report.retention)))
    if report.map_tokens is not None:
        lines.append(_row("map", f"up to {report.map_tokens:,} tokens ({report.map_source})"))
    lines += _learned_lines(report.learned)
    lines += [_row("note", note) for note in report.notes]
    if report.possible:
        lines.append(_row("call", "possible"))
    else:
        lines.append(_row("call", "NOT possible:"))
        lines += [_row("", f"- {problem}") for problem in report.problems]
    return lines


def report_json(report: RoleReport) -> dict[str, Any]:
    setup, knobs = report.setup, report.retention
    return {
        "role": report.role,
        "model": report.model,
        "origin": report.origin,
        "provider": setup.provider if setup else None,
        "apiBase": setup.api_base if setup else None,
        "keyVariable": setup.key_variable if setup else None,
        "keySource": setup.key_source if setup else None,
        "keySet": setup.key_present if setup else None,
        "contextWindow": report.window,
        "windowSource": report.window_source or None,
        "maxOutputTokens": report.max_output,
        "reservedOutputTokens": report.reserved_output,
        "possible": report.possible,
        "problems": report.problems,
        "notes": report.notes,
        "learnedLimits": [
            {"sessionId": limit.session_id, "tokens": limit.tokens, "clear": limit.clear}
            for limit in report.learned
        ],
        "repoMapTokens": report.map_tokens,
        "repoMapSource": report.map_source or None,
        "compaction": None
        if knobs is None
        else {
            "threshold": knobs.threshold,
            "keepRecent": knobs.keep_recent,
            "pruneProtect": knobs.prune_protect,
            "pruneMinimum": knobs.prune_minimum,
            "promptCache": knobs.cached,
        },
    }


def show_models(workspace: Path, model: str | None, session_id: str | None, as_json: bool) -> None:
    """Print the report (see the module docstring); exit 1 when the main model cannot be called."""
    require_workspace(workspace)
    settings = with_flags(workspace_settings(workspace), {"model": model})
    origins = {key: origin_label(value, os.environ) for key, value in settings.origins.items()}
    own: str | None = None
    store = TraceStore(workspace / settings.trace_dir)
    if session_id is not None:
        meta = store.open(session_id).meta()
        chosen = session_model(model, settings.model, meta)
        own = chosen if chosen != settings.model else None
        metas = [meta]
    else:
        metas = store.list()
    learned = learned_limits(metas)
    reports = models_report(settings, origins, os.environ, workspace, own, learned)
    reports[0].notes.extend(trust_notes(settings, workspace))
    if as_json:
        typer.echo(json.dumps([report_json(r) for r in reports], indent=2))
    else:
        lines = [line for r in reports for line in render_role(r, origins)]
        if reports[0].model is None:
            lines += ["", no_model_message(os.environ)]
        typer.echo("\n".join(lines))
    if not reports[0].possible:
        raise SystemExit(1)
