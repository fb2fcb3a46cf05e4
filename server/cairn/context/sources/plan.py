"""Source: the current plan (goal tree), shown last in every call: the end of the tail (DESIGN §2.2, §2.3).

The tail is never read from the cache, so the plan shows the current turn's
goals whole and collapses the goals finished in earlier turns to one count
line (`cairn.goals.render`) — but only those whose outcome the history still
shows the model: a goal fold that neither a later fold nor the summary
covers, or the summary's list of finished goals (`goal_summaries`, rendered
by `cairn.context.sources.summary`). A finished goal with no visible outcome
(it had no messages to fold, or its fold is inside a parent's) stays whole.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

from cairn.compaction.markers import compaction_parts, read_state
from cairn.context.blocks import Candidate, Count, section
from cairn.context.priorities import PRIORITY_PLAN
from cairn.goals import iter_goals, render_plan
from cairn.goals.replay import replay_goals
from cairn.goals.tree import FINISHED
from cairn.models.goals import GoalTree
from cairn.models.messages import Message

# Turn starts remembered (a few sessions, and explore branches, at a time).
FINISHED_MEMO_SIZE = 16
_FINISHED_MEMO: OrderedDict[tuple[str, ...], frozenset[str]] = OrderedDict()
_MEMO_LOCK = threading.Lock()


def turn_start(history: Sequence[Message]) -> int:
    """Index of the first message of the latest turn (`len(history)` when no message has a turn)."""
    latest = next((m.turn_id for m in reversed(history) if m.turn_id is not None), None)
    if latest is None:
        return len(history)
    return next(i for i, m in enumerate(history) if m.turn_id == latest)


def finished_before(history: Sequence[Message], start: int) -> frozenset[str]:
    """Ids of the goals already finished when the message at `start` was written.

    Every call of a turn (and every probe assembly of the compactor) asks about
    the same records before the turn's start, and a replay copies the tree at
    each operation, so the answer is remembered per exact list of message ids
    (records are append-only: the same ids are the same messages).
    """
    key = tuple(m.id for m in history[:start])
    with _MEMO_LOCK:
        known = _FINISHED_MEMO.get(key)
        if known is not None:
            _FINISHED_MEMO.move_to_end(key)
            return known
    tree = replay_goals(history[:start]).tree
    known = frozenset(g.id for g in iter_goals(tree.goals) if g.status in FINISHED)
    with _MEMO_LOCK:
        _FINISHED_MEMO[key] = known
        while len(_FINISHED_MEMO) > FINISHED_MEMO_SIZE:
            _FINISHED_MEMO.popitem(last=False)
    return known


def shown_outcomes(history: Sequence[Message]) -> frozenset[str]:
    """Ids of the goals whose outcome the rendered history shows (a visible fold, the summary)."""
    state = read_state(history)
    shown = {g.goal_id for g in state.summary.goal_summaries} if state.summary else set()
    for index, message in enumerate(history):
        if state.is_covered(index, message):
            continue
        shown.update(p.goal_id for p in compaction_parts(message) if p.kind == "goal" and p.goal_id)
    return frozenset(shown)


def collapsed_goals(history: Sequence[Message], goals: GoalTree) -> frozenset[str]:
    """The finished goals of earlier turns the plan counts instead of listing."""
    earlier = finished_before(history, turn_start(history)) & shown_outcomes(history)
    return frozenset(
        g.id for g in iter_goals(goals.goals) if g.id in earlier and g.status in FINISHED
    )


def plan_candidate(goals: GoalTree, history: Sequence[Message], count: Count) -> Candidate | None:
    """The "Current Plan" section of `goals` after `history`, or None for an empty plan."""
    if not goals.mission and not goals.goals:
        return None
    text = render_plan(goals, collapsed_goals(history, goals)).strip()
    if not text:
        return None
    return section("plan", PRIORITY_PLAN, None, text, count=count, ref=goals.current_id)
