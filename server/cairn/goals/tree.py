"""Goal tree operations: the four verbs of the `goal` tool, as pure functions.

`apply_verb` takes a `GoalTree` and one verb with its text and returns a NEW
tree; the input is never mutated, and a verb that cannot apply raises
`GoalError` with nothing changed. `one_verb` checks a request names exactly
one verb (the `goal` tool's argument model and the editor's request both use
it, once); `apply_goal` is the two together.

Invariants every returned tree keeps (the property tests check them):
- Ids are hierarchical ("1", "2.1") and never reused: goals are never
  deleted, and a new child gets `max(existing sibling number) + 1`.
- The focused goal and its ancestors are `in_progress`. A goal stays
  `in_progress` once it was focused (work on it has started) until it is
  finished: focusing elsewhere does not return it to `pending`. The focus
  itself is `current_id`.
- Every descendant of a finished (completed or abandoned) goal is finished:
  `done` abandons the focused goal's unfinished sub-goals with the reason
  "parent goal <id> completed first"; `abandon` abandons them with
  "parent abandoned". Finished goals keep their status and summary.
- After `done` / `abandon`, focus moves to the parent (which stays
  `in_progress`), or to no goal at top level.
- `add` does not change the focus: new goals are `pending` children of the
  focused goal, or top-level goals when nothing is focused.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Final, get_args

from cairn.errors import GoalError
from cairn.models.goals import Goal, GoalStatus, GoalTree, GoalVerb

ID_SEPARATOR = "."
ADD_SEPARATOR = ","
FINISHED: frozenset[GoalStatus] = frozenset({"completed", "abandoned"})
REASON_PARENT_ABANDONED = "parent abandoned"
REASON_PARENT_COMPLETED = "parent goal {id} completed first"

# The verbs in the order the tool's schema and every message list them.
GOAL_VERBS: Final[tuple[GoalVerb, ...]] = get_args(GoalVerb)


def iter_goals(goals: list[Goal]) -> Iterator[Goal]:
    """Every goal of a forest, depth first, parents before children."""
    for goal in goals:
        yield goal
        yield from iter_goals(goal.children)


def find_goal(tree: GoalTree, goal_id: str) -> Goal | None:
    """The goal with this id, or None."""
    return next((g for g in iter_goals(tree.goals) if g.id == goal_id), None)


def parent_id(goal_id: str) -> str | None:
    """The id of a goal's parent ("2.1" → "2"), None for a top-level goal."""
    head, sep, _ = goal_id.rpartition(ID_SEPARATOR)
    return head if sep else None


def ancestor_ids(goal_id: str) -> list[str]:
    """The goal's own id and the ids of all its ancestors, nearest first."""
    path: list[str] = []
    current: str | None = goal_id
    while current is not None:
        path.append(current)
        current = parent_id(current)
    return path


def goal_subtree_ids(tree: GoalTree, goal_id: str) -> set[str]:
    """The ids of a goal and all its descendants; GoalError for an unknown id."""
    goal = find_goal(tree, goal_id)
    if goal is None:
        raise GoalError(f"unknown goal id {goal_id!r}")
    return {g.id for g in iter_goals([goal])}


def one_verb(values: Mapping[str, str | None]) -> tuple[GoalVerb, str]:
    """The one verb given in `values` (verb → text or None) and its text; GoalError otherwise."""
    given: list[GoalVerb] = [verb for verb in GOAL_VERBS if values.get(verb) is not None]
    if len(given) != 1:
        listed = ", ".join(given) if given else "none"
        raise GoalError(f"give exactly one of {', '.join(GOAL_VERBS)} (got: {listed})")
    verb = given[0]
    text = values[verb]
    assert text is not None
    return verb, text


def apply_verb(tree: GoalTree, verb: GoalVerb, text: str) -> GoalTree:
    """Apply one verb and return the new tree (the input is left unchanged)."""
    new = tree.model_copy(deep=True)
    if verb == "add":
        return _add(new, text)
    if verb == "done":
        return _finish(new, text, status="completed", verb="done")
    if verb == "abandon":
        return _finish(new, text, status="abandoned", verb="abandon")
    return _focus(new, text)


def apply_goal(
    tree: GoalTree,
    *,
    add: str | None = None,
    done: str | None = None,
    abandon: str | None = None,
    focus: str | None = None,
) -> GoalTree:
    """Apply exactly one verb and return the new tree (the input is left unchanged)."""
    verb, text = one_verb({"add": add, "done": done, "abandon": abandon, "focus": focus})
    return apply_verb(tree, verb, text)


def _children_of(tree: GoalTree, goal_id: str | None) -> list[Goal]:
    if goal_id is None:
        return tree.goals
    goal = find_goal(tree, goal_id)
    if goal is None:
        raise GoalError(f"focused goal {goal_id!r} is not in the tree")
    return goal.children


def _next_number(siblings: list[Goal]) -> int:
    tails = (g.id.rpartition(ID_SEPARATOR)[2] for g in siblings)
    numbers = [int(t) for t in tails if t.isdigit()]
    return max(numbers, default=0) + 1


def _add(tree: GoalTree, text: str) -> GoalTree:
    descriptions = [d.strip() for d in text.split(ADD_SEPARATOR) if d.strip()]
    if not descriptions:
        raise GoalError("add needs at least one non-empty goal description")
    siblings = _children_of(tree, tree.current_id)
    prefix = f"{tree.current_id}{ID_SEPARATOR}" if tree.current_id is not None else ""
    number = _next_number(siblings)
    for offset, description in enumerate(descriptions):
        siblings.append(Goal(id=f"{prefix}{number + offset}", description=description))
    return tree


def _focused(tree: GoalTree, verb: str) -> Goal:
    if tree.current_id is None:
        raise GoalError(f"{verb} needs a focused goal; focus one first")
    goal = find_goal(tree, tree.current_id)
    if goal is None:
        raise GoalError(f"focused goal {tree.current_id!r} is not in the tree")
    return goal


def _finish(tree: GoalTree, text: str, *, status: GoalStatus, verb: str) -> GoalTree:
    what = "a summary" if verb == "done" else "a reason"
    goal = _focused(tree, verb)
    if not text.strip():
        raise GoalError(f"{verb} needs {what} (got an empty one)")
    goal.status = status
    goal.summary = text.strip()
    reason = (
        REASON_PARENT_COMPLETED.format(id=goal.id)
        if status == "completed"
        else REASON_PARENT_ABANDONED
    )
    for descendant in iter_goals(goal.children):
        if descendant.status not in FINISHED:
            descendant.status = "abandoned"
            descendant.summary = reason
    tree.current_id = parent_id(goal.id)
    return tree


def _focus(tree: GoalTree, goal_id: str) -> GoalTree:
    wanted = goal_id.strip()
    goal = find_goal(tree, wanted)
    if goal is None:
        raise GoalError(f"unknown goal id {goal_id!r}")
    if goal.status in FINISHED:
        raise GoalError(f"goal {wanted} is {goal.status}; it cannot be focused")
    path = set(ancestor_ids(wanted))
    for ancestor in (find_goal(tree, a) for a in path):
        if ancestor is not None and ancestor.status in FINISHED:
            raise GoalError(f"goal {wanted} is under {ancestor.status} goal {ancestor.id}")
    for other in iter_goals(tree.goals):
        if other.id in path:
            other.status = "in_progress"
    tree.current_id = wanted
    return tree
