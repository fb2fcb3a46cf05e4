"""The scripted session of the context-quality bench: user turns, replies and planted facts.

`build_session(turns)` returns the user messages, the scripted model's
replies (main lane, then the compaction lane's narratives) and the facts
planted by the user or the goal tool (`Planted`). The session works on the
`bench/quality/workspace.py` project: every turn adds goals and works
through them (focus, read modules, grep, edit with an exact `old`, run the
real unittest suites, regenerate fixtures), finishing each goal with a
summary or abandoning it with a reason; a test is broken and fixed now and
then, and the last turn leaves one suite failing (so a context that says
"passed" is wrong). Turns without an explicit task re-read the large filler
modules, which is what fills the window.

Variants (`VARIANTS`): the session as described (`base`); the same on the
`large-reads` project (`workspace.LARGE_READS`: two of the tool facts only in
comments inside the 17–18 KB modules read in turn 1); and `nested-follow-up`,
whose last turn (editing `pkg_x/export.py`, under `pkg_x/AGENTS.md`) is
followed by one more that edits there again without reading anything there
first ("also fix the docstring"), so its first calls need the folder's rules
from the turn before.

Planted here (markers are unique words, see `workspace`):
- constraints: sentences of some user messages (`CONSTRAINT-…`);
- goals: every `done` summary (`GOAL-DONE-…`) and `abandon` reason
  (`GOAL-ABANDON-…`);
- the compaction narratives: the first restates the tool-output facts
  (`TOOL_FACTS`); later ones restate nothing planted, like a summarizer
  that forgets, so a fact survives only if Cairn carries it. The scripted
  summarizer cannot read its input: `measure` checks that every fact a
  narrative restates was in the request that narrative answered, and counts
  one that was not as lost.
Ledger facts (files changed, test statuses, other commands) are read back
from the trace afterwards (`facts.ledger_facts`), not planted here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from bench.quality.workspace import (
    BASE,
    GEN_SEED_7,
    GEN_SEED_11,
    LARGE_READS,
    TEST_A,
    TEST_X,
    TOOL_FACTS,
    note_path,
    project_files,
)

PlantedKind = Literal["constraint", "goal"]
NESTED_FOLLOW_UP = "nested-follow-up"
VARIANTS = (BASE, LARGE_READS, NESTED_FOLLOW_UP)
FILLERS = ("pkg_a/normalize.py", "pkg_b/render.py", "pkg_b/layout.py", "pkg_x/encode.py")
# Notes read by a question turn, and the stride between them (so they differ per turn).
QUESTION_READS = 1
NOTES_STRIDE = 3
# Filler reads per plain turn (each ~2.5k tokens) after its own work.
FILLER_READS = 6
PARSE_GOOD = "return key.strip(), value.strip()"
PARSE_BAD = "return key.strip(), value"
EXPORT_GOOD = "return \",\".join('\"' + record[key] + '\"' for key in sorted(record))"
EXPORT_BAD = 'return ",".join(record[key] for key in sorted(record))'

CONSTRAINTS = {
    0: "CONSTRAINT-NODEPS-1: never add third-party dependencies.",
    2: "CONSTRAINT-PY39-3: the code must keep running on Python 3.9 (no match statements).",
    6: "CONSTRAINT-LOGGER-7: pkg_b reports errors through logging, never by raising.",
    10: "CONSTRAINT-KEEPAPI-11: keep the public names of pkg_x/export.py unchanged.",
}


@dataclass(frozen=True)
class Planted:
    """A fact the session plants: its kind, marker, and the user turn it is planted in."""

    kind: PlantedKind
    marker: str
    turn: int


@dataclass
class Builder:
    """Accumulates one session: replies, planted facts, the files' current text."""

    files: dict[str, str] = field(default_factory=project_files)
    replies: list[list[dict[str, Any]]] = field(default_factory=list)
    planted: list[Planted] = field(default_factory=list)
    next_goal: int = 1
    turn: int = 0
    revision: int = 0

    def step(self, text: str = "", *calls: dict[str, Any]) -> None:
        line: dict[str, Any] = {"text": text}
        if calls:
            line["toolCalls"] = list(calls)
        self.replies[-1].append(line)

    def tool(self, name: str, **arguments: Any) -> None:
        self.step("", {"name": name, "arguments": arguments})

    def goals(self, *names: str) -> int:
        """Add top-level goals; the id of the first."""
        first = self.next_goal
        self.tool("goal", add=", ".join(names))
        self.next_goal += len(names)
        return first

    def done(self, goal: int, what: str) -> None:
        marker = f"GOAL-DONE-{goal}-T{self.turn + 1}"
        self.tool("goal", done=f"{marker}: {what}")
        self.planted.append(Planted("goal", marker, self.turn))

    def abandon(self, goal: int, why: str) -> None:
        marker = f"GOAL-ABANDON-{goal}-T{self.turn + 1}"
        self.tool("goal", abandon=f"{marker}: {why}")
        self.planted.append(Planted("goal", marker, self.turn))

    def edit(self, path: str, old: str, new: str) -> None:
        text = self.files[path]
        if text.count(old) != 1:
            raise ValueError(f"bench script: {old!r} is not once in {path}")
        self.files[path] = text.replace(old, new)
        self.tool("edit_file", path=path, old=old, new=new)

    def write(self, path: str, text: str) -> None:
        self.files[path] = text
        self.tool("edit_file", path=path, new=text)

    def note(self, path: str, anchor: str) -> None:
        """An edit that appends a revision comment to the unique line `anchor`."""
        self.revision += 1
        line = next(x for x in self.files[path].splitlines() if anchor in x)
        self.edit(path, line, f"{line}  # rev {self.revision}")

    def notes(self) -> None:
        """Read this turn's design note before any goal (outside goals, so prune meets it)."""
        self.tool("read_file", path=note_path(self.turn))

    def fillers(self, count: int, start: int = 0) -> None:
        for index in range(count):
            self.tool("read_file", path=FILLERS[(start + index) % len(FILLERS)])


def _turn_survey(b: Builder) -> None:
    first = b.goals("Survey the parser", "Survey reporting and export")
    b.tool("goal", focus=str(first))
    b.tool("read_file", path="pkg_a/tokenizer.py")
    b.tool("read_file", path="pkg_a/parse.py")
    b.tool("run_command", command=TEST_A)
    b.done(first, "parse.py splits on the first '='; tests pass")
    b.tool("goal", focus=str(first + 1))
    b.tool("read_file", path="pkg_b/config.py")
    b.tool("run_command", command=GEN_SEED_7)
    b.tool("grep", pattern="LEGACY_FLAG", path="pkg_x")
    b.done(first + 1, "report.py builds on parse_records; export quotes fields")
    b.step("Surveyed: parser, reporting, export, fixtures.")


def _turn_strict(b: Builder) -> None:
    first = b.goals("Strip values in parse_line", "Cover comments in tests")
    b.tool("goal", focus=str(first))
    b.edit("pkg_a/parse.py", PARSE_GOOD, PARSE_BAD)
    b.tool("run_command", command=TEST_A)
    b.edit("pkg_a/parse.py", PARSE_BAD, PARSE_GOOD)
    b.tool("run_command", command=TEST_A)
    b.done(first, "values are stripped again; test_parse passes")
    b.tool("goal", focus=str(first + 1))
    b.fillers(2)
    b.done(first + 1, "comment lines are already covered by test_records_skip_comments")
    b.step("parse_line strips values; tests pass.")


def _turn_regex(b: Builder) -> None:
    first = b.goals("Parse with a regex", "Keep partition parsing")
    b.tool("goal", focus=str(first))
    b.fillers(2, 1)
    b.abandon(first, "a regex breaks on values that contain '=' themselves")
    b.tool("goal", focus=str(first + 1))
    b.note("pkg_a/normalize.py", "def normalize_step_0(")
    b.tool("run_command", command=TEST_A)
    b.done(first + 1, "partition stays; normalize_step_0 documented")
    b.step("Kept the partition parser.")


def _turn_export(b: Builder) -> None:
    first = b.goals("Review the exporter", "Regenerate bigger fixtures")
    b.tool("goal", focus=str(first))
    b.tool("read_file", path="pkg_x/export.py")
    b.tool("read_file", path="pkg_x/encode.py")
    b.fillers(2, 3)
    b.note("pkg_x/export.py", "def export_rows(")
    b.tool("run_command", command=TEST_X)
    b.done(first, "export_rows reviewed; test_export passes")
    b.tool("goal", focus=str(first + 1))
    b.tool("run_command", command=GEN_SEED_11)
    b.done(first + 1, "40-row fixtures for seed 11 written")
    b.step("Exporter reviewed, fixtures regenerated.")


def _turn_report(b: Builder) -> None:
    first = b.goals("Tidy the report summary", "Document the changes")
    b.tool("goal", focus=str(first))
    b.tool("read_file", path="pkg_b/report.py")
    b.fillers(2, 2)
    b.note("pkg_b/report.py", "def summary(")
    b.tool("run_command", command=TEST_A)
    b.done(first, "summary() tidied; tests pass")
    b.tool("goal", focus=str(first + 1))
    b.write("docs/CHANGES.md", "# Changes\n\n- parse_line strips values.\n- summary() tidied.\n")
    b.done(first + 1, "docs/CHANGES.md lists the changes")
    b.step("Report tidied and changes documented.")


def _turn_break_export(b: Builder) -> None:
    first = b.goals("Try unquoted CSV", "Restore quoting")
    b.tool("goal", focus=str(first))
    b.edit("pkg_x/export.py", EXPORT_GOOD, EXPORT_BAD)
    b.tool("run_command", command=TEST_X)
    b.abandon(first, "unquoted CSV breaks every consumer that splits on commas")
    b.tool("goal", focus=str(first + 1))
    b.edit("pkg_x/export.py", EXPORT_BAD, EXPORT_GOOD)
    b.tool("run_command", command=TEST_X)
    b.done(first + 1, "quoting restored; test_export passes")
    b.step("Unquoted CSV rejected; quoting restored.")


def _turn_reading(b: Builder) -> None:
    first = b.goals(f"Read pass {b.turn + 1}")
    b.tool("goal", focus=str(first))
    b.fillers(FILLER_READS, b.turn)
    b.note("pkg_b/layout.py", f"def layout_step_{b.turn}(")
    b.done(first, f"read pass {b.turn + 1}: layout_step_{b.turn} documented")
    b.step(f"Read pass {b.turn + 1} done.")


def _turn_questions(b: Builder) -> None:
    """A light turn outside any goal: read more design notes, answer."""
    for offset in range(1, QUESTION_READS + 1):
        b.tool("read_file", path=note_path(b.turn + offset * NOTES_STRIDE))
    b.step(f"The notes of turn {b.turn + 1} agree: records are exported in order.")


EXPORT_DOC = "every field quoted."
EXPORT_DOC_NOW = "fields unquoted."


def _turn_follow_up(b: Builder) -> None:
    """Edit pkg_x again straight away (its text is known from the turn before), test, answer."""
    b.edit("pkg_x/export.py", EXPORT_DOC, EXPORT_DOC_NOW)
    b.tool("run_command", command=TEST_X)
    b.step("The docstring says fields are unquoted; test_export still fails as expected.")


def _turn_final(b: Builder) -> None:
    first = b.goals("Export without quotes as the user asks")
    b.tool("goal", focus=str(first))
    b.tool("read_file", path="pkg_x/export.py")
    b.edit("pkg_x/export.py", EXPORT_GOOD, EXPORT_BAD)
    b.tool("run_command", command=TEST_X)
    b.fillers(1)
    b.done(first, "fields are unquoted; test_export now fails as expected")
    b.step("Done; test_export fails until its expectation is updated.")


TURNS = (
    ("Survey the project: parser, reports, export, fixtures.", _turn_survey),
    ("Make sure parse_line strips values, with tests.", _turn_strict),
    ("What do the design notes say about export order?", _turn_questions),
    ("Should we parse with a regex instead?", _turn_regex),
    ("And about block sizes?", _turn_questions),
    ("Review pkg_x's exporter and regenerate 40-row fixtures.", _turn_export),
    ("Tidy the report summary and write down what changed.", _turn_report),
    ("What do the notes say about batch order?", _turn_questions),
    ("And about the exporter's row counts?", _turn_questions),
    ("Which batches are exported first?", _turn_questions),
    ("Do the notes mention block boundaries?", _turn_questions),
    ("Anything about retries in the notes?", _turn_questions),
    ("And about the parser's limits?", _turn_questions),
    ("Try exporting CSV without quotes.", _turn_break_export),
    ("Read through the helpers again.", _turn_reading),
    ("Another pass over the helpers, please.", _turn_reading),
    ("One more pass over the helpers.", _turn_reading),
    ("A last pass over the helpers.", _turn_reading),
    ("Export without quotes after all; leave the failing test for me.", _turn_final),
)
FOLLOW_UP = ("Also make export_row's docstring say the fields are unquoted.", _turn_follow_up)


def narratives(count: int) -> list[dict[str, Any]]:
    """The compaction lane: the first restates the tool facts, the rest restate nothing planted."""
    out: list[dict[str, Any]] = []
    for index in range(count):
        facts = [f.sentence for f in TOOL_FACTS] if index == 0 else [f"compaction {index + 1}"]
        body = {
            "objective": "Improve the recs project as the user asks, turn by turn.",
            "confirmed_facts": facts,
            "decisions": [{"decision": "work goal by goal", "reason": "the user's order"}],
            "open_questions": [],
        }
        out.append({"agent": "compaction", "text": json.dumps(body)})
    return out


@dataclass(frozen=True)
class Session:
    """A built session: what the user says per turn, the script lines, the planted facts."""

    users: list[str]
    lines: list[dict[str, Any]]
    planted: list[Planted]
    main_calls: int
    variant: str = BASE

    @property
    def project(self) -> str:
        """The project variant the session works on (`workspace.project_files`)."""
        return LARGE_READS if self.variant == LARGE_READS else BASE


# Narratives provided (more compactions than this get an empty narrative).
NARRATIVES = 16


def build_session(turns: int = len(TURNS), variant: str = BASE) -> Session:
    """The first `turns` turns of the session (`turns` ≥ 1) in `variant` (`VARIANTS`; the
    follow-up turn comes after the last of them)."""
    if not 1 <= turns <= len(TURNS):
        raise ValueError(f"turns must be 1..{len(TURNS)}, got {turns}")
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {', '.join(VARIANTS)}, got {variant!r}")
    b = Builder(files=project_files(LARGE_READS if variant == LARGE_READS else BASE))
    users: list[str] = []
    plan = [*TURNS[:turns], *([FOLLOW_UP] if variant == NESTED_FOLLOW_UP else [])]
    for index, (message, make) in enumerate(plan):
        b.turn = index
        b.replies.append([])
        constraint = CONSTRAINTS.get(index)
        if constraint is not None:
            b.planted.append(Planted("constraint", constraint.split(":")[0], index))
            message = f"{message} {constraint}"
        users.append(message)
        b.notes()
        make(b)
    lines = [line for turn in b.replies for line in turn]
    return Session(users, [*lines, *narratives(NARRATIVES)], b.planted, len(lines), variant)
