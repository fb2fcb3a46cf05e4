"""Source: the agent mode's rules (build / plan / review) and each mode's tool allowlist.

`MODE_TOOLS` is what the agent offers the model in each mode; the mode
block tells the model the same thing in words.
"""

from __future__ import annotations

from typing import Final

from cairn.context.blocks import Candidate, Count, section
from cairn.context.priorities import PRIORITY_MODE
from cairn.errors import InvalidRequestError
from cairn.settings import Mode

READ_TOOLS: Final = ["read_file", "list_dir", "glob", "grep", "find_code", "diagnostics"]
PLAN_TOOLS: Final = ["goal", "explore"]
WRITE_TOOLS: Final = ["edit_file", "run_command"]

MODE_TOOLS: Final[dict[Mode, list[str]]] = {
    "build": [*READ_TOOLS, *WRITE_TOOLS, *PLAN_TOOLS],
    "plan": [*READ_TOOLS, *PLAN_TOOLS],
    "review": [*READ_TOOLS, "goal"],
}

MODE_RULES: Final[dict[Mode, str]] = {
    "build": (
        "Build mode: implement the user's request. Read what you need, make the change with"
        " edit_file, run the project's tests or checks with run_command, and fix what they report."
    ),
    "plan": (
        "Plan mode: do not change any file and do not run commands. Investigate with the read"
        " tools (and explore for alternatives), then write a plan: goals with the goal tool and"
        " a short explanation of the approach, its risks and the files it touches."
    ),
    "review": (
        "Review mode: do not change any file and do not run commands. Read the diff and the files"
        " in play and report concrete problems (bugs, missing tests, unclear code) with file and"
        " line, most serious first. Say plainly when you find nothing wrong."
    ),
}


def mode_candidate(mode: Mode, count: Count) -> Candidate:
    """The mode section: its rules and the tools it allows."""
    if mode not in MODE_RULES:
        raise InvalidRequestError(f"unknown mode {mode!r}: use build, plan or review")
    body = f"{MODE_RULES[mode]}\nTools available in this mode: {', '.join(MODE_TOOLS[mode])}."
    return section("mode", PRIORITY_MODE, f"Mode: {mode}", body, count=count, ref=mode)
