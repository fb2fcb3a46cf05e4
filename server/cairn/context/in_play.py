"""Files in play carried across a turn's boundary, read from the history.

A turn's own reads and edits are in play from the call after them (its scope's
`edited` and `seen`, `cairn.agent.scope.inputs`). Across the boundary the
history says what is still in play: the files the previous turn read, edited,
searched into or listed, and any file whose messages are still verbatim in
the history — not covered by a summary, not folded into a finished goal —
keep their nested rules and place in the repository map's
ranking at the next turn's calls (a follow-up such as "also add a test" edits
them again before reading one). A file leaves play when every message that
touched it has been summarised or folded, and `HistoryPlay.left` says why, for
the manifest. Pruned outputs do not make a file leave: the call naming it is
still shown.

Paths are the ones recorded: `read_file` and `edit_file` keep the
workspace-relative path they used in their result's data; `list_dir` and
`grep` are known by the `path` argument of their call (as the model wrote it).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from cairn.compaction.ledger import EDIT_TOOL, KEY_PATH, READ_TOOL, is_user_words
from cairn.compaction.markers import CompactionState, compaction_parts, read_state, tool_results
from cairn.models.messages import Message, ToolCallPart

# Tools whose result data records the file they read or wrote.
RECORDED_PATH_TOOLS = (READ_TOOL, EDIT_TOOL)
# Tools known by the folder (or file) their call's `path` argument names.
ARGUMENT_PATH_TOOLS = ("list_dir", "grep")
ARGUMENT_PATH = "path"
SUMMARISED = "summarised"
FOLDED = "folded into goal {goal}"


@dataclass(frozen=True)
class HistoryPlay:
    """What the history keeps in play from earlier turns, and what it let go."""

    # Paths still in play, as recorded, in the order first touched.
    carried: tuple[str, ...] = ()
    # Paths touched earlier that left play → what became of their messages ("summarised",
    # "folded into goal N").
    left: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Touch:
    """One tool result that touched a path: the path, its message index and user turn."""

    path: str
    index: int
    turn: int


def _call_paths(messages: Sequence[Message]) -> dict[str, str]:
    """call id → the `path` argument of each list_dir / grep call that has one."""
    out: dict[str, str] = {}
    for message in messages:
        for part in message.parts:
            if isinstance(part, ToolCallPart) and part.name in ARGUMENT_PATH_TOOLS:
                path = part.arguments.get(ARGUMENT_PATH)
                if isinstance(path, str) and path.strip():
                    out[part.call_id] = path.strip()
    return out


def touches(messages: Sequence[Message]) -> list[Touch]:
    """Every file or folder a tool result touched: its path, message index and user turn."""
    by_call = _call_paths(messages)
    out: list[Touch] = []
    turn = 0
    for index, message in enumerate(messages):
        turn += is_user_words(message)
        for part in tool_results(message):
            data = part.data or {}
            recorded = data.get(KEY_PATH) if part.name in RECORDED_PATH_TOOLS else None
            path = str(recorded) if recorded and part.ok else by_call.get(part.call_id)
            if path:
                out.append(Touch(path, index, turn))
    return out


def _fold_goals(messages: Iterable[Message]) -> dict[str, str]:
    """message id → the goal whose fold covers it."""
    out: dict[str, str] = {}
    for message in messages:
        for part in compaction_parts(message):
            if part.kind == "goal":
                out.update(dict.fromkeys(part.covers, part.goal_id or "?"))
    return out


def _why(state: CompactionState, folds: Mapping[str, str], touch: Touch, message: Message) -> str:
    if touch.index <= state.watermark_index:
        return SUMMARISED
    return FOLDED.format(goal=folds.get(message.id, "?"))


def history_play(messages: Sequence[Message], *, next_turn: bool = False) -> HistoryPlay:
    """The files the history keeps in play (see the module docstring). `next_turn`: the
    call is the first of a turn whose user message is not recorded yet (a dry run), so
    the last recorded turn is the previous one."""
    state = read_state(messages)
    folds = _fold_goals(messages)
    current = sum(1 for m in messages if is_user_words(m)) + int(next_turn)
    carried: list[str] = []
    left: dict[str, str] = {}
    for touch in touches(messages):
        message = messages[touch.index]
        if touch.turn >= current - 1 or not state.is_covered(touch.index, message):
            left.pop(touch.path, None)
            if touch.path not in carried:
                carried.append(touch.path)
        elif touch.path not in carried:
            left[touch.path] = _why(state, folds, touch, message)
    return HistoryPlay(carried=tuple(carried), left=left)
