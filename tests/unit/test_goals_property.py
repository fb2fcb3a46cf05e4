"""Property: any sequence of goal verbs keeps the tree's invariants.

Never a reused id, never an orphan, the in-progress goals are exactly the
unfinished goals that were ever on a focused path (the current one always),
finished goals only have finished descendants, and a refused verb changes
nothing.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from cairn.errors import GoalError
from cairn.goals import apply_goal, iter_goals
from cairn.goals.tree import FINISHED, ancestor_ids
from cairn.models.goals import Goal, GoalTree

MAX_STEPS = 40
EXAMPLES = 300

Verb = tuple[str, str]

words = st.text(alphabet="ab ,", max_size=8)
verbs: st.SearchStrategy[Verb] = st.one_of(
    st.tuples(st.just("add"), words),
    st.tuples(st.just("done"), words),
    st.tuples(st.just("abandon"), words),
    # Focus an index into the current goals (resolved at run time) or a bogus id.
    st.tuples(st.just("focus"), st.sampled_from(["0", "1", "2", "3", "4", "5", "9.9", ""])),
)


def _focus_target(tree: GoalTree, choice: str) -> str:
    ids = [g.id for g in iter_goals(tree.goals)]
    if choice.isdigit() and ids:
        return ids[int(choice) % len(ids)]
    return choice


def _check_structure(goals: list[Goal], parent: str | None) -> None:
    for goal in goals:
        head, _, number = goal.id.rpartition(".")
        assert (head or None) == parent, f"orphan {goal.id} under {parent}"
        assert number.isdigit()
        _check_structure(goal.children, goal.id)


def _check(tree: GoalTree, seen: dict[str, str], started: set[str]) -> None:
    goals = list(iter_goals(tree.goals))
    ids = [g.id for g in goals]
    assert len(ids) == len(set(ids)), "duplicate id"
    for goal_id, description in seen.items():
        assert any(g.id == goal_id and g.description == description for g in goals), (
            f"goal {goal_id} vanished or was reused"
        )
    _check_structure(tree.goals, None)
    focused = set(ancestor_ids(tree.current_id)) if tree.current_id else set()
    in_progress = {g.id for g in goals if g.status == "in_progress"}
    assert focused <= in_progress
    assert in_progress == {g.id for g in goals if g.id in started and g.status not in FINISHED}
    for goal in goals:
        if goal.status in FINISHED:
            assert all(d.status in FINISHED for d in iter_goals(goal.children))
            assert goal.summary


@settings(max_examples=EXAMPLES, deadline=None)
@given(st.lists(verbs, max_size=MAX_STEPS))
def test_random_verb_sequences_keep_invariants(sequence: list[Verb]) -> None:
    tree = GoalTree(mission="m")
    seen: dict[str, str] = {}
    started: set[str] = set()
    for verb, argument in sequence:
        value = _focus_target(tree, argument) if verb == "focus" else argument
        before = tree.model_copy(deep=True)
        try:
            new = apply_goal(tree, **{verb: value})
        except GoalError:
            assert tree == before
            continue
        assert tree == before, "the input tree was mutated"
        for goal in iter_goals(new.goals):
            seen.setdefault(goal.id, goal.description)
        if new.current_id is not None:
            started |= set(ancestor_ids(new.current_id))
        _check(new, seen, started)
        tree = new
