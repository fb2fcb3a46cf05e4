"""Source: the ledger — the session's work so far, from the records, in every call.

A small deterministic block rebuilt from every recorded message of the
session (covered by a summary or a goal fold or not), so neither compaction
nor a fold can hide it: the last status of each test command, the last run
of each recent distinct command with its exit code (tests or not: a command
repeated many times, like the test suite, takes one line, so a one-off such
as a fixture generator is not pushed out by it), the files changed this
session with their last patch artifact and number of edits, and the
questions the user asked that no finished reply has followed yet. The facts come from
`cairn.compaction.ledger` (the one reader of `ToolResultPart.data`); this
module only renders them, each list bounded so the block stays small
whatever the session's length.

It is required (never dropped) and lives in the tail (`cairn.context.zones`):
it changes whenever a command runs or a file is edited, and in the tail a
change costs only its own tokens, where anywhere in the cached prefix it
would re-write the cache from that point on.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from cairn.compaction.ledger import (
    CommandRun,
    commands_run,
    files_changed,
    last_test_status,
    open_questions,
)
from cairn.context.blocks import Candidate, Count, section
from cairn.context.priorities import PRIORITY_LEDGER
from cairn.models.messages import Message
from cairn.models.summary import FileChanged, TestRecord

LEDGER_TITLE = "# Ledger"
LEDGER_REF = "ledger"
# Bounds that keep the block small in any session.
MAX_TESTS = 8
MAX_RECENT_COMMANDS = 8
MAX_FILES = 30
MAX_QUESTIONS = 5
MAX_ITEM_CHARS = 200


def clip(text: str, limit: int = MAX_ITEM_CHARS) -> str:
    """One line of at most `limit` characters (whitespace folded, an ellipsis when cut)."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def _exit(run: CommandRun) -> str:
    if run.timed_out:
        return "timed out"
    return "did not finish" if run.exit_code is None else f"exit {run.exit_code}"


def test_lines(tests: Sequence[TestRecord]) -> list[str]:
    shown = tests[-MAX_TESTS:]
    lines = [
        f"- {clip(t.command)}: {t.status.upper()}"
        + (f" (output artifact {t.artifact_id})" if t.artifact_id else "")
        for t in shown
    ]
    if len(tests) > len(shown):
        lines.insert(0, f"- ({len(tests) - len(shown)} other test commands not shown)")
    return lines


def last_runs(runs: Sequence[CommandRun]) -> list[CommandRun]:
    """The last run of each distinct command (whitespace folded), in the order of those
    last runs: a repeated command moves to the end instead of filling the list."""
    last: dict[str, CommandRun] = {}
    for run in runs:
        key = " ".join(run.command.split())
        last.pop(key, None)
        last[key] = run
    return list(last.values())


def command_lines(runs: Sequence[CommandRun], listed: Collection[str] = ()) -> list[str]:
    """One line per recent distinct command; an output artifact already `listed` (a test
    status line above names it) is not repeated: the block is re-sent on every call."""
    distinct = last_runs(runs)
    lines = [
        f"- {clip(r.command)} → {_exit(r)}"
        + (" [test]" if r.test else "")
        + (
            f" (output artifact {r.artifact_id})"
            if r.artifact_id and r.artifact_id not in listed
            else ""
        )
        for r in distinct[-MAX_RECENT_COMMANDS:]
    ]
    if len(distinct) > MAX_RECENT_COMMANDS:
        lines.insert(0, f"- ({len(distinct) - MAX_RECENT_COMMANDS} earlier commands not shown)")
    return lines


def _patch_note(ids: Sequence[str]) -> str:
    """What a changed file's line says about its patches: the last one, and how many edits."""
    if not ids:
        return ""
    if len(ids) == 1:
        return f" (patch artifact {ids[0]})"
    return f" ({len(ids)} edits; last patch artifact {ids[-1]})"


def file_lines(changed: Sequence[FileChanged]) -> list[str]:
    """One line per changed file (first change first) with its latest patch artifact: the
    diff shows what differs from HEAD now, and the last patch what the last edit did."""
    patches: dict[str, list[str]] = {}
    for change in changed:
        ids = patches.setdefault(change.path, [])
        if change.patch_artifact_id:
            ids.append(change.patch_artifact_id)
    paths = list(patches)
    lines = [f"- {path}{_patch_note(patches[path])}" for path in paths[-MAX_FILES:]]
    if len(paths) > MAX_FILES:
        lines.insert(0, f"- ({len(paths) - MAX_FILES} earlier files not shown; see the diff)")
    return lines


def _section(title: str, lines: list[str]) -> list[str]:
    return [f"{title}:", *lines] if lines else []


def render_ledger(messages: Sequence[Message]) -> str:
    """The ledger text of `messages` ('' when the session has no such facts yet)."""
    tests = last_test_status(messages)
    listed = {t.artifact_id for t in tests[-MAX_TESTS:] if t.artifact_id}
    body = [
        *_section("Last status of each test command", test_lines(tests)),
        *_section(
            "Recent commands, the last run of each (newest last)",
            command_lines(commands_run(messages), listed),
        ),
        *_section("Files changed this session", file_lines(files_changed(messages))),
        *_section(
            "Open questions from the user",
            [f"- {clip(q)}" for q in open_questions(messages)[-MAX_QUESTIONS:]],
        ),
    ]
    return "\n".join([LEDGER_TITLE, *body]) if body else ""


def ledger_candidate(messages: Sequence[Message], count: Count) -> Candidate | None:
    """The required ledger block of `messages`, or None when there is nothing to show."""
    text = render_ledger(messages)
    if not text:
        return None
    return section(
        "ledger", PRIORITY_LEDGER, None, text, count=count, ref=LEDGER_REF, required=True
    )
