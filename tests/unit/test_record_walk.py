"""The one walk of a session's records (`cairn.agent.sessions.replay`) that every replay reads.

The ACP `session/load` replay, the editor's transcript and `cairn trace show`
translate these steps, so what the walk decides (branches left out, each
result with its call, unanswered calls closed before the next user message)
holds for all of them.
"""

from __future__ import annotations

import itertools
from typing import Any

from cairn.agent.sessions.replay import (
    Answered,
    Attached,
    Called,
    Compacted,
    Other,
    Said,
    Thought,
    Unanswered,
    message_steps,
    replay_steps,
)
from cairn.models.messages import (
    CompactionPart,
    FilePart,
    GoalOpPart,
    Message,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)

_IDS = itertools.count(1)


def message(role: str, *parts: Any, **extra: Any) -> Message:
    fields = {"id": f"m{next(_IDS)}", "role": role, "parts": list(parts), **extra}
    return Message.model_validate(fields)


def call(call_id: str) -> ToolCallPart:
    return ToolCallPart(call_id=call_id, name="run_command", arguments={"command": "true"})


def result(call_id: str) -> ToolResultPart:
    return ToolResultPart(call_id=call_id, name="run_command", output="ok")


def test_each_part_is_one_step_named_for_what_it_is() -> None:
    said = message(
        "assistant",
        TextPart(text="hi"),
        ReasoningPart(text="hm"),
        FilePart(path="a.py", hash="h"),
        call("c1"),
        result("c1"),
        CompactionPart(kind="prune"),
        GoalOpPart(verb="add", text="x"),
    )
    kinds = [type(step) for step in message_steps(said)]
    assert kinds == [Said, Thought, Attached, Called, Answered, Compacted, Other]
    assert all(step.message is said for step in message_steps(said))


def test_results_meet_their_calls_and_unanswered_calls_close_before_the_next_prompt() -> None:
    first = message("user", TextPart(text="go"))
    asked = message("assistant", call("c1"), call("c2"), call("c3"))
    history = [
        first,
        asked,
        message("tool", result("c2")),
        message("assistant", TextPart(text="branch"), agent="0"),
        message("tool", result("nobody")),
        message("user", TextPart(text="stop")),
        message("assistant", call("c4")),
    ]
    steps = list(replay_steps(history))
    shape = [(type(s).__name__, getattr(s.part, "call_id", None)) for s in steps]
    assert shape == [
        ("Said", None),
        ("Called", "c1"),
        ("Called", "c2"),
        ("Called", "c3"),
        ("Answered", "c2"),
        ("Answered", "nobody"),
        ("Unanswered", "c1"),
        ("Unanswered", "c3"),
        ("Said", None),
        ("Called", "c4"),
        ("Unanswered", "c4"),
    ]
    answered = [s for s in steps if isinstance(s, Answered)]
    assert answered[0].call == asked.parts[1] and answered[1].call is None
    assert all(
        s.message is asked for s in steps if isinstance(s, Unanswered) and s.part.call_id != "c4"
    )
    assert "branch" not in [s.part.text for s in steps if isinstance(s, Said)]
