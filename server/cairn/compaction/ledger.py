"""The ledger: facts the trace knows exactly, read from the records (one definition).

Files read (with the content hash at read time and the artifact holding what
the read returned), files changed (with the patch artifact of each edit),
commands run (command, exit code, whether it is a test run, output artifact,
the user turn it ran in and when), test runs (status from the exit code) and
finished goals are never left to the compaction model. Two runs are of the
same command when their words are (`cairn.files.commands.command_key`:
spacing and quoting do not matter). The agent writes the
facts into `ToolResultPart.data` when it records a tool result, under the
keys below; this module only reads them back. The same facts feed the
summary's ledger fields and the ledger block of every call
(`cairn.context.sources.ledger`), which also lists the questions the user
asked that no finished reply has followed yet (`open_questions`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from cairn.compaction.markers import compaction_parts, tool_results
from cairn.files.commands import command_key
from cairn.models.goals import Goal, GoalTree
from cairn.models.messages import Message, ToolCallPart, ToolResultPart
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
KEY_TIMED_OUT = "timed_out"

# Where a sentence of a user message ends; one ended by "?" asks something. Found by a
# single scan (a pattern like `[^.!?\n]*\?` retried at each position is quadratic on a
# long line without an end, e.g. a pasted base64 blob).
SENTENCE_END = re.compile(r"[.!?\n]")
QUESTION_END = "?"
# Shorter questions than this ("?", "ok?") are not worth carrying.
MIN_QUESTION_CHARS = 8


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
            out.append(FileRead(path=key[0], hash=key[1], artifact_id=part.artifact_id))
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


@dataclass(frozen=True)
class CommandRun:
    """One `run_command` call as recorded: its exit code (None: did not finish), the user
    turn it ran in (1: the session's first user message) and when its result was recorded."""

    command: str
    exit_code: int | None
    test: bool
    timed_out: bool = False
    artifact_id: str | None = None
    turn: int = 0
    at: datetime | None = None

    @property
    def status(self) -> TestStatus:
        return run_status(self.exit_code)

    @property
    def key(self) -> str:
        return command_key(self.command)


def user_turns(messages: Iterable[Message]) -> int:
    """How many user turns `messages` hold (the number of the current one)."""
    return sum(1 for m in messages if is_user_words(m))


def commands_run(messages: Iterable[Message]) -> list[CommandRun]:
    """Every command run (tests or not), in order."""
    out: list[CommandRun] = []
    turn = 0
    for message in messages:
        turn += is_user_words(message)
        for part in tool_results(message):
            data = part.data or {}
            if part.name != COMMAND_TOOL or KEY_COMMAND not in data:
                continue
            code = data.get(KEY_EXIT_CODE)
            out.append(
                CommandRun(
                    command=str(data[KEY_COMMAND]),
                    exit_code=code if isinstance(code, int) else None,
                    test=bool(data.get(KEY_IS_TEST)),
                    timed_out=bool(data.get(KEY_TIMED_OUT)),
                    artifact_id=part.artifact_id,
                    turn=turn,
                    at=message.created_at,
                )
            )
    return out


def last_runs(runs: Iterable[CommandRun]) -> list[CommandRun]:
    """The last run of each distinct command (`command_key`), in the order of those last
    runs: a repeated command moves to the end instead of taking another place."""
    last: dict[str, CommandRun] = {}
    for run in runs:
        last.pop(run.key, None)
        last[run.key] = run
    return list(last.values())


def _questions(text: str) -> list[str]:
    """The sentences of `text` that end with a question mark (linear in its length)."""
    found: list[str] = []
    start = 0
    for end in SENTENCE_END.finditer(text):
        if end.group() == QUESTION_END:
            found.append(" ".join(text[start : end.end()].split()))
        start = end.end()
    return [q for q in found if len(q) >= MIN_QUESTION_CHARS]


def is_user_words(message: Message) -> bool:
    return message.role == "user" and not compaction_parts(message) and bool(message.text())


def _answers(message: Message) -> bool:
    """An assistant reply that ends a step without tool calls: the turn's answer."""
    return (
        message.role == "assistant"
        and bool(message.text().strip())
        and not any(isinstance(p, ToolCallPart) for p in message.parts)
    )


def open_questions(messages: Sequence[Message]) -> list[str]:
    """Questions the user asked that no finished reply followed yet, oldest first.

    A question counts as answered once the assistant gave a reply without tool
    calls in the same turn (or, for records without turns, before the next user
    message); a turn that was cancelled, failed or hit its step limit leaves its
    questions open.
    """
    out: list[str] = []
    for index, message in enumerate(messages):
        if not is_user_words(message):
            continue
        asked = _questions(message.text())
        if asked and not _answered(messages, index):
            out += [q for q in asked if q not in out]
    return out


def _answered(messages: Sequence[Message], index: int) -> bool:
    turn = messages[index].turn_id
    for later in messages[index + 1 :]:
        if turn is None and is_user_words(later):
            return False
        if turn is not None and later.turn_id not in (turn, None) and is_user_words(later):
            return False
        if _answers(later) and (turn is None or later.turn_id in (turn, None)):
            return True
    return False


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
