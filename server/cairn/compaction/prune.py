"""Phase 1 of compaction: prune old tool outputs (OpenCode's `prune`, DESIGN §2.5).

Walk back from the newest message, skip the last `PRUNE_SKIP_TURNS` turns and
anything already summarised, folded or pruned, and add up the tokens of
completed tool outputs. The newest `protect` tokens of output stay; every
older output is a candidate. The plan is applied only when the candidates
free at least `minimum` tokens; otherwise nothing changes. Outputs of
protected tools, failed calls and outputs without an artifact (too small to
be worth a stub) are never pruned.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from cairn.compaction.markers import is_marker, read_state, tool_results
from cairn.models.messages import CompactionPart, Message

PRUNE_SKIP_TURNS = 2

# Prune old tool output past this many tokens of it, once this many can go (OpenCode's
# numbers, set for a 200k window; `cairn.compaction.retention` caps them for a smaller one).
DEFAULT_PRUNE_PROTECT = 40_000
DEFAULT_PRUNE_MINIMUM = 20_000


@dataclass(frozen=True)
class PrunePlan:
    """The tool calls to stub out and the tokens that frees."""

    call_ids: tuple[str, ...]
    freed_tokens: int
    # Tokens of tool output seen on the walk (protected + candidates).
    scanned_tokens: int

    def marker(self, tokens_before: int, tokens_after: int) -> CompactionPart:
        return CompactionPart(
            kind="prune",
            pruned_call_ids=list(self.call_ids),
            tokens_before=tokens_before,
            tokens_after=tokens_after,
        )


def recent_turn_ids(messages: Sequence[Message], turns: int = PRUNE_SKIP_TURNS) -> set[str]:
    """The ids of the last `turns` turns that have messages."""
    seen: list[str] = []
    for message in reversed(messages):
        if message.turn_id is not None and message.turn_id not in seen:
            seen.append(message.turn_id)
            if len(seen) == turns:
                break
    return set(seen)


def plan_prune(
    messages: Sequence[Message],
    count: Callable[[str], int],
    *,
    minimum: int = DEFAULT_PRUNE_MINIMUM,
    protect: int = DEFAULT_PRUNE_PROTECT,
    protected_tools: Collection[str] = (),
    skip_turns: int = PRUNE_SKIP_TURNS,
) -> PrunePlan | None:
    """The prune to apply now, or None when it would free less than `minimum`.

    An output is a candidate once the running total of output tokens (newest
    first) exceeds `protect`; the plan frees the candidates' tokens, and is
    returned only when that is at least `minimum`.
    """
    state = read_state(messages)
    skipped_turns = recent_turn_ids(messages, skip_turns)
    total = 0
    freed = 0
    candidates: list[str] = []
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.turn_id in skipped_turns or is_marker(message):
            continue
        if state.is_covered(index, message):
            continue
        for part in reversed(tool_results(message)):
            if part.call_id in state.pruned_call_ids or part.name in protected_tools:
                continue
            tokens = count(part.output)
            total += tokens
            if total > protect and part.ok and part.artifact_id is not None:
                freed += tokens
                candidates.append(part.call_id)
    if not candidates or freed < minimum:
        return None
    return PrunePlan(call_ids=tuple(candidates), freed_tokens=freed, scanned_tokens=total)
