"""Goal tree verbs: add, done, abandon, focus, their errors (state unchanged) and ids."""

from __future__ import annotations

import pytest

from cairn.errors import GoalError
from cairn.goals import apply_goal, find_goal, goal_subtree_ids, iter_goals
from cairn.models.goals import Goal, GoalTree


def _status(tree: GoalTree) -> dict[str, str]:
    return {g.id: g.status for g in iter_goals(tree.goals)}


def _goal(tree: GoalTree, goal_id: str) -> Goal:
    goal = find_goal(tree, goal_id)
    assert goal is not None
    return goal


@pytest.fixture
def planned() -> GoalTree:
    """Mission with goals 1, 2 (focused, with 2.1, 2.2) and 3."""
    tree = apply_goal(GoalTree(mission="fix the bug"), add="read, fix, test")
    tree = apply_goal(tree, focus="2")
    return apply_goal(tree, add="find cause, patch")


def test_add_top_level_when_nothing_focused() -> None:
    tree = apply_goal(GoalTree(), add=" read the code ,, fix it , ")
    assert [(g.id, g.description, g.status) for g in tree.goals] == [
        ("1", "read the code", "pending"),
        ("2", "fix it", "pending"),
    ]
    assert tree.current_id is None


def test_add_under_the_focused_goal(planned: GoalTree) -> None:
    assert [c.id for c in _goal(planned, "2").children] == ["2.1", "2.2"]
    assert [c.description for c in _goal(planned, "2").children] == ["find cause", "patch"]
    assert planned.current_id == "2"


def test_add_does_not_mutate_its_input() -> None:
    tree = GoalTree(mission="m")
    before = tree.model_copy(deep=True)
    apply_goal(tree, add="a, b")
    assert tree == before


def test_focus_marks_the_path_in_progress(planned: GoalTree) -> None:
    tree = apply_goal(planned, focus="2.1")
    assert tree.current_id == "2.1"
    assert _status(tree) == {
        "1": "pending",
        "2": "in_progress",
        "2.1": "in_progress",
        "2.2": "pending",
        "3": "pending",
    }


def test_focus_elsewhere_keeps_started_goals_in_progress(planned: GoalTree) -> None:
    tree = apply_goal(apply_goal(planned, focus="2.1"), focus="3")
    assert _status(tree) == {
        "1": "pending",
        "2": "in_progress",
        "2.1": "in_progress",
        "2.2": "pending",
        "3": "in_progress",
    }
    assert tree.current_id == "3"


def test_focus_accepts_surrounding_spaces(planned: GoalTree) -> None:
    assert apply_goal(planned, focus=" 3 ").current_id == "3"


def test_done_completes_and_moves_focus_to_parent(planned: GoalTree) -> None:
    tree = apply_goal(apply_goal(planned, focus="2.1"), done="  cause is an off-by-one ")
    child = _goal(tree, "2.1")
    assert (child.status, child.summary) == ("completed", "cause is an off-by-one")
    assert tree.current_id == "2"
    assert _goal(tree, "2").status == "in_progress"


def test_done_at_top_level_clears_focus(planned: GoalTree) -> None:
    tree = apply_goal(apply_goal(planned, focus="1"), done="read it")
    assert tree.current_id is None
    assert _goal(tree, "1").status == "completed"


def test_done_abandons_unfinished_subgoals(planned: GoalTree) -> None:
    tree = apply_goal(apply_goal(planned, focus="2.1"), done="found")
    tree = apply_goal(tree, done="fixed without a separate patch step")
    assert _goal(tree, "2.1").status == "completed"
    assert _goal(tree, "2.2").status == "abandoned"
    assert _goal(tree, "2.2").summary == "parent goal 2 completed first"
    assert tree.current_id is None


def test_abandon_keeps_reason_and_cascades(planned: GoalTree) -> None:
    tree = apply_goal(planned, abandon="the bug is elsewhere")
    assert (_goal(tree, "2").status, _goal(tree, "2").summary) == (
        "abandoned",
        "the bug is elsewhere",
    )
    assert {_goal(tree, i).summary for i in ("2.1", "2.2")} == {"parent abandoned"}
    assert {_goal(tree, i).status for i in ("2.1", "2.2")} == {"abandoned"}
    assert tree.current_id is None


def test_abandon_keeps_finished_subgoals(planned: GoalTree) -> None:
    tree = apply_goal(apply_goal(planned, focus="2.1"), done="found it")
    tree = apply_goal(tree, abandon="wrong approach")
    assert (_goal(tree, "2.1").status, _goal(tree, "2.1").summary) == ("completed", "found it")


def test_ids_are_never_reused(planned: GoalTree) -> None:
    tree = apply_goal(apply_goal(planned, focus="2.2"), abandon="no")
    tree = apply_goal(tree, add="another")
    assert [c.id for c in _goal(tree, "2").children] == ["2.1", "2.2", "2.3"]
    tree = apply_goal(apply_goal(tree, focus="3"), abandon="no")
    tree = apply_goal(tree, add="later")
    assert [g.id for g in tree.goals] == ["1", "2", "3", "4"]


def test_goal_subtree_ids(planned: GoalTree) -> None:
    assert goal_subtree_ids(planned, "2") == {"2", "2.1", "2.2"}
    assert goal_subtree_ids(planned, "3") == {"3"}
    with pytest.raises(GoalError, match="unknown goal id '9'"):
        goal_subtree_ids(planned, "9")


def _finished(planned: GoalTree) -> GoalTree:
    return apply_goal(apply_goal(planned, focus="1"), done="read")


ERROR_CASES: list[tuple[str, dict[str, str], str]] = [
    ("no verb", {}, "exactly one of add, done, abandon, focus \\(got: none\\)"),
    ("two verbs", {"add": "x", "focus": "1"}, "got: add, focus"),
    ("empty add", {"add": " , ,"}, "add needs at least one"),
    ("unknown focus", {"focus": "7"}, "unknown goal id '7'"),
    ("empty focus", {"focus": ""}, "unknown goal id ''"),
    ("focus completed", {"focus": "1"}, "goal 1 is completed"),
    ("empty done", {"done": "  "}, "done needs a summary"),
    ("empty abandon", {"abandon": ""}, "abandon needs a reason"),
]


@pytest.mark.parametrize(("case", "verbs", "message"), ERROR_CASES, ids=[c[0] for c in ERROR_CASES])
def test_errors_leave_the_tree_unchanged(
    planned: GoalTree, case: str, verbs: dict[str, str], message: str
) -> None:
    tree = _finished(planned)
    tree = apply_goal(tree, focus="2")
    before = tree.model_copy(deep=True)
    with pytest.raises(GoalError, match=message):
        apply_goal(tree, **verbs)
    assert tree == before


def test_focus_abandoned_goal_is_refused(planned: GoalTree) -> None:
    tree = apply_goal(planned, abandon="dead end")
    before = tree.model_copy(deep=True)
    with pytest.raises(GoalError, match=r"goal 2\.1 is abandoned"):
        apply_goal(tree, focus="2.1")
    assert tree == before


@pytest.mark.parametrize("verb", ["done", "abandon"])
def test_done_and_abandon_need_a_focused_goal(verb: str) -> None:
    tree = apply_goal(GoalTree(), add="a")
    before = tree.model_copy(deep=True)
    with pytest.raises(GoalError, match=f"{verb} needs a focused goal"):
        apply_goal(tree, **{verb: "text"})
    assert tree == before


def test_focus_under_a_finished_goal_is_refused() -> None:
    """A hand-edited tree where a pending goal sits under a completed one."""
    tree = GoalTree(
        goals=[
            Goal(
                id="1",
                description="a",
                status="completed",
                summary="ok",
                children=[Goal(id="1.1", description="b")],
            )
        ]
    )
    with pytest.raises(GoalError, match="under completed goal 1"):
        apply_goal(tree, focus="1.1")
