"""The goal tree as it was at any message, rebuilt from the goal operations the trace recorded.

Every change to a session's tree is in its messages, in the order it was made:
- the mission: the first line of the first user message (`mission_of`), set
  when the tree has none yet, and again by each user message while no
  assistant message has been recorded (the earlier turns failed before a
  reply) — as the engine does when a turn starts;
- the model's changes: each successful `goal` tool result (its `data` holds the
  verb and text: `{"goal": {"done": "..."}}`);
- the user's changes from the editor: `GoalOpPart`s (verb and text), and an
  explore branch's starting plan: a `GoalOpPart` with verb `seed` and the tree.

`replay_goals(messages, until)` applies them with the same verbs
(`apply_verb`), up to and including the message `until` (all when None). Used
to fork a session at a point in time and to rebuild a damaged `goal.json`. An
operation that no longer applies (a trace written before every operation was
recorded) is skipped and counted, never fatal.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from cairn.errors import GoalError
from cairn.goals.tree import GOAL_VERBS, apply_verb
from cairn.models.goals import GoalTree, GoalVerb
from cairn.models.messages import GoalOpPart, Message, ToolResultPart

GOAL_TOOL = "goal"
GOAL_DATA_KEY = "goal"


def mission_of(message: str) -> str:
    """The mission a session's first message sets: its first non-empty line, stripped."""
    return message.strip().splitlines()[0] if message.strip() else ""


@dataclass(frozen=True)
class GoalOp:
    """One recorded change: a verb and its text, or a whole tree (`seed`)."""

    message_id: str
    verb: GoalVerb | None
    text: str = ""
    tree: GoalTree | None = None


@dataclass(frozen=True)
class Replay:
    """The rebuilt tree, how many operations built it, and how many no longer applied."""

    tree: GoalTree
    applied: int
    skipped: int


def _tool_op(message_id: str, part: ToolResultPart) -> GoalOp | None:
    if part.name != GOAL_TOOL or not part.ok or not isinstance(part.data, dict):
        return None
    change: Any = part.data.get(GOAL_DATA_KEY)
    if not isinstance(change, dict) or len(change) != 1:
        return None
    [(verb, text)] = change.items()
    if verb not in GOAL_VERBS or not isinstance(text, str):
        return None
    return GoalOp(message_id, verb, text)


def goal_ops(message: Message) -> Iterator[GoalOp]:
    """The goal operations one message records, in order."""
    for part in message.parts:
        if isinstance(part, ToolResultPart):
            op = _tool_op(message.id, part)
            if op is not None:
                yield op
        elif isinstance(part, GoalOpPart):
            if part.verb == "seed":
                yield GoalOp(message.id, None, tree=part.tree or GoalTree())
            else:
                yield GoalOp(message.id, part.verb, part.text)


def _apply(tree: GoalTree, op: GoalOp) -> GoalTree:
    if op.verb is None:
        return (op.tree or GoalTree()).model_copy(deep=True)
    return apply_verb(tree, op.verb, op.text)


def _sets_mission(tree: GoalTree, message: Message, answered: bool) -> bool:
    """A turn's user message sets the mission when there is none, or none was answered."""
    if message.role != "user" or message.turn_id is None or not mission_of(message.text()):
        return False
    return not tree.mission or not answered


def replay_goals(messages: Iterable[Message], until: str | None = None) -> Replay:
    """The tree after every operation up to and including message `until` (all when None)."""
    tree = GoalTree()
    applied = skipped = 0
    answered = False
    for message in messages:
        answered = answered or message.role == "assistant"
        if _sets_mission(tree, message, answered):
            tree = tree.model_copy(update={"mission": mission_of(message.text())})
        for op in goal_ops(message):
            try:
                tree = _apply(tree, op)
            except GoalError:
                skipped += 1
                continue
            applied += 1
        if message.id == until:
            break
    return Replay(tree=tree, applied=applied, skipped=skipped)
