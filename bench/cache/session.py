"""The scripted session of the cache bench: a workspace and the model's replies, seeded.

The workspace is a git repository holding a copy of this project's own
`server/cairn/` sources (real Python files of every size) as they were at
one fixed commit (`SOURCES_COMMIT`, read with `git archive`: the bench needs
the repository's history), an `AGENTS.md`,
and a tiny module with a unittest the session breaks and fixes. The
session is `turns` user turns; each adds three goals and works through
them: focus, read two to four source files (some with a line range), grep
now and then, and either break and fix `calc.py` with the test run after
each edit before `done`, or give up with `abandon`. Each turn ends with a
text answer. Compaction calls are answered with a JSON narrative.
Everything is decided by the seed and the pinned sources, so every run (and
every code version driven by it) sees the same workspace and replies. (The
sources were copied from the working tree until stop 24, so any change to
them, even a new module, changed which files the seeded session read and
moved the figures: 0.70× → 0.75× at 20k for a change that left the engine's
behaviour on the old workspace identical.)
"""

from __future__ import annotations

import io
import json
import random
import shutil
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.harness.paths import ROOT

# The commit whose `server/cairn/` the workspace copies (main at the end of stop 23).
SOURCES_COMMIT = "e7a13909d1ec79fab9aeb3c40bc7b7b03371a2ef"
SOURCES_PATH = "server/cairn"
TEST_COMMAND = "python3 -m unittest -q test_calc"
# Source files at least this large are read (smaller ones rarely matter to an agent).
MIN_READ_CHARS = 2_500
GOALS_PER_TURN = 3
RULES = """# Project rules

- Keep functions small and named for what they do; no abbreviations.
- Every behaviour change comes with a test; run `python3 -m unittest -q test_calc`.
- Never add third-party dependencies.
- Prefer plain data (dataclasses, pydantic models) over classes with hidden state.
"""
CALC = "def add(a, b):\n    return a + b  # rev 0\n"
TEST_CALC = (
    "import unittest\nfrom calc import add\n\n\n"
    "class T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 2), 4)\n"
)
USER_MESSAGES = (
    "Review the context pipeline and keep calc.add correct while you do it.",
    "Now look at how compaction decides what to keep; fix anything broken in calc.",
    "Check the agent's turn loop and its tools; make sure the tests still pass.",
    "Go through the repository map code and summarise its ranking.",
    "Look at the trace store and its crash safety; keep calc.add working.",
    "Read the language-server side and list what it exposes.",
    "Walk through the settings and the model runtime once more.",
    "Final pass: re-check what you changed and report.",
)


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


@dataclass
class Step:
    """One main-agent reply: text and/or tool calls."""

    text: str = ""
    tool_calls: list[dict[str, Any]] = field(default_factory=list)


def copy_sources(target: Path) -> None:
    """Write `SOURCES_PATH` as of `SOURCES_COMMIT` to `target` (a new folder)."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", SOURCES_COMMIT, SOURCES_PATH],
        capture_output=True,
        check=False,
    )
    if archive.returncode != 0:
        error = archive.stderr.decode(errors="replace").strip()
        raise RuntimeError(
            f"cache bench: cannot read {SOURCES_PATH} at commit {SOURCES_COMMIT[:12]} ({error});"
            " the bench needs the repository's history: run it in a full clone"
            " (`git fetch --unshallow` in a shallow one)"
        )
    with (
        tempfile.TemporaryDirectory() as tmp,
        tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar,
    ):
        tar.extractall(tmp, filter="data")
        shutil.move(str(Path(tmp) / SOURCES_PATH), target)


def make_workspace(folder: Path) -> list[str]:
    """Copy the pinned sources into `folder` (a fresh git repository); the readable files'
    paths."""
    copy_sources(folder / "cairn")
    (folder / "AGENTS.md").write_text(RULES)
    (folder / "calc.py").write_text(CALC)
    (folder / "test_calc.py").write_text(TEST_CALC)
    for args in (("init", "-q"), ("add", "-A"), ("commit", "-q", "-m", "start")):
        subprocess.run(
            ["git", "-c", "user.email=b@example.com", "-c", "user.name=b", *args],
            cwd=folder,
            check=True,
            capture_output=True,
        )
    return sorted(
        p.relative_to(folder).as_posix()
        for p in (folder / "cairn").rglob("*.py")
        if p.stat().st_size >= MIN_READ_CHARS
    )


@dataclass
class ScriptState:
    rng: random.Random
    files: list[str]
    next_goal: int = 1
    revision: int = 0
    steps: list[Step] = field(default_factory=list)

    def calc_line(self, op: str) -> str:
        return f"return a {op} b  # rev {self.revision}"

    def reads(self, count: int) -> None:
        for _ in range(count):
            path = self.rng.choice(self.files)
            if self.rng.random() < 0.25:
                start = self.rng.randint(1, 40)
                step = call("read_file", path=path, start_line=start, end_line=start + 60)
            else:
                step = call("read_file", path=path)
            self.steps.append(Step(tool_calls=[step]))
        if self.rng.random() < 0.3:
            word = self.rng.choice(["def assemble", "class ", "TOKENS", "return None", "async def"])
            self.steps.append(Step(tool_calls=[call("grep", pattern=word, path="cairn")]))

    def break_and_fix(self) -> None:
        good = self.calc_line("+")
        self.revision += 1
        bad = self.calc_line("-")
        self.steps.append(Step(tool_calls=[call("edit_file", path="calc.py", old=good, new=bad)]))
        self.steps.append(Step(tool_calls=[call("run_command", command=TEST_COMMAND)]))
        fixed = self.calc_line("+")
        self.steps.append(
            Step(
                text="The test fails: add subtracts. Fixing it.",
                tool_calls=[call("edit_file", path="calc.py", old=bad, new=fixed)],
            )
        )
        self.steps.append(Step(tool_calls=[call("run_command", command=TEST_COMMAND)]))

    def turn(self, index: int) -> None:
        first = self.next_goal
        names = ", ".join(f"Part {index + 1}.{n + 1}" for n in range(GOALS_PER_TURN))
        self.steps.append(Step(tool_calls=[call("goal", add=names)]))
        self.next_goal += GOALS_PER_TURN
        for offset in range(GOALS_PER_TURN):
            goal = str(first + offset)
            self.steps.append(Step(tool_calls=[call("goal", focus=goal)]))
            self.reads(self.rng.randint(2, 4))
            if offset == 1 and index % 2 == 1:
                reason = f"part {index + 1}.2 duplicates what part {index + 1}.1 covered"
                self.steps.append(Step(tool_calls=[call("goal", abandon=reason)]))
                continue
            if offset != 2:
                self.break_and_fix()
            summary = f"part {index + 1}.{offset + 1}: read the files; calc.add still correct"
            self.steps.append(Step(tool_calls=[call("goal", done=summary)]))
        self.steps.append(Step(text=f"Turn {index + 1} done: the parts are reviewed, tests pass."))


def build_script(files: list[str], turns: int, seed: int) -> list[list[Step]]:
    """The replies of each turn, in order."""
    state = ScriptState(random.Random(seed), files)
    out: list[list[Step]] = []
    for index in range(turns):
        state.steps = []
        state.turn(index)
        out.append(state.steps)
    return out


def narrative_reply() -> str:
    return json.dumps(
        {
            "objective": "review the code base while keeping calc.add correct",
            "confirmed_facts": ["calc.add is tested by test_calc", "the reviewed parts are done"],
            "decisions": [{"decision": "fix calc in place", "reason": "smallest change"}],
            "open_questions": [],
        }
    )
