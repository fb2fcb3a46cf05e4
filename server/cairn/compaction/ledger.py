"""The summary's ledger: facts the trace knows exactly, read from the records.

Files read (with the content hash at read time), files changed (with the
patch artifact of each edit), test runs (command, status from the exit code,
output artifact) and finished goals are never left to the compaction model.
The agent writes the facts into `ToolResultPart.data` when it records a tool
result, under the keys below; this module only reads them back.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from cairn.compaction.markers import tool_results
from cairn.models.goals import Goal, GoalTree
from cairn.models.messages import Message, ToolResultPart
from cairn.models.summary import FileChanged, FileRead, GoalSummary, TestRecord

TestStatus = Literal["passed", "failed", "error", "unknown"]

READ_TOOL = "read_file"
EDIT_TOOL = "edit_file"
COMMAND_TOOL = "run_command"

KEY_PATH = "path"
KEY_HASH = "hash"
KEY_PATCH = "patch_artifact_id"
KEY_COMMAND = "command"
KEY_EXIT_CODE = "exit_code"
KEY_IS_TEST = "test"


def run_status(exit_code: int | None) -> TestStatus:
    """passed / failed from the exit code; error when the command did not finish."""
    if exit_code is None:
        return "error"
    return "passed" if exit_code == 0 else "failed"


@dataclass(frozen=True)
class Ledger:
    files_read: list[FileRead]
    files_changed: list[FileChanged]
    tests: list[TestRecord]
    goal_summaries: list[GoalSummary]


def _results(messages: Iterable[Message]) -> Iterable[ToolResultPart]:
    for message in messages:
        yield from tool_results(message)


def files_read(messages: Iterable[Message]) -> list[FileRead]:
    """Each file read, once per distinct content (path, hash), in reading order."""
    seen: set[tuple[str, str]] = set()
    out: list[FileRead] = []
    for part in _results(messages):
        data = part.data or {}
        if part.name != READ_TOOL or not part.ok or KEY_PATH not in data:
            continue
        key = (str(data[KEY_PATH]), str(data.get(KEY_HASH, "")))
        if key not in seen:
            seen.add(key)
            out.append(FileRead(path=key[0], hash=key[1]))
    return out


def files_changed(messages: Iterable[Message]) -> list[FileChanged]:
    """Every successful edit, in order, with the patch artifact it recorded."""
    out: list[FileChanged] = []
    for part in _results(messages):
        data = part.data or {}
        if part.name == EDIT_TOOL and part.ok and KEY_PATH in data:
            patch = data.get(KEY_PATCH)
            out.append(
                FileChanged(
                    path=str(data[KEY_PATH]), patch_artifact_id=str(patch) if patch else None
                )
            )
    return out


def tests_run(messages: Iterable[Message]) -> list[TestRecord]:
    """Every test command run, in order, with its status and output artifact."""
    out: list[TestRecord] = []
    for part in _results(messages):
        data = part.data or {}
        if part.name != COMMAND_TOOL or not data.get(KEY_IS_TEST):
            continue
        code = data.get(KEY_EXIT_CODE)
        status = run_status(code if isinstance(code, int) else None)
        out.append(
            TestRecord(
                command=str(data.get(KEY_COMMAND, "")),
                status=status,
                artifact_id=part.artifact_id,
            )
        )
    return out


def _walk(goals: Sequence[Goal]) -> Iterable[Goal]:
    for goal in goals:
        yield goal
        yield from _walk(goal.children)


def goal_summaries(tree: GoalTree) -> list[GoalSummary]:
    """Every completed or abandoned goal with its summary (or reason), in tree order."""
    out: list[GoalSummary] = []
    for goal in _walk(tree.goals):
        if goal.status in ("completed", "abandoned"):
            out.append(
                GoalSummary(
                    goal_id=goal.id,
                    description=goal.description,
                    status=goal.status,
                    summary=goal.summary or "",
                )
            )
    return out


def build_ledger(messages: Sequence[Message], tree: GoalTree) -> Ledger:
    """The ledger of `messages` (the ones a summary covers) and the goal tree."""
    return Ledger(
        files_read=files_read(messages),
        files_changed=files_changed(messages),
        tests=tests_run(messages),
        goal_summaries=goal_summaries(tree),
    )
