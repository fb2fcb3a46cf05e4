"""The goal tree and the messages together: the `cairn trace show` view and its data.

Each goal gets its steps (the messages written while it or one of its
sub-goals was focused) and its duration (first to last of those messages).
Finished goals are collapsed to one line with their summary (abandoned ones
with the reason); unfinished goals list their own messages briefly. Messages
written with no goal focused are listed at the end.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from cairn.goals.brief import brief_line, brief_parts, brief_text
from cairn.goals.render import INDENT, goal_line
from cairn.goals.tree import FINISHED, iter_goals
from cairn.models.goals import Goal, GoalTree
from cairn.models.messages import Message
from cairn.models.session import SessionMeta

SECONDS_PER_MINUTE = 60
SECONDS_PER_HOUR = 3600
TIME_FORMAT = "%Y-%m-%d %H:%M:%S UTC"


@dataclass(frozen=True)
class GoalStats:
    """Steps and time span of one goal's subtree."""

    steps: int
    started_at: datetime | None
    ended_at: datetime | None

    @property
    def duration_s(self) -> float | None:
        if self.started_at is None or self.ended_at is None:
            return None
        return (self.ended_at - self.started_at).total_seconds()


def format_duration(seconds: float) -> str:
    """`<1s`, `42s`, `3m 04s`, `2h 05m`."""
    whole = int(seconds)
    if whole < 1:
        return "<1s"
    if whole < SECONDS_PER_MINUTE:
        return f"{whole}s"
    if whole < SECONDS_PER_HOUR:
        return f"{whole // SECONDS_PER_MINUTE}m {whole % SECONDS_PER_MINUTE:02d}s"
    return f"{whole // SECONDS_PER_HOUR}h {whole % SECONDS_PER_HOUR // SECONDS_PER_MINUTE:02d}m"


def _by_goal(messages: list[Message]) -> dict[str | None, list[Message]]:
    grouped: dict[str | None, list[Message]] = defaultdict(list)
    for message in messages:
        grouped[message.goal_id].append(message)
    return grouped


def goal_stats(goal: Goal, by_goal: dict[str | None, list[Message]]) -> GoalStats:
    """The stats of a goal over its whole subtree."""
    times = [m.created_at for g in iter_goals([goal]) for m in by_goal.get(g.id, [])]
    if not times:
        return GoalStats(0, None, None)
    return GoalStats(len(times), min(times), max(times))


def _stats_text(stats: GoalStats) -> str:
    steps = f"{stats.steps} step" + ("" if stats.steps == 1 else "s")
    duration = stats.duration_s
    return steps if duration is None else f"{steps}, {format_duration(duration)}"


def unassigned_messages(tree: GoalTree, messages: list[Message]) -> list[Message]:
    """Messages written with no goal focused, or naming a goal not in the tree."""
    known = {g.id for g in iter_goals(tree.goals)}
    return [m for m in messages if m.goal_id not in known]


def _goal_lines(
    goal: Goal, tree: GoalTree, by_goal: dict[str | None, list[Message]], depth: int
) -> list[str]:
    stats = goal_stats(goal, by_goal)
    line = f"{goal_line(goal, tree.current_id, depth)}  ({_stats_text(stats)})"
    if goal.status in FINISHED:
        hidden = sum(1 for _ in iter_goals(goal.children))
        return [line + (f" [{hidden} sub-goals collapsed]" if hidden else "")]
    lines = [line]
    lines.extend(f"{INDENT * (depth + 2)}{brief_line(m)}" for m in by_goal.get(goal.id, []))
    for child in goal.children:
        lines.extend(_goal_lines(child, tree, by_goal, depth + 1))
    return lines


def _header(meta: SessionMeta, messages: list[Message]) -> list[str]:
    lines = [f"Session {meta.id}" + (f"  {meta.title!r}" if meta.title else "")]
    if meta.parent_id:
        at = f" at message {meta.fork_message_id}" if meta.fork_message_id else ""
        lines.append(f"Forked from {meta.parent_id}{at}")
    cost = f"  Cost: ${meta.usage.cost:.4f}" if meta.usage.cost is not None else ""
    lines.append(
        f"Model: {meta.model or '(none)'}  Turns: {len(meta.turns)}  "
        f"Messages: {len(messages)}  Tokens in/out: "
        f"{meta.usage.input_tokens}/{meta.usage.output_tokens}{cost}"
    )
    lines.append(
        f"Created: {meta.created_at.strftime(TIME_FORMAT)}  "
        f"Updated: {meta.updated_at.strftime(TIME_FORMAT)}"
    )
    return lines


def render_trace_view(tree: GoalTree, messages: list[Message], meta: SessionMeta) -> str:
    """The text view of `cairn trace show`: header, mission, goals with steps, loose messages."""
    by_goal = _by_goal(messages)
    lines = _header(meta, messages)
    lines.append(f"Mission: {tree.mission.strip() or '(not set)'}")
    lines.append("")
    lines.append("Goals:" if tree.goals else "Goals: none")
    for goal in tree.goals:
        lines.extend(_goal_lines(goal, tree, by_goal, 1))
    loose = unassigned_messages(tree, messages)
    if loose:
        lines.append("")
        lines.append(f"Messages outside any goal ({len(loose)}):")
        lines.extend(f"{INDENT}{brief_line(m)}" for m in loose)
    return "\n".join(lines)


def _message_data(message: Message) -> dict[str, Any]:
    return {
        "id": message.id,
        "role": message.role,
        "text": brief_text(message),
        "parts": brief_parts(message),
        "createdAt": message.created_at.isoformat(),
    }


def _goal_data(
    goal: Goal, current_id: str | None, by_goal: dict[str | None, list[Message]]
) -> dict[str, Any]:
    stats = goal_stats(goal, by_goal)
    return {
        "id": goal.id,
        "description": goal.description,
        "status": goal.status,
        "summary": goal.summary,
        "current": goal.id == current_id,
        "collapsed": goal.status in FINISHED,
        "steps": stats.steps,
        "startedAt": stats.started_at.isoformat() if stats.started_at else None,
        "endedAt": stats.ended_at.isoformat() if stats.ended_at else None,
        "durationS": stats.duration_s,
        "messages": [_message_data(m) for m in by_goal.get(goal.id, [])],
        "children": [_goal_data(c, current_id, by_goal) for c in goal.children],
    }


def trace_view_data(tree: GoalTree, messages: list[Message]) -> dict[str, Any]:
    """The same view as JSON-able data (camelCase keys) for the editor panel."""
    by_goal = _by_goal(messages)
    return {
        "mission": tree.mission,
        "currentId": tree.current_id,
        "steps": len(messages),
        "goals": [_goal_data(g, tree.current_id, by_goal) for g in tree.goals],
        "unassigned": [_message_data(m) for m in unassigned_messages(tree, messages)],
    }
