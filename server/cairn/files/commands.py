"""Shell commands the agent may run: which run tests or builds, and where a project says so.

`is_test_command` tells a test run from any other command (a known suite's
command, or one starting with a test runner of `TEST_RUNNERS`); the summary's
ledger records test runs with it, and `is_build_command` tells builds, type
checks and linters (`BUILD_RUNNERS`) from other commands. `command_key` is
what two runs of "the same command" share (its words as the shell splits
them: spacing and quoting do not matter), and `covers` whether one test run
includes another (the full suite after a focused run of one of its files). `markdown_test_commands` finds the test
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


# Programs (first words of a command) that build, type-check or lint a project.
BUILD_RUNNERS: tuple[tuple[str, ...], ...] = (
    ("make",),
    ("cmake",),
    ("ninja",),
    ("npm", "run", "build"),
    ("npm", "run", "lint"),
    ("npm", "run", "typecheck"),
    ("yarn", "build"),
    ("pnpm", "build"),
    ("tsc",),
    ("cargo", "build"),
    ("cargo", "check"),
    ("cargo", "clippy"),
    ("go", "build"),
    ("go", "vet"),
    ("mvn",),
    ("gradle",),
    ("./gradlew",),
    ("python", "-m", "build"),
    ("python", "-m", "compileall"),
    ("python", "-m", "mypy"),
    ("mypy",),
    ("pyright",),
    ("ruff",),
    ("eslint",),
    ("dotnet", "build"),
)
# What ends a test run's scope word at a narrower one: a folder, a node id, a module.
SCOPE_SEPARATORS = ("/", "::", ".")
# Scope words that name everything under the working folder (`go test ./...`).
WHOLE_TREE = frozenset({"", ".", "..."})


def shell_split(command: str) -> list[str]:
    """The words of `command` as the shell splits them (on whitespace when it cannot)."""
    try:
        return shlex.split(command)
    except ValueError:
        return command.split()


def command_key(command: str) -> str:
    """What every run of the same command shares: its words, quoted only where needed."""
    return shlex.join(shell_split(command))


def _program_words(command: str) -> list[str]:
    """The words with the program's folder left out and any `python3.x` read as python."""
    words = shell_split(command)
    if words:
        program = words[0].rsplit("/", 1)[-1]
        words[0] = "python" if PYTHON_PROGRAM.fullmatch(program) else program
    return words


def _runs(words: list[str], runners: tuple[tuple[str, ...], ...]) -> tuple[str, ...] | None:
    return next((r for r in runners if tuple(words[: len(r)]) == r), None)


def is_test_command(command: str, known: Collection[str] = ()) -> bool:
    """True for a known test-suite command or a command starting with a test runner."""
    if command.strip() in {k.strip() for k in known}:
        return True
    return _runs(_program_words(command), TEST_RUNNERS) is not None


def is_build_command(command: str) -> bool:
    """True for a command starting with a build tool, type checker or linter."""
    if command.startswith("./"):
        return _runs(shell_split(command), BUILD_RUNNERS) is not None
    return _runs(_program_words(command), BUILD_RUNNERS) is not None


def _scope(word: str) -> str:
    """A scope word without its `./` prefix and trailing `/` or `/...`."""
    word = word.removeprefix("./").removesuffix("/...").rstrip("/")
    return "" if word in WHOLE_TREE else word


def _split_scope(command: str) -> tuple[tuple[str, ...], frozenset[str], list[str]] | None:
    """(the runner, its options, its scope words) of a test command; None for another."""
    words = _program_words(command)
    runner = _runs(words, TEST_RUNNERS)
    if runner is None:
        return None
    rest = words[len(runner) :]
    options = frozenset(w for w in rest if w.startswith("-"))
    return runner, options, [_scope(w) for w in rest if not w.startswith("-")]


def _within(narrow: str, broad: str) -> bool:
    if broad == "" or narrow == broad:
        return True
    return any(narrow.startswith(broad + sep) for sep in SCOPE_SEPARATORS)


def covers(broad: str, narrow: str) -> bool:
    """Whether the test command `broad` runs everything `narrow` runs: the same runner and
    options, and each of `narrow`'s files, folders, node ids or modules inside one of
    `broad`'s (a run naming none runs the whole suite). Word for word the same command
    does not count (it is the same command, not a broader one)."""
    if command_key(broad) == command_key(narrow):
        return False
    wide, small = _split_scope(broad), _split_scope(narrow)
    if wide is None or small is None or wide[:2] != small[:2]:
        return False
    scopes = wide[2] or [""]
    return all(any(_within(s, b) for b in scopes) for s in small[2] or [""])


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
