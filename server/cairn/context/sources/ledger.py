"""Source: the ledger — the session's work so far, from the records, in every call.

A small deterministic block rebuilt from every recorded message of the
session (covered by a summary or a goal fold or not), so neither compaction
nor a fold can hide it: the last run of every distinct command the session
ran (`cairn.files.commands.command_key`: the same words, whatever the
spacing or quoting), one line each with its status or exit code, the user
turn it ran in and its output artifact, grouped as tests, builds (and
checks) and other commands — never dropped while the session lives, and a
test run that a later, broader one covers (the full suite after a focused
run of one of its files) saying so; the files changed this session with
their last patch artifact and number of edits; and the questions the user
asked that no finished reply has followed yet. The facts come from
`cairn.compaction.ledger` (the one reader of `ToolResultPart.data`); this
module only renders them.

It is required (never dropped) and lives in the tail (`cairn.context.zones`):
it changes whenever a command runs or a file is edited, and in the tail a
change costs only its own tokens, where anywhere in the cached prefix it
would re-write the cache from that point on.
"""

from __future__ import annotations

from collections.abc import Sequence

from cairn.compaction.ledger import (
    CommandRun,
    commands_run,
    files_changed,
    last_runs,
    open_questions,
    user_turns,
)
from cairn.context.blocks import Candidate, Count, section
from cairn.context.priorities import PRIORITY_LEDGER
from cairn.files.commands import covers, is_build_command
from cairn.models.messages import Message
from cairn.models.summary import FileChanged

LEDGER_TITLE = "# Ledger"
LEDGER_REF = "ledger"
COMMANDS_TITLE = "Commands, the last run of each (now turn {now})"
GROUP_TITLES = ("Tests", "Builds and checks", "Other commands")
# Bounds that keep the block small in any session (commands are never left out).
MAX_FILES = 30
MAX_QUESTIONS = 5
MAX_ITEM_CHARS = 200


def clip(text: str, limit: int = MAX_ITEM_CHARS) -> str:
    """One line of at most `limit` characters (whitespace folded, an ellipsis when cut)."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def _outcome(run: CommandRun) -> str:
    """A test's status word, or another command's exit."""
    if run.timed_out:
        return "ERROR (timed out)" if run.test else "timed out"
    if run.exit_code is None:
        return "ERROR (did not finish)" if run.test else "did not finish"
    return run.status.upper() if run.test else f"exit {run.exit_code}"


def superseding(runs: Sequence[CommandRun]) -> dict[str, CommandRun]:
    """For each test command's last run, the latest later test run that covers it, by key."""
    out: dict[str, CommandRun] = {}
    for index, narrow in enumerate(runs):
        if not narrow.test:
            continue
        later = [r for r in runs[index + 1 :] if r.test and covers(r.command, narrow.command)]
        if later:
            out[narrow.key] = later[-1]
    return out


def run_line(run: CommandRun, superseded_by: CommandRun | None = None) -> str:
    """One command's line: its last run's status, turn, output artifact, and the broader
    run that superseded it."""
    notes = [f"turn {run.turn}"]
    if run.artifact_id:
        notes.append(f"output artifact {run.artifact_id}")
    line = f"- {clip(run.command)}: {_outcome(run)} ({', '.join(notes)})"
    if superseded_by is not None:
        line += (
            f"; superseded by the later run of {clip(superseded_by.command)}"
            f" (turn {superseded_by.turn})"
        )
    return line


def _group(run: CommandRun) -> int:
    if run.test:
        return 0
    return 1 if is_build_command(run.command) else 2


def command_lines(runs: Sequence[CommandRun], now: int) -> list[str]:
    """Every distinct command once, its last run, grouped (tests, builds, others), the
    order of those last runs within a group (newest last)."""
    distinct = last_runs(runs)
    if not distinct:
        return []
    later = superseding(distinct)
    lines = [COMMANDS_TITLE.format(now=now) + ":"]
    for group, title in enumerate(GROUP_TITLES):
        shown = [run_line(r, later.get(r.key)) for r in distinct if _group(r) == group]
        if shown:
            lines += [f"{title}:", *shown]
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
    body = [
        *command_lines(commands_run(messages), user_turns(messages)),
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
