"""What `cairn trace show` prints: a session's turns, its goal tree with steps, and details.

The overview (`overview_lines`) is the header, one line per turn (its
message, how it ended and why, duration, model calls, usage and cost), the
goal tree with each goal's steps (finished goals collapsed) and the messages
written outside any goal. On request one part is expanded: a turn
(`turn_lines`: its start snapshot, patch, model calls and every message), a
model call (`call_lines`: its manifest, block by block) or a goal
(`goal_lines`: its steps and sub-goals, even when finished). `full` shows
whole texts and tool outputs instead of one-line summaries, part by part as
every replay reads them (`cairn.agent.sessions.replay`). `view_data` is the
same as JSON-able data for `--json`. Pure: the caller reads the trace.

Memory does not grow with the size of `messages.jsonl`: the views hold a
bounded copy of each message (`trace_slim.slim_message`: long texts, outputs and
arguments cut, which changes none of the one-line summaries), and whatever
prints messages whole (`--full`, a turn's user message, `--json` of a turn or
goal) reads them again from disk one at a time (`SessionData.stream`), the
text views yielding their lines as they go. (`--json` of the whole session
with `--full` still builds one document.)
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from cairn.agent.sessions.replay import Answered, Called, Said, Step, message_steps
from cairn.errors import InvalidRequestError
from cairn.goals import find_goal, iter_goals, render_trace_view, trace_view_data
from cairn.goals.brief import brief_line, describe_part, shorten
from cairn.goals.render import INDENT, goal_line
from cairn.goals.view import format_duration
from cairn.models.goals import Goal, GoalTree
from cairn.models.manifest import Manifest
from cairn.models.messages import Message
from cairn.models.session import SessionMeta, Turn

TIME_FORMAT = "%Y-%m-%d %H:%M:%S"
MESSAGE_PREVIEW_CHARS = 60
NO_COST = "-"
OPEN_TURN = "running"


@dataclass(frozen=True)
class SessionData:
    """Everything the views read from one trace."""

    meta: SessionMeta
    tree: GoalTree
    messages: list[Message]
    manifests: list[Manifest]
    branches: list[tuple[str, int]]
    # The patch text of each turn that has one (turn id → unified diff).
    patches: dict[str, str]
    # The messages again, whole, one at a time from disk (default: `messages`).
    reread: Callable[[], Iterable[Message]] | None = field(default=None, compare=False)

    def stream(self) -> Iterator[Message]:
        """Every message whole, in order, without holding them all."""
        yield from self.reread() if self.reread is not None else self.messages

    def whole(self, message_id: str) -> Message | None:
        """One message, whole."""
        return next((m for m in self.stream() if m.id == message_id), None)


def cost_text(cost: float | None) -> str:
    return NO_COST if cost is None else f"${cost:.4f}"


def duration_text(turn: Turn) -> str:
    if turn.ended_at is None:
        return "-"
    return format_duration((turn.ended_at - turn.started_at).total_seconds())


def _message(messages: list[Message], message_id: str) -> Message | None:
    return next((m for m in messages if m.id == message_id), None)


def turn_calls(data: SessionData, turn: Turn) -> list[int]:
    """The numbers (1-based, session-wide) of the model calls the turn made."""
    return [n for n, m in enumerate(data.manifests, start=1) if m.turn_id == turn.id]


def _turn_row(data: SessionData, number: int, turn: Turn) -> list[str]:
    user = _message(data.messages, turn.user_message_id)
    text = shorten(user.text(), MESSAGE_PREVIEW_CHARS) if user is not None else "?"
    end = turn.finish_reason or OPEN_TURN
    calls = len(turn_calls(data, turn))
    row = (
        f"{INDENT}#{number}  {turn.started_at.strftime(TIME_FORMAT)}  {end:<11} "
        f"{duration_text(turn):>7}  {calls} call{'' if calls == 1 else 's'}  "
        f"in {turn.usage.input_tokens:,} / out {turn.usage.output_tokens:,}  "
        f"{cost_text(turn.usage.cost)}  {json.dumps(text, ensure_ascii=False)}"
    )
    lines = [row]
    if turn.error:
        lines.append(f"{INDENT * 3}{turn.finish_reason or 'error'}: {turn.error}")
    return lines


def header_lines(data: SessionData) -> list[str]:
    meta = data.meta
    lines = [f"Session {meta.id}" + (f"  {meta.title!r}" if meta.title else "")]
    if meta.parent_id:
        at = f" at message {meta.fork_message_id}" if meta.fork_message_id else ""
        lines.append(f"Forked from {meta.parent_id}{at}")
    lines.append(
        f"Model: {meta.model or '(default)'}  Turns: {len(meta.turns)}  "
        f"Messages: {len(data.messages)}  Calls: {len(data.manifests)}  Tokens in/out: "
        f"{meta.usage.input_tokens}/{meta.usage.output_tokens}  Cost: {cost_text(meta.usage.cost)}"
    )
    lines.append(
        f"Created: {meta.created_at.strftime(TIME_FORMAT)} UTC  "
        f"Updated: {meta.updated_at.strftime(TIME_FORMAT)} UTC"
    )
    return lines


def overview_lines(data: SessionData) -> list[str]:
    """Header, turns, goals with steps, loose messages, branches."""
    lines = header_lines(data)
    lines.append("")
    if data.meta.turns:
        lines.append(f"Turns ({len(data.meta.turns)}; expand one with --turn N):")
        for number, turn in enumerate(data.meta.turns, start=1):
            lines += _turn_row(data, number, turn)
    else:
        lines.append("Turns: none")
    lines.append("")
    goal_view = render_trace_view(data.tree, data.messages, data.meta).splitlines()
    # The goal view starts with its own header; keep its mission line onwards.
    start = next(i for i, line in enumerate(goal_view) if line.startswith("Mission:"))
    lines += goal_view[start:]
    if any(g.status in ("completed", "abandoned") for g in iter_goals(data.tree.goals)):
        lines.append(f"{INDENT}(expand a goal with --goal ID)")
    if data.branches:
        lines.append("")
        lines.append(
            f"Branches ({len(data.branches)}; show one with `cairn trace show {data.meta.id}/<name>`):"
        )
        for name, count in data.branches:
            lines.append(f"{INDENT}{name}: {count} message{'' if count == 1 else 's'}")
    return lines


def message_lines(message: Message, full: bool, depth: int = 1) -> list[str]:
    """One line per message, or (`full`) every part with its whole text or output."""
    pad = INDENT * depth
    if not full:
        return [f"{pad}{brief_line(message)}"]
    lines = [
        f"{pad}{message.role} [{message.id}]"
        + (f" goal {message.goal_id}" if message.goal_id else "")
    ]
    inner = INDENT * (depth + 1)
    for step in message_steps(message):
        lines += _step_lines(step, inner)
    return lines


def _step_lines(step: Step, inner: str) -> list[str]:
    """One part of a message whole (`--full`): its text, call or output, else its summary."""
    if isinstance(step, Said):
        return [f"{inner}{line}" for line in step.part.text.splitlines() or [""]]
    if isinstance(step, Called):
        arguments = json.dumps(step.part.arguments, ensure_ascii=False)
        return [f"{inner}→ {step.part.name}({arguments})"]
    if isinstance(step, Answered):
        result = step.part
        status = "ok" if result.ok else "failed"
        artifact = f" (artifact {result.artifact_id})" if result.artifact_id else ""
        lines = [f"{inner}← {result.name} {status}{artifact}:"]
        return lines + [f"{inner}{INDENT}{line}" for line in result.output.splitlines() or [""]]
    return [f"{inner}{describe_part(step.part)}"]


def _pick_turn(data: SessionData, number: int) -> Turn:
    if not 1 <= number <= len(data.meta.turns):
        raise InvalidRequestError(
            f"no turn #{number} in session {data.meta.id} (it has {len(data.meta.turns)})"
        )
    return data.meta.turns[number - 1]


def _snapshot_line(turn: Turn) -> str:
    head = turn.start_head[:12] if turn.start_head else "(no git HEAD)"
    dirty = f", uncommitted changes {turn.start_dirty_hash}" if turn.start_dirty_hash else ""
    tree = f", snapshot tree {turn.start_tree[:12]}" if turn.start_tree else ""
    return f"start: HEAD {head}{dirty}{tree}"


def _patch_lines(data: SessionData, turn: Turn, full: bool) -> list[str]:
    if turn.patch_artifact_id is None:
        return ["patch: none (the workspace did not change)"]
    patch = data.patches.get(turn.id, "")
    files = sum(1 for line in patch.splitlines() if line.startswith("diff --git "))
    added = sum(1 for ln in patch.splitlines() if ln.startswith("+") and not ln.startswith("+++"))
    removed = sum(1 for ln in patch.splitlines() if ln.startswith("-") and not ln.startswith("---"))
    lines = [f"patch: artifact {turn.patch_artifact_id} ({files} file(s), +{added} −{removed})"]
    if full:
        lines += [f"{INDENT}{line}" for line in patch.splitlines()]
    return lines


def turn_lines(data: SessionData, number: int, full: bool) -> Iterator[str]:
    """One turn in detail: message, model, times, end, usage, snapshot, patch, calls, messages
    (the turn is checked before the first line; its messages are read as they are printed)."""
    turn = _pick_turn(data, number)
    return _turn_lines(data, number, turn, full)


def _turn_lines(data: SessionData, number: int, turn: Turn, full: bool) -> Iterator[str]:
    user = data.whole(turn.user_message_id)
    ended = turn.ended_at.strftime(TIME_FORMAT) if turn.ended_at else "-"
    lines = [f"Turn #{number}  {turn.id}  (session {data.meta.id})"]
    lines.append(f"message: {user.text() if user is not None else '?'}")
    lines.append(f"model: {turn.model or data.meta.model or '(default)'}")
    lines.append(
        f"started: {turn.started_at.strftime(TIME_FORMAT)}  ended: {ended}  "
        f"duration: {duration_text(turn)}"
    )
    end = turn.finish_reason or OPEN_TURN
    lines.append(f"finish: {end}" + (f" — {turn.error}" if turn.error else ""))
    lines.append(
        f"usage: in {turn.usage.input_tokens:,} / out {turn.usage.output_tokens:,}  "
        f"cost: {cost_text(turn.usage.cost)}"
    )
    lines.append(_snapshot_line(turn))
    lines += _patch_lines(data, turn, full)
    calls = turn_calls(data, turn)
    listed = " ".join(f"#{n}" for n in calls) or "none"
    lines.append(f"model calls: {listed}" + (" (expand one with --call N)" if calls else ""))
    count = sum(1 for m in data.messages if m.turn_id == turn.id)
    lines.append(f"messages ({count}):")
    yield from lines
    for message in data.stream() if full else data.messages:
        if message.turn_id == turn.id:
            yield from message_lines(message, full)


def call_lines(data: SessionData, number: int) -> list[str]:
    """One model call's manifest: the budget, then every block (included first)."""
    if not 1 <= number <= len(data.manifests):
        raise InvalidRequestError(
            f"no model call #{number} in session {data.meta.id} (it has {len(data.manifests)})"
        )
    manifest = data.manifests[number - 1]
    turn_number = next(
        (n for n, t in enumerate(data.meta.turns, start=1) if t.id == manifest.turn_id), None
    )
    where = f"turn #{turn_number}" if turn_number is not None else "no turn"
    lines = [f"Call #{number}  {manifest.call_id or '-'}  ({where})  model {manifest.model}"]
    lines.append(f"input: {manifest.used_input:,} of {manifest.available_input:,} tokens available")
    blocks = sorted(manifest.blocks, key=lambda b: (not b.included, -b.priority))
    lines.append(f"blocks ({len(blocks)}; ✓ sent, ✗ dropped):")
    for block in blocks:
        mark = "✓" if block.included else "✗"
        ref = f"  {block.ref}" if block.ref else ""
        reason = f"  — {block.reason}" if block.reason else ""
        lines.append(
            f"{INDENT}{mark} {block.source:<12} p{block.priority:<4} {block.tokens:>7,} tokens"
            f"{ref}{reason}"
        )
    return lines


def _expanded_goal(goal: Goal, data: SessionData, depth: int, full: bool) -> Iterator[str]:
    yield goal_line(goal, data.tree.current_id, depth)
    for message in data.stream() if full else data.messages:
        if message.goal_id == goal.id:
            yield from message_lines(message, full, depth + 2)
    for child in goal.children:
        yield from _expanded_goal(child, data, depth + 1, full)


def goal_lines(data: SessionData, goal_id: str, full: bool) -> Iterator[str]:
    """One goal with every step and sub-goal, finished or not (the id is checked before the
    first line; messages are read as they are printed)."""
    goal = _pick_goal(data, goal_id)
    return _goal_view(data, goal, full)


def _pick_goal(data: SessionData, goal_id: str) -> Goal:
    goal = find_goal(data.tree, goal_id.strip())
    if goal is None:
        known = ", ".join(g.id for g in iter_goals(data.tree.goals)) or "none"
        raise InvalidRequestError(f"no goal {goal_id!r} in session {data.meta.id} (goals: {known})")
    return goal


def _goal_view(data: SessionData, goal: Goal, full: bool) -> Iterator[str]:
    yield f"Goal {goal.id} of session {data.meta.id}"
    yield from _expanded_goal(goal, data, 0, full)


def _turn_data(data: SessionData, number: int, turn: Turn, full: bool) -> dict[str, Any]:
    item: dict[str, Any] = {"number": number, **turn.wire()}
    item["durationS"] = (turn.ended_at - turn.started_at).total_seconds() if turn.ended_at else None
    item["calls"] = turn_calls(data, turn)
    if full:
        item["messages"] = [m.wire() for m in data.stream() if m.turn_id == turn.id]
        item["patch"] = data.patches.get(turn.id)
    return item


def view_data(data: SessionData, full: bool) -> dict[str, Any]:
    """The whole view as JSON-able data (camelCase keys)."""
    return {
        "session": {k: v for k, v in data.meta.wire().items() if k != "turns"},
        "turns": [_turn_data(data, n, t, full) for n, t in enumerate(data.meta.turns, start=1)],
        "goals": trace_view_data(data.tree, data.messages),
        "calls": [
            {"number": n, **m.wire()}
            if full
            else {
                "number": n,
                "callId": m.call_id,
                "turnId": m.turn_id,
                "model": m.model,
                "availableInput": m.available_input,
                "usedInput": m.used_input,
            }
            for n, m in enumerate(data.manifests, start=1)
        ],
        "branches": [{"name": name, "messages": count} for name, count in data.branches],
    }


def selected_data(
    data: SessionData, *, turn: int | None, call: int | None, goal: str | None, full: bool
) -> dict[str, Any]:
    """The one part `--turn` / `--call` / `--goal` asks for, as data (the whole view otherwise)."""
    if turn is not None:
        return _turn_data(data, turn, _pick_turn(data, turn), True)
    if call is not None:
        call_lines(data, call)  # checks the number
        return {"number": call, **data.manifests[call - 1].wire()}
    if goal is not None:
        found = _pick_goal(data, goal)
        ids = _subtree_ids(found)
        return {
            "goal": found.wire(),
            "messages": [m.wire() for m in data.stream() if m.goal_id in ids],
        }
    return view_data(data, full)


def _subtree_ids(goal: Goal) -> set[str]:
    return {g.id for g in iter_goals([goal])}
