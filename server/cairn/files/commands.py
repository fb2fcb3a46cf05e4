"""Shell commands the agent may run: which ones run a test suite, and where a project says so.

`is_test_command` tells a test run from any other command (a known suite's
command, or one starting with a test runner of `TEST_RUNNERS`); the summary's
ledger records test runs with it. `markdown_test_commands` finds the test
commands a rules file (`AGENTS.md`) tells the agent to run — in code spans
and fenced blocks — so the profile lists the same commands the agent is told
to use, and the default allowlist runs them without asking. A command with a
shell operator (`pytest -q; touch X`) is not listed: an allowlist entry is
an argv pattern (`cairn.models.shell_words`), and such a command is none.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Collection

from markdown_it import MarkdownIt

from cairn.models.shell_words import entry_problem

# A shell prompt in front of a command in a fenced block ("$ pytest -q").
PROMPT = re.compile(r"^\s*[$>]\s+")

# `python`, `python3`, `python3.11` (any path): all count as "python" for TEST_RUNNERS.
PYTHON_PROGRAM = re.compile(r"python[0-9.]*")

# Programs (first words of a command) that run a test suite.
TEST_RUNNERS: tuple[tuple[str, ...], ...] = (
    ("pytest",),
    ("py.test",),
    ("tox",),
    ("nox",),
    ("python", "-m", "pytest"),
    ("python", "-m", "unittest"),
    ("npm", "test"),
    ("npm", "run", "test"),
    ("yarn", "test"),
    ("pnpm", "test"),
    ("go", "test"),
    ("cargo", "test"),
    ("make", "test"),
    ("jest",),
    ("vitest",),
)


def is_test_command(command: str, known: Collection[str] = ()) -> bool:
    """True for a known test-suite command or a command starting with a test runner."""
    if command.strip() in {k.strip() for k in known}:
        return True
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    if words:
        program = words[0].rsplit("/", 1)[-1]
        words[0] = "python" if PYTHON_PROGRAM.fullmatch(program) else program
    return any(tuple(words[: len(runner)]) == runner for runner in TEST_RUNNERS)


def _code_texts(text: str) -> list[str]:
    """The contents of the fenced/indented code blocks and inline code spans."""
    found: list[str] = []
    for token in MarkdownIt().parse(text):
        if token.type in ("fence", "code_block"):
            found.extend(token.content.splitlines())
        for child in token.children or ():
            if child.type == "code_inline":
                found.append(child.content)
    return found


def markdown_test_commands(text: str) -> list[str]:
    """The test commands of a Markdown document, in order, each once (those that are no
    argv pattern, such as one with a shell operator, left out)."""
    commands: list[str] = []
    for line in _code_texts(text):
        command = PROMPT.sub("", line).strip()
        if (
            command
            and not command.startswith("#")
            and is_test_command(command)
            and entry_problem(command) is None
        ):
            commands.append(command)
    return list(dict.fromkeys(commands))
