"""`cairn run "message"`: one headless turn, streamed to the terminal; the trace is saved.

The model's text goes to stdout; tool activity, retries, each call's tokens
and cost, compaction, errors and the final goal tree go to stderr (tool
lines are shortened to the terminal, errors and retries are shown whole).
`--session` continues a session on its own model unless `--model` is given.
Shell commands that are not allow-listed are asked about on the terminal
when stdin is a TTY; `--yes` approves them all; without a TTY and without
`--yes` they are refused. Exit code: 0 when the turn ended normally
(`stop`), 1 otherwise.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import TextIO

from cairn.agent.api import Approval, ApprovalRequest, Approver, ToolCallEvent
from cairn.agent.engine import Engine
from cairn.errors import InvalidRequestError
from cairn.models.events import CompactionEvent, GoalTreeView, TokenUsage, TurnEvent, TurnResult
from cairn.models.manifest import ContextStats
from cairn.settings import Mode, Settings, load_settings, with_flags

APPROVE_ANSWERS = frozenset({"y", "yes"})
# Tool activity lines longer than this are shortened for the terminal (errors never are).
ACTIVITY_MAX_CHARS = 160
MODES: tuple[Mode, ...] = ("build", "plan", "review")


class TerminalListener:
    """Prints engine events: text to `out`, everything else to `err`."""

    def __init__(self, out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> None:
        self.out = out
        self.err = err
        self.compactions: list[CompactionEvent] = []
        self._mid_line = False

    def _activity(self, line: str, *, whole: bool = False) -> None:
        if not whole and len(line) > ACTIVITY_MAX_CHARS:
            line = line[: ACTIVITY_MAX_CHARS - 1] + "…"
        if self._mid_line:
            self.out.write("\n")
            self.out.flush()
            self._mid_line = False
        self.err.write(line + "\n")
        self.err.flush()

    def on_turn_event(self, event: TurnEvent) -> None:
        if event.kind == "text" and event.text:
            self.out.write(event.text)
            self.out.flush()
            self._mid_line = not event.text.endswith("\n")
        elif event.kind == "toolStart":
            self._activity(f"→ {event.tool}")
        elif event.kind == "toolEnd":
            mark = "✓" if event.ok else "✗"
            self._activity(f"  {mark} {event.tool}: {event.text or ''}".rstrip())
        elif event.kind == "retry":
            self._activity(f"↻ {event.text}", whole=True)
        elif event.kind == "usage" and event.usage is not None:
            self._activity(usage_line(event.usage, event.attempt or 1))
        elif event.kind == "error":
            self._activity(f"error: {event.text}", whole=True)
        elif event.kind == "end" and self._mid_line:
            self.out.write("\n")
            self.out.flush()
            self._mid_line = False

    def on_goal_tree_changed(self, view: GoalTreeView) -> None:
        return None

    def on_compaction(self, event: CompactionEvent) -> None:
        self.compactions.append(event)
        after = f" → {event.tokens_after}" if event.tokens_after is not None else ""
        error = f" ({event.error})" if event.error else ""
        self._activity(
            f"[compaction {event.kind} {event.stage}: {event.tokens_before}{after} tokens{error}]"
        )

    def on_context_stats(self, stats: ContextStats) -> None:
        return None

    def on_log(self, message: str) -> None:
        self._activity(message, whole=True)

    def on_tool_call(self, event: ToolCallEvent) -> None:
        return None  # tool activity is printed from the toolStart / toolEnd turn events


def usage_line(usage: TokenUsage, requests: int = 1) -> str:
    """`  · 12,345 in / 678 out · $0.0123` (cost when priced, requests when retried)."""
    parts = [f"{usage.input_tokens:,} in / {usage.output_tokens:,} out"]
    if usage.cost is not None:
        parts.append(f"${usage.cost:.4f}")
    if requests > 1:
        parts.append(f"{requests} requests")
    return "  · " + " · ".join(parts)


def terminal_approver(yes: bool, interactive: bool) -> Approver | None:
    """`--yes`: approve all; a TTY: ask; otherwise None (commands not allow-listed are refused)."""
    if yes:

        async def approve_all(request: ApprovalRequest) -> Approval:
            return "once"

        return approve_all
    if not interactive:
        return None

    async def ask(request: ApprovalRequest) -> Approval:
        verb = "Call" if request.tool else "Run"
        answer = await asyncio.to_thread(input, f"{verb} `{request.command}`? [y/N] ")
        return "once" if answer.strip().lower() in APPROVE_ANSWERS else "reject"

    return ask


def run_settings(workspace: Path, mode: str) -> Settings:
    if mode not in MODES:
        raise InvalidRequestError(f"unknown mode {mode!r}: use build, plan or review")
    return with_flags(load_settings(workspace), {"mode": mode})


def run_turn(
    *,
    message: str,
    workspace: Path,
    model: str | None,
    session_id: str | None,
    mode: str,
    yes: bool,
) -> None:
    """Run one turn in `workspace` (a new session, or `session_id`) and print it as it goes."""
    if not workspace.is_dir():
        raise InvalidRequestError(f"workspace not found: {workspace}")
    settings = run_settings(workspace, mode)
    listener = TerminalListener()
    engine = Engine(
        [workspace],
        settings,
        listener=listener,
        approver=terminal_approver(yes, sys.stdin.isatty()),
    )

    async def turn_then_close() -> tuple[TurnResult, GoalTreeView]:
        try:
            result = await engine.turn(message, session_id=session_id, model=model)
            return result, engine.goal_tree(result.session_id)
        finally:
            await engine.aclose()  # MCP servers stop before the event loop does

    result, view = asyncio.run(turn_then_close())
    if view.tree.goals:
        sys.stderr.write(view.rendered.rstrip() + "\n")
    cost = f" · ${result.usage.cost:.4f}" if result.usage.cost is not None else ""
    sys.stderr.write(f"session {result.session_id} · turn {result.finish_reason}{cost}\n")
    if result.finish_reason != "stop":
        raise SystemExit(1)
