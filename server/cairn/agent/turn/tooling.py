"""Running the tool calls of one model reply and recording their results.

Calls run one after another in the order the model gave them. A call with
malformed JSON arguments, a tool outside the mode's allowlist, or (in a
read-only explore branch, which is offered its parent's tools) a tool that
is not read-only (`cairn.agent.scope.branch.branch_refusal`), gets an error
result the model can read (it is never run). Each result is recorded
as a `tool` message under the same goal as the assistant message that made
the call, so a goal fold never separates a call from its result. The files
a successful call edited join the scope's files in play and its edit log; the
files it read, searched into or listed (`ToolOutcome.seen`) join its seen files.
The listener hears each call twice: `toolStart` / `toolEnd` turn events, and
`on_tool_call` with the recorded parts (and, at the end, the call's edits).
A `toolEnd` is `ok` when the call succeeded: a command that exited non-zero
ran, but is shown as failed, its exit code in the event's text.
Calls run with the scope's registry (built-in tools plus the turn's MCP
tools). Around a command (`SNAPSHOTTED_TOOLS`) the workspace is snapshotted
before and after, and the diff joins the edit log as the turn's own change
(what `cairn/restore` undoes; a change made by someone else meanwhile is
not the turn's).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cairn.agent.api import ToolCallEvent
from cairn.agent.scope.branch import branch_refusal
from cairn.agent.scope.turn_scope import TurnScope
from cairn.agent.sessions.event_text import arguments_text, event_detail, first_line
from cairn.agent.sessions.snapshot import TurnPatches
from cairn.agent.tools import ToolContext, ToolOutcome
from cairn.agent.turn.recorder import EditCapture, output_artifact, record_edits
from cairn.llm import ToolCall
from cairn.models.events import TurnEvent, TurnEventKind
from cairn.models.messages import Message, ToolCallPart, ToolResultPart


def malformed_outcome(call: ToolCall) -> ToolOutcome:
    detail = call.error or "arguments are not a JSON object"
    return ToolOutcome.failure(
        f"the arguments of {call.name} are not valid JSON ({detail}); you sent: "
        f"{call.raw_arguments!r}. Send the call again with a JSON object of arguments."
    )


def exit_code_of(outcome: ToolOutcome) -> int | None:
    """The exit code a command-running tool reported in its data, if any."""
    data = outcome.data if isinstance(outcome.data, dict) else {}
    code = data.get("exit_code")
    return code if isinstance(code, int) else None


def succeeded(outcome: ToolOutcome) -> bool:
    """Whether the call did what was asked: it ran, and a command it ran exited 0.

    (The recorded result's `ok` says only that the tool ran; the `toolEnd` event's
    `ok` is this, so a failing test run is shown as failed.)"""
    return outcome.ok and exit_code_of(outcome) in (None, 0)


def activity_text(outcome: ToolOutcome) -> str:
    """The `toolEnd` event's text: the output's first line, and a non-zero exit code."""
    code = exit_code_of(outcome)
    line = first_line(outcome.output)
    return f"{line} (exit code {code})" if code not in (None, 0) else line


def refusal(name: str, offered: Sequence[str], known: Sequence[str], scope: TurnScope) -> str:
    """Why a tool the model called is not run: unknown, or not offered where it was called
    (a read-only explore branch, or the turn's mode)."""
    available = ", ".join(offered)
    if name not in known:
        return f"unknown tool {name!r} (available: {available})"
    where = "in a read-only explore branch" if scope.read_only else f"in {scope.inputs.mode} mode"
    return f"tool {name!r} is not available {where} (available: {available})"


# Tools whose changes to the workspace no edit capture sees: snapshots before and after.
SNAPSHOTTED_TOOLS = frozenset({"run_command"})


@dataclass
class ToolRunner:
    """Runs one turn's tool calls with its `ToolContext` and records them in the session."""

    scope: TurnScope
    ctx: ToolContext
    capture: EditCapture
    # Snapshots around commands (None: the commands' own changes are not recorded).
    patches: TurnPatches | None = None

    async def _tree_before(self, call: ToolCall) -> str | None:
        if self.patches is None or self.scope.read_only or call.name not in SNAPSHOTTED_TOOLS:
            return None
        return await self.patches.tree(self.scope.edit_log)

    async def _note_changes(self, before: str) -> None:
        """Add what changed since the snapshot `before` to the edit log (the turn's own)."""
        assert self.patches is not None
        after = await self.patches.tree(self.scope.edit_log)
        if after is not None:
            self.scope.edit_log.add_patch(await self.patches.changes(before, after))

    def _event(
        self,
        kind: TurnEventKind,
        call: ToolCall,
        ok: bool | None,
        text: str | None,
        output: str | None = None,
    ) -> None:
        session = self.scope.session
        self.scope.listener.on_turn_event(
            TurnEvent(
                session_id=session.id,
                turn_id=session.current_turn_id or "",
                kind=kind,
                tool=call.name,
                call_id=call.call_id,
                ok=ok,
                text=text,
                detail=None if output is None else event_detail(output),
            )
        )

    async def _outcome(self, call: ToolCall) -> ToolOutcome:
        if call.arguments is None or call.error is not None:
            return malformed_outcome(call)
        offer = self.scope.offer
        offered = offer.offered()
        if call.name not in offered:
            held = offer.held_reason(call.name)
            known = offer.registry.names()
            return ToolOutcome.failure(held or refusal(call.name, offered, known, self.scope))
        if self.scope.read_only and (refused := branch_refusal(offer, call.name)) is not None:
            return ToolOutcome.failure(refused)
        return await offer.registry.run(call.name, call.arguments, self.ctx)

    def _call_event(self, event: ToolCallEvent) -> None:
        self.scope.listener.on_tool_call(event)

    async def run(self, call: ToolCall, assistant: Message) -> ToolResultPart:
        """Run one call, record its result, and return it."""
        session = self.scope.session
        turn = session.current_turn_id or ""
        recorded = ToolCallPart(
            call_id=call.call_id, name=call.name, arguments=call.arguments or {}
        )
        self._event("toolStart", call, None, arguments_text(call.arguments, call.raw_arguments))
        self._call_event(ToolCallEvent(session.id, turn, recorded))
        self.capture.take()
        before = await self._tree_before(call)
        self.ctx.call_id = call.call_id
        try:
            outcome = await self._outcome(call)
        finally:
            self.ctx.call_id = None
            if before is not None:
                await self._note_changes(before)
        edits = self.capture.take()
        if outcome.ok:
            self.scope.note_seen(outcome.seen)
            self.scope.note_edited(e.path for e in edits)
            record_edits(self.ctx.workspace, edits, self.scope.edit_log)
        part = ToolResultPart(
            call_id=call.call_id,
            name=call.name,
            output=outcome.output,
            ok=outcome.ok,
            artifact_id=output_artifact(session.trace, outcome),
            data=outcome.data,
        )
        subtasks, session.pending_subtasks = session.pending_subtasks, []
        session.append("tool", [part, *subtasks], goal_id=assistant.goal_id, use_focus=False)
        self._event("toolEnd", call, succeeded(outcome), activity_text(outcome), outcome.output)
        done = edits if outcome.ok else []
        self._call_event(ToolCallEvent(session.id, turn, recorded, part, tuple(done)))
        return part
