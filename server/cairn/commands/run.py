"""`cairn run "message"`: one headless turn, streamed to the terminal; the trace is saved.

The model's text goes to stdout; a first status line (printed before the
engine is even imported), tool activity, retries, each call's tokens and
cost, compaction, errors and the final goal tree go to stderr (tool lines
are shortened to the terminal, errors and retries are shown whole; every
control, escape, bidi and zero-width character is shown as its escape,
`cairn.files.visible`). While Cairn waits (the map being built, MCP servers
starting, a summary, a retry's countdown) a live status line shows on a
terminal (`cairn.commands.status_line`; not with `--quiet`, nor off a terminal).
`--session` continues a session on its own model unless `--model` is given.
Shell commands that are not allow-listed are asked about on the terminal
when stdin is a TTY (yes, always for this session, or no); `--yes` approves
them all; without a TTY and without `--yes` they are refused. An MCP
server's question to the user is asked there too (a TTY only, never
answered by `--yes`: `cairn.commands.elicit_prompt`). An untrusted
folder's exec-relevant settings are ignored unless `--trust` or the prompt
trusts it (`cairn.commands.trust`). A real
provider's litellm import starts at once in the background. Ctrl-C, SIGTERM
and SIGHUP cancel the turn (`cairn.commands.signals`): the running command's
process group is killed, the turn is recorded `cancelled`, and the line says
how to resume. Exit code: 0 when the turn ended normally (`stop`), 1
otherwise, 128 + N when signal N cancelled it (130, 143, 129).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import threading
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from cairn.commands.checks import checked_references, parse_mode, require_workspace
from cairn.commands.signals import TurnSignals
from cairn.commands.status_line import StatusLine
from cairn.files.visible import KEEP_LINES, visible
from cairn.frontends.sentences import (
    approval_reason,
    approval_verb,
    compaction_sentence,
    sandbox_suffix,
)
from cairn.settings import Settings, with_flags
from cairn.stop_signals import exit_code, signal_name
from cairn.tokens.model_info import is_scripted_model

if TYPE_CHECKING:  # imported when used: the first line is printed before them
    from cairn.agent.api import Approval, ApprovalRequest, Approver, ToolCallEvent
    from cairn.agent.engine import Engine
    from cairn.mcp.elicitation import Elicitor
    from cairn.models.events import (
        CompactionEvent,
        GoalTreeView,
        TokenUsage,
        TurnEvent,
        TurnResult,
    )
    from cairn.models.manifest import ContextStats
    from cairn.models.progress import ProgressEvent

APPROVE_ANSWERS = frozenset({"y", "yes"})
ALWAYS_ANSWERS = frozenset({"a", "always"})
EXPLORE_TOOL = "explore"
EMPTY_SESSION = "--session is empty: give a session id (cairn trace list) or leave it out"
# Tool activity lines longer than this are shortened for the terminal (errors never are).
ACTIVITY_MAX_CHARS = 160
# The status line's key of a summary being written, and its text while a retry counts down.
SUMMARY_KEY = "summary"
RETRY_STATUS = "↻ retrying the model call"


class TerminalListener:
    """Prints engine events: text to `out`, everything else to `err`; waits on `status`
    (`cairn.commands.status_line`: a live line on a terminal, else nothing)."""

    def __init__(
        self, out: TextIO = sys.stdout, err: TextIO = sys.stderr, status: StatusLine | None = None
    ) -> None:
        self.out = out
        self.err = err
        self.status = status or StatusLine(err, enabled=False)
        self.compactions: list[CompactionEvent] = []
        self._mid_line = False

    def _end_line(self) -> None:
        if self._mid_line:
            self.out.write("\n")
            self.out.flush()
            self._mid_line = False

    def _activity(self, line: str, *, whole: bool = False) -> None:
        if not whole and len(line) > ACTIVITY_MAX_CHARS:
            line = line[: ACTIVITY_MAX_CHARS - 1] + "…"
        with self.status.paused():
            self._end_line()
            self.err.write(visible(line, KEEP_LINES) + "\n")
            self.err.flush()

    def on_progress(self, event: ProgressEvent) -> None:
        """A wait on the status line while it lasts (nothing is printed for it)."""
        if event.stage == "end":
            self.status.drop(event.key)
            return
        if self._mid_line:  # the status goes under the text, never after a partial line
            with self.status.paused():
                self._end_line()
        text = f"{event.title}: {event.message}" if event.message else event.title
        if event.key == "retry" and event.wait_s is not None:
            text = RETRY_STATUS
        self.status.show(event.key, text, event.wait_s)

    def on_turn_event(self, event: TurnEvent) -> None:
        if event.kind == "text" and event.text:
            with self.status.paused():
                self.out.write(visible(event.text, KEEP_LINES))
                self.out.flush()
            self._mid_line = not event.text.endswith("\n")
        elif event.kind == "toolStart":
            self._activity(f"→ {event.tool}")
        elif event.kind == "toolEnd":
            mark = "✓" if event.ok else "✗"
            # An explore's result is JSON for the model: its branches are shown instead.
            text = "" if event.tool == EXPLORE_TOOL and event.ok else event.text or ""
            self._activity(f"  {mark} {event.tool}: {text}" if text else f"  {mark} {event.tool}")
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
        self._activity(f"[{compaction_sentence(event)}]")
        if event.stage == "start" and event.kind == "summary":
            self.status.show(SUMMARY_KEY, compaction_sentence(event))
        elif event.stage != "start":
            self.status.drop(SUMMARY_KEY)

    def on_context_stats(self, stats: ContextStats) -> None:
        return None

    def on_log(self, message: str) -> None:
        self._activity(message, whole=True)

    def on_tool_call(self, event: ToolCallEvent) -> None:
        """Tool activity is printed from the turn events; an explore's branches here."""
        result = event.result
        if result is None or result.name != EXPLORE_TOOL:
            return
        for line in branch_lines(result.output):
            self._activity(line)


def branch_lines(output: str) -> list[str]:
    """One line per explore branch (its status and the first line of its conclusion)."""
    try:
        branches = json.loads(output).get("branches", [])
    except (ValueError, AttributeError):
        return []
    lines: list[str] = []
    for branch in branches if isinstance(branches, list) else []:
        if not isinstance(branch, dict):
            continue
        mark = "✓" if branch.get("status") == "completed" else "✗"
        said = str(branch.get("conclusion") or branch.get("error") or "").strip()
        first = said.splitlines()[0] if said else "(no conclusion)"
        lines.append(f"    {mark} {branch.get('branch', '?')}: {first}")
    return lines


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
        verb = approval_verb(request.tool).capitalize()
        why = approval_reason(visible(request.reason))
        where = visible(sandbox_suffix(request.sandbox))
        prompt = (
            f"{verb} `{visible(request.command)}`{why}?{where}"
            " [y]es / [a]lways in this session / [N]o "
        )
        answer = (await ask_line(prompt)).strip().lower()
        if answer in ALWAYS_ANSWERS:
            return "always"
        return "once" if answer in APPROVE_ANSWERS else "reject"

    return ask


def terminal_elicitor(interactive: bool) -> Elicitor | None:
    """A TTY: an MCP server's questions asked there; otherwise None (none can be asked)."""
    from cairn.commands.elicit_prompt import terminal_elicitor as asking  # with the engine

    return asking(ask_line) if interactive else None


async def ask_line(prompt: str) -> str:
    return await asyncio.wrap_future(ask_in_background(prompt))


def ask_in_background(prompt: str) -> Future[str]:
    """`input(prompt)` in a daemon thread: a cancelled turn never waits for the answer."""
    future: Future[str] = Future()

    def read() -> None:
        try:
            future.set_result(input(prompt))
        except BaseException as exc:  # EOF, a closed terminal
            future.set_exception(exc)

    threading.Thread(target=read, name="cairn-approval", daemon=True).start()
    return future


def run_settings(workspace: Path, mode: str, trust: bool = False) -> Settings:
    """The turn's settings: the workspace's under its trust (`cairn.commands.trust`)."""
    from cairn.commands.trust import run_trust

    return with_flags(run_trust(workspace, trust), {"mode": parse_mode(mode)})


def likely_model(settings: Settings, model: str | None, session_id: str | None) -> str | None:
    """The model the turn will most likely run on, known before the engine is built:
    `--model`, else (a new session) the setting; None for a resumed session (its own)."""
    if model:
        return model
    return None if session_id else settings.model


def status_line(settings: Settings, model: str | None, session_id: str | None) -> str:
    """The first line `cairn run` prints, before the engine is built."""
    session = f"session {session_id}" if session_id else "new session"
    likely = likely_model(settings, model, session_id)
    shown = f"model {likely}" if likely is not None else "the session's model"
    loading = "" if likely is None or is_scripted_model(likely) else " (and loading litellm)"
    return f"cairn · {settings.mode} mode · {shown} · {session} · preparing the context{loading}…"


def resume_hint(session_id: str) -> str:
    return f'resume with: cairn run --session {session_id} "…"'


@dataclass(frozen=True)
class Interrupted:
    """The turn was cancelled by a signal."""

    signum: int


def _say(line: str) -> None:
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


def _cancelled_line(session_id: str, signum: int) -> str:
    how = "" if signum == signal.SIGINT else f" ({signal_name(signum)})"
    return f"turn cancelled{how} — {resume_hint(session_id)}"


async def _turn(
    engine: Engine,
    message: str,
    session_id: str,
    model: str | None,
    references: Sequence[str] = (),
) -> TurnResult | Interrupted:
    """Run the turn; a signal cancels it (see `cairn.commands.signals`)."""
    loop = asyncio.get_running_loop()
    task = asyncio.ensure_future(
        engine.turn(message, session_id=session_id, model=model, references=references)
    )

    def hard_exit(code: int) -> None:
        """A second Ctrl-C: record the cancel if the turn has not yet, and exit now."""
        engine.processes.kill_all()
        engine.record_cancelled(session_id)
        _say(_cancelled_line(session_id, signal.SIGINT))
        os._exit(code)

    with TurnSignals(loop, task, engine.processes.kill_all, hard_exit) as signals:
        try:
            return await task
        except asyncio.CancelledError:
            if signals.received is None:
                raise
            return Interrupted(signals.received)


def _checked_settings(
    workspace: Path, model: str | None, session_id: str | None, mode: str, trust: bool
) -> Settings:
    """The run's settings, once the workspace, the session id and (for a new session) the
    model are known to be usable: errors before any line is printed or a session exists."""
    require_workspace(workspace)
    if session_id is not None and not session_id.strip():
        from cairn.errors import InvalidRequestError

        raise InvalidRequestError(EMPTY_SESSION)
    settings = run_settings(workspace, mode, trust)
    if session_id is None and likely_model(settings, model, session_id) is None:
        from cairn.errors import NoModelError
        from cairn.llm.guide import no_model_message

        raise NoModelError(no_model_message(os.environ))
    return settings


def run_turn(
    *,
    message: str,
    workspace: Path,
    model: str | None,
    session_id: str | None,
    mode: str,
    yes: bool,
    files: Sequence[Path] = (),
    trust: bool = False,
    quiet: bool = False,
) -> None:
    """Run one turn in `workspace` (a new session, or `session_id`) and print it as it goes;
    `files` (`--file`) and the message's `@` mentions are referenced; `trust` (`--trust`)
    trusts the folder first; `quiet` (`--quiet`) shows no live status line.

    Exits 0 when the turn stopped normally, 1 when it ended otherwise, 128 + N when
    signal N cancelled it."""
    settings = _checked_settings(workspace, model, session_id, mode, trust)
    _say(status_line(settings, model, session_id))
    likely = likely_model(settings, model, session_id) or settings.model
    if likely and not is_scripted_model(likely):
        from cairn.llm.lazy import prefetch_litellm

        prefetch_litellm()
    from cairn.agent.engine import Engine  # the heavy part: after the first line

    listener = TerminalListener(status=StatusLine.for_terminal(sys.stderr, quiet))
    engine = Engine(
        [workspace],
        settings,
        listener=listener,
        approver=terminal_approver(yes, sys.stdin.isatty()),
        elicitor=terminal_elicitor(sys.stdin.isatty()),
    )

    async def turn_then_close(session_id: str, refs: list[str]) -> TurnResult | Interrupted:
        try:
            return await _turn(engine, message, session_id, model, refs)
        finally:
            await engine.mcp.aclose()  # MCP servers stop before the event loop does

    try:
        engine.check_turn(session_id, model)  # no model, no key: fail before a session exists
        refs = checked_references(engine.workspace, engine.builder.ignore_rules(), files, message)
        session = engine.session(session_id)
        outcome = asyncio.run(turn_then_close(session.id, refs))
        view = engine.goal_tree(session.id)
    finally:
        listener.status.close()
        engine.close()
    if view.tree.goals:
        sys.stderr.write(view.rendered.rstrip() + "\n")
    if isinstance(outcome, Interrupted):
        _say(_cancelled_line(session.id, outcome.signum))
        raise SystemExit(exit_code(outcome.signum))
    cost = f" · ${outcome.usage.cost:.4f}" if outcome.usage.cost is not None else ""
    _say(f"session {outcome.session_id} · turn {outcome.finish_reason}{cost}")
    if outcome.finish_reason != "stop":
        raise SystemExit(1)
