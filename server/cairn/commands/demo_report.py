"""The compaction report `cairn demo` prints: per turn and kind, what it freed and what it kept.

Read from the session's recorded markers (the trace's truth, not the
terminal's events): a goal fold keeps one result line per goal in place of
its messages, a prune keeps a stub per tool output (the output itself stays
in its artifact), a summary keeps the model's narrative and the ledger of
files, tests and goals built from the records. Compactions that were tried
and not applied come from the listener's `failed` events.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cairn.compaction.markers import compaction_parts, is_marker, read_state, tool_results
from cairn.models.events import CompactionEvent
from cairn.models.messages import CompactionPart, Message
from cairn.models.summary import SessionSummary

KIND_NAMES = {"goal": "goal fold", "prune": "prune", "summary": "summary"}


@dataclass(frozen=True)
class Recorded:
    """One recorded compaction marker and the turn (1-based) it was recorded in."""

    turn: int
    part: CompactionPart


def turn_numbers(messages: Sequence[Message]) -> dict[str, int]:
    """Each turn id's ordinal (1-based), in the order the turns appear in the history."""
    numbers: dict[str, int] = {}
    for message in messages:
        if message.turn_id is not None and message.turn_id not in numbers:
            numbers[message.turn_id] = len(numbers) + 1
    return numbers


def recorded(messages: Sequence[Message]) -> list[Recorded]:
    """Every compaction marker of the history, in order, with its turn."""
    numbers = turn_numbers(messages)
    return [
        Recorded(numbers.get(m.turn_id or "", 0), part)
        for m in messages
        for part in compaction_parts(m)
    ]


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def tool_names(messages: Sequence[Message], call_ids: Sequence[str]) -> list[str]:
    """The tool name of each call id (in the order given), from the results that answer them."""
    names = {p.call_id: p.name for m in messages for p in tool_results(m)}
    return [names.get(call_id, "?") for call_id in call_ids]


def ledger_kept(summary: SessionSummary) -> str:
    """What a summary keeps: its narrative's counts and the ledger built from the records."""
    narrative = ", ".join(
        [
            "the objective" if summary.objective else "no objective",
            _plural(len(summary.confirmed_facts), "fact"),
            _plural(len(summary.decisions), "decision"),
        ]
    )
    ledger = ", ".join(
        [
            _plural(len(summary.files_read), "file") + " read",
            _plural(len(summary.files_changed), "file") + " changed",
            _plural(len(summary.tests), "test run"),
            _plural(len(summary.goal_summaries), "goal"),
        ]
    )
    return f"{narrative}; ledger: {ledger}"


def newer_messages(messages: Sequence[Message]) -> int:
    """How many messages the context still shows as they are: after the latest summary's
    watermark, neither folded into a goal nor a marker (pruned outputs count, as stubs)."""
    state = read_state(messages)
    return sum(
        1
        for index, message in enumerate(messages)
        if not is_marker(message) and not state.is_covered(index, message)
    )


def kept(kind: str, parts: Sequence[CompactionPart], messages: Sequence[Message]) -> str:
    """What the context still shows in place of what these markers of one kind cover."""
    if kind == "goal":
        # A parent's fold covers its sub-goals' folds too: count each message once.
        ids = {message_id for p in parts for message_id in p.covers}
        covered = sum(1 for m in messages if m.id in ids and not is_marker(m))
        return (
            f"{_plural(len(parts), 'goal result line')} in place of {_plural(covered, 'message')}"
        )
    if kind == "prune":
        ids = [call_id for p in parts for call_id in p.pruned_call_ids]
        names = ", ".join(tool_names(messages, ids))
        return f"{_plural(len(ids), 'stub')} ({names}) naming the artifact that keeps each output"
    summaries = [p.summary for p in parts if p.summary is not None]
    if not summaries:
        return "nothing"
    last = summaries[-1]
    return f"{ledger_kept(last)}; then {_plural(newer_messages(messages), 'message')} as they are"


def group(markers: Sequence[Recorded]) -> list[tuple[int, str, list[CompactionPart]]]:
    """Markers grouped by (turn, kind), in the order each group first appears."""
    groups: dict[tuple[int, str], list[CompactionPart]] = {}
    for marker in markers:
        groups.setdefault((marker.turn, marker.part.kind), []).append(marker.part)
    return [(turn, kind, parts) for (turn, kind), parts in groups.items()]


def compaction_report(messages: Sequence[Message], events: Sequence[CompactionEvent]) -> list[str]:
    """Two lines per turn and kind: how many, the context tokens before → after each and what
    that freed; then what the context kept instead. Last, the attempts not applied."""
    lines: list[str] = []
    for turn, kind, parts in group(recorded(messages)):
        steps = ", ".join(f"{p.tokens_before}→{p.tokens_after}" for p in parts)
        freed = sum(p.tokens_before - p.tokens_after for p in parts)
        name = KIND_NAMES.get(kind, kind)
        lines.append(f"  turn {turn} · {name}: {len(parts)} × (tokens {steps}; freed {freed})")
        lines.append(f"      kept: {parts[-1].tokens_after} tokens, {kept(kind, parts, messages)}")
    failed = [e for e in events if e.stage == "failed"]
    if failed:
        lines.append(f"  not applied: {len(failed)} ({'; '.join(e.error or '' for e in failed)})")
    return lines or ["  none"]
