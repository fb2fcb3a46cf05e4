"""`cairn demo`: the scripted agent on the bundled example project, offline, in seconds.

Copies `examples/demo/` (a small Python project whose interval-merging
function has a bug, with `AGENTS.md`, `cairn.toml` and the scripted replies
in `.cairn-demo/script.jsonl`) to a temporary folder (or `--keep DIR`) and
runs one turn there (a temporary folder is removed afterwards): the agent plans with goals, explores two suspects in
parallel, abandons a rewrite, patches the bug with `edit_file`, runs the
tests with an allow-listed `run_command`, and compacts its context on the
way (the demo's window is small). Then it prints the goal tree, the
compaction statistics and the final test result. Exit code 0 only when the
session's last test run passed.
"""

from __future__ import annotations

import asyncio
import shlex
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path

from cairn.agent.engine import Engine
from cairn.commands.run import TerminalListener
from cairn.compaction.ledger import tests_run
from cairn.errors import InvalidRequestError
from cairn.models.events import CompactionEvent
from cairn.models.summary import TestRecord
from cairn.resources import examples_dir
from cairn.settings import load_settings

DEMO_FOLDER = "demo"
SCRIPT = Path(".cairn-demo") / "script.jsonl"
# The script names the interpreter as this placeholder: the demo runs the tests with
# the Python that runs Cairn, which works without `python` on PATH or pytest installed.
PYTHON_PLACEHOLDER = "@PYTHON@"
TEST_ARGS = "-m unittest"
MESSAGE = "The tests of intervals.py fail. Find the bug and fix it, then run the tests."


def prepare(keep: Path | None) -> Path:
    """Copy the demo project where it will run, with the interpreter filled into the script."""
    target = keep.resolve() if keep is not None else Path(tempfile.mkdtemp(prefix="cairn-demo-"))
    if keep is not None and target.exists() and any(target.iterdir()):
        raise InvalidRequestError(f"--keep folder is not empty: {target}")
    shutil.copytree(examples_dir() / DEMO_FOLDER, target, dirs_exist_ok=True)
    script = target / SCRIPT
    python = shlex.quote(sys.executable).replace("\\", "\\\\").replace('"', '\\"')
    script.write_text(script.read_text(encoding="utf-8").replace(PYTHON_PLACEHOLDER, python))
    return target


def compaction_report(events: list[CompactionEvent]) -> list[str]:
    """One line per compaction kind: how many finished, and the tokens they freed."""
    done = [e for e in events if e.stage == "done"]
    lines: list[str] = []
    for kind, count in sorted(Counter(e.kind for e in done).items()):
        freed = sum(
            e.tokens_before - (e.tokens_after or e.tokens_before) for e in done if e.kind == kind
        )
        steps = ", ".join(f"{e.tokens_before}→{e.tokens_after}" for e in done if e.kind == kind)
        lines.append(f"  {kind}: {count} × (tokens {steps}; freed {freed})")
    failed = [e for e in events if e.stage == "failed"]
    if failed:
        lines.append(f"  not applied: {len(failed)} ({'; '.join(e.error or '' for e in failed)})")
    return lines or ["  none"]


def test_line(record: TestRecord | None) -> str:
    if record is None:
        return "final test run: none recorded"
    return f"final test run: {record.status} ({record.command})"


async def _session(engine: Engine) -> str:
    result = await engine.turn(MESSAGE)
    return result.session_id


def run_demo(keep: Path | None) -> None:
    """Run the demo session; exit 1 unless its last test run passed."""
    folder = prepare(keep)
    try:
        passed = _run(folder)
    finally:
        if keep is None:
            shutil.rmtree(folder, ignore_errors=True)
    if keep is None:
        sys.stdout.write(
            "(the demo workspace was temporary: use --keep DIR to keep it and its trace)\n"
        )
    if not passed:
        raise SystemExit(1)


def _run(folder: Path) -> bool:
    """Run the scripted session in `folder` and print its results; True when the tests passed."""
    command = f"{shlex.quote(sys.executable)} {TEST_ARGS}"
    settings = load_settings(folder, {"allowedCommands": [command]})
    listener = TerminalListener()
    engine = Engine([folder], settings, listener=listener)
    try:
        session_id = asyncio.run(_session(engine))
        view = engine.goal_tree(session_id)
        records = tests_run(engine.session(session_id).messages())
    finally:
        engine.close()
    out = sys.stdout
    out.write("\nGoal tree:\n" + view.rendered.rstrip() + "\n")
    out.write("\nCompaction:\n" + "\n".join(compaction_report(listener.compactions)) + "\n")
    last = records[-1] if records else None
    out.write("\n" + test_line(last) + "\n")
    out.write(f"workspace: {folder} · session {session_id}\n")
    return last is not None and last.status == "passed"
