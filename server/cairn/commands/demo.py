"""`cairn demo`: the scripted agent on the bundled example project, offline, in seconds.

Copies `examples/demo/` (a small Python project whose interval-merging
function has a bug, with `AGENTS.md`, `cairn.toml` and the scripted replies
in `.cairn-demo/script.jsonl`) to a temporary folder (or `--keep DIR`; a
temporary folder is removed afterwards) and runs three turns of one session
there. Turn 1: the agent runs the failing tests (shown ✗ with their exit
code) and reads the code, plans with goals, explores two suspects in
parallel (each branch's conclusion is printed), abandons a rewrite, patches
the bug with `edit_file` and runs the tests with an allow-listed
`run_command`; each finished goal is folded into its result line. Turns 2
and 3 are follow-ups that add tests for edge cases; by turn 3 the outputs
read before the plan are old enough to prune, and the history passes the
compaction threshold, so a summary is written (the demo's window is small,
see its `cairn.toml`). Then it prints the goal tree, the compaction report
(`cairn.commands.demo_report`: per turn and kind, what it freed and what the
context kept) and the final test result. Exit code 0 only when every turn
ended normally and the session's last test run passed.
"""

from __future__ import annotations

import asyncio
import shlex
import shutil
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from cairn.errors import InvalidRequestError
from cairn.resources import examples_dir

if TYPE_CHECKING:  # imported when used: the first line is printed before them (~2 s)
    from cairn.agent.engine import Engine
    from cairn.commands.run import TerminalListener
    from cairn.models.events import TurnResult
    from cairn.models.summary import TestRecord

DEMO_FOLDER = "demo"
SCRIPT = Path(".cairn-demo") / "script.jsonl"
# The script names the interpreter as this placeholder: the demo runs the tests with
# the Python that runs Cairn, which works without `python` on PATH or pytest installed.
PYTHON_PLACEHOLDER = "@PYTHON@"
TEST_ARGS = "-m unittest"
# The user's messages, one turn each: the fix, then two follow-ups in the same session.
MESSAGES = (
    "The tests of intervals.py fail. Find the bug and fix it, then run the tests.",
    "Add a test that touching intervals merge in any order, e.g. [(3, 5), (1, 3)].",
    "And with no intervals at all? Make sure a test covers it.",
)


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


def test_line(record: TestRecord | None) -> str:
    if record is None:
        return "final test run: none recorded"
    return f"final test run: {record.status} ({record.command})"


async def _session(engine: Engine, listener: TerminalListener) -> list[TurnResult]:
    """Run the demo's turns in one session, each message announced before its turn."""
    results: list[TurnResult] = []
    for number, message in enumerate(MESSAGES, start=1):
        listener.err.write(f"\n▶ turn {number}/{len(MESSAGES)}: {message}\n")
        session_id = results[-1].session_id if results else None
        results.append(await engine.turn(message, session_id=session_id))
    return results


def first_line(folder: Path) -> str:
    """What the demo prints before the engine is even imported."""
    return (
        f"cairn demo: {len(MESSAGES)} turns of a scripted session (no network, no API key)"
        f" on a copy of the example project in {folder}; loading the engine…\n"
    )


def run_demo(keep: Path | None) -> None:
    """Run the demo session; exit 1 unless its last test run passed."""
    folder = prepare(keep)
    sys.stderr.write(first_line(folder))
    sys.stderr.flush()
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
    from cairn.agent.engine import Engine
    from cairn.commands.demo_report import compaction_report
    from cairn.commands.run import TerminalListener
    from cairn.compaction.ledger import tests_run
    from cairn.files.settings_layers import load_settings

    command = f"{shlex.quote(sys.executable)} {TEST_ARGS}"
    # The example is Cairn's own bundled copy, not a folder the user opened: trusted, and run
    # as shipped (the user's config and CAIRN_MODEL would change its model and its budget).
    settings = load_settings(
        folder, {"allowedCommands": [command]}, trusted=True, user_settings=False
    )
    listener = TerminalListener()
    engine = Engine([folder], settings, listener=listener)
    try:
        results = asyncio.run(_session(engine, listener))
        session_id = results[-1].session_id
        view = engine.goal_tree(session_id)
        messages = engine.session(session_id).messages()
        records = tests_run(messages)
    finally:
        engine.close()
    out = sys.stdout
    out.write("\nGoal tree:\n" + view.rendered.rstrip() + "\n")
    report = compaction_report(messages, listener.compactions)
    out.write("\nCompaction (context tokens before→after):\n" + "\n".join(report) + "\n")
    last = records[-1] if records else None
    out.write("\n" + test_line(last) + "\n")
    out.write(f"workspace: {folder} · session {session_id}\n")
    stopped = all(r.finish_reason == "stop" for r in results)
    return stopped and last is not None and last.status == "passed"
