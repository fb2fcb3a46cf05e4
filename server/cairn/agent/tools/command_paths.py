"""Where an allowlisted command's arguments point: every path must stay in the workspace.

An allowlist entry approves a program, not what its arguments make it do:
`pytest --basetemp=<folder>` empties that folder, `--junitxml=<file>`
overwrites a file. `path_problems` reads the words of a command that matched
an entry and says why it must still ask the user (the reasons go into the
approval request); an empty list means it may run without asking.

Every word but the program's name is read the same way, whatever the program:
a word (`tests/x.py`), the value of `--opt=value`, the value glued to a short
option (`-c/tmp/x.ini`), and each part of a value split at `=`, `:`, `,` or
whitespace (`-o cache_dir=/tmp/x`, `--cov-report=html:/tmp/cov`) is a
candidate path; `~` is the home folder and relative paths start from where
the command runs. A candidate that resolves (symbolic links followed) outside
every workspace folder, or into a `.git/` or `.cairn/` folder, asks. Words the
shell still expands ask too: a `$` (its value is unknown beforehand) and a
glob (`*`, `?`, `[`) that could match `..` or produce an option (one not
after a `/`, or in a part starting with `.`).

The tools understood beyond that:
- pytest (`pytest`, `py.test`, `python -m pytest`, and any of them after `uv run`,
  `poetry run`, `pipenv run`, `pdm run`, `hatch run` or `rye run`; an option of
  the wrapper itself, such as `uv run --with`, asks): `-p NAME` loads code, so it
  always asks (`-p no:NAME`, which turns a plugin off, does not); `-o addopts=`
  / `--override-ini addopts=` adds options nobody checked, so it asks; a
  `--basetemp` that is a workspace folder itself asks (pytest empties it).
  Its path-valued options (`--basetemp`, `--junitxml`/`--junit-xml`,
  `--rootdir`, `-c`/`--config-file`, `-o cache_dir=`, `--confcutdir`,
  `--log-file`, `--resultlog`, `--cov-report=TYPE:DEST`) and its test paths are
  candidates like any word, in both `--opt=value` and `--opt value` forms.
- `python -m unittest`: its test names and `-s`/`-t` folders are candidates.
- npm, pnpm, yarn and bun `test` (`test`, `t`, `run test`, `run-script test`): any
  further argument asks, as the arguments go to a script nobody checked.
Any other program: its arguments are candidates as above, so one that names
a path outside the workspace asks.

In a sandbox (`sandboxed`, `cairn.sandbox`) a path outside the workspace no
longer asks: nothing outside can be written there, and the secrets a command
could read are hidden. Everything that acts inside the workspace still asks
(`.git/`, `.cairn/`, a `--basetemp` that is a workspace folder, `-p`,
`addopts`, `$` and globs, the wrapper's and package scripts' arguments).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from pathlib import Path

from cairn.models.shell_words import CommandWords, Word

PYTHON = re.compile(r"python[0-9.]*")
# Where a value splits into further candidate paths.
VALUE_SEPARATORS = re.compile(r"[=:,\s]")
# Folders inside a workspace folder that a command must not write through an argument.
PRIVATE_FOLDERS = (".git", ".cairn")
PACKAGE_MANAGERS = frozenset({"npm", "pnpm", "yarn", "bun"})
# `<wrapper> run <program> ...` runs the program in the project's environment.
RUNNER_WRAPPERS = frozenset({"uv", "poetry", "pipenv", "pdm", "hatch", "rye"})
PACKAGE_TEST_SCRIPTS = (("test",), ("t",), ("run", "test"), ("run-script", "test"))
# pytest's short options that take a value (the rest of the word, or the next word).
PYTEST_VALUE_SHORTS = frozenset("cmkoprWn")


def program_of(argv: Sequence[str], start: int = 0) -> tuple[str, int]:
    """The tool a command runs (`pytest`, `unittest`, `npm`, ..., else its program's name)
    and the index of its first own argument; `uv run pytest` and the like run pytest."""
    name = argv[start].rsplit("/", 1)[-1]
    rest = argv[start + 1 :]
    if name in RUNNER_WRAPPERS and len(rest) >= 2 and rest[0] == "run":
        if rest[1].startswith("-"):
            return f"{name} run", start + 2
        return program_of(argv, start + 2)
    if PYTHON.fullmatch(name) and len(rest) >= 2 and rest[0] == "-m":
        module = rest[1]
        if module in ("pytest", "unittest"):
            return module, start + 3
        return name, start + 1
    if name == "py.test":
        return "pytest", start + 1
    return name, start + 1


def _candidates(value: str) -> Iterator[str]:
    yield value
    for part in VALUE_SEPARATORS.split(value):
        if part and part != value:
            yield part


def _word_candidates(text: str) -> Iterator[str]:
    if text in ("-", "--"):
        return
    if text.startswith("--"):
        if "=" in text:
            yield from _candidates(text.split("=", 1)[1])
        return
    if text.startswith("-"):
        if len(text) > 2:
            yield from _candidates(text[2:])
        return
    yield from _candidates(text)


class PathJudge:
    """Whether paths resolve inside the workspace folders, from one working folder."""

    def __init__(self, folders: Sequence[Path], cwd: Path, sandboxed: bool = False) -> None:
        self.folders = [Path(os.path.realpath(folder)) for folder in folders]
        self.cwd = cwd
        self.sandboxed = sandboxed

    def resolve(self, candidate: str) -> Path:
        path = Path(os.path.expanduser(candidate)) if candidate.startswith("~") else None
        if path is None or not path.is_absolute():
            path = self.cwd / (candidate if path is None else path)
        return Path(os.path.realpath(path))

    def problem(self, candidate: str, shown: str) -> str | None:
        """Why `candidate` (from the word `shown`) must ask, or None."""
        if candidate.startswith("~") and not os.path.expanduser(candidate).startswith("/"):
            return f"{shown!r} names a home folder"
        resolved = self.resolve(candidate)
        for folder in self.folders:
            if resolved == folder or folder in resolved.parents:
                inner = resolved.relative_to(folder).parts
                if inner and inner[0] in PRIVATE_FOLDERS:
                    return f"{shown!r} points into {inner[0]}/ ({resolved})"
                return None
        return None if self.sandboxed else f"{shown!r} points outside the workspace ({resolved})"

    def is_folder(self, candidate: str) -> bool:
        return self.resolve(candidate) in self.folders


def _glob_problem(word: Word) -> str | None:
    if word.expands:
        return f"the shell expands `$` in {word.text!r}, so where it points cannot be checked"
    if not word.globs:
        return None
    text = word.text
    if "/" not in text[: word.globs[0]]:
        return f"the shell expands {word.text!r} to names nobody checked"
    for position in word.globs:
        start = text.rfind("/", 0, position) + 1
        if text[start : start + 1] == ".":
            return f"the shell expands {word.text!r}, which may match `..`"
    return None


def _pytest_problems(argv: Sequence[str], start: int, judge: PathJudge) -> Iterator[str]:
    i = start
    while i < len(argv):
        word = argv[i]
        following = argv[i + 1] if i + 1 < len(argv) else ""
        option, value = word, ""
        if word.startswith("--"):
            option, _, value = word.partition("=")
            if option in ("--override-ini", "--basetemp") and not value:
                value = following
        elif word.startswith("-") and len(word) > 1:
            for k, letter in enumerate(word[1:], start=1):
                if letter in PYTEST_VALUE_SHORTS:
                    option, value = f"-{letter}", word[k + 1 :] or following
                    break
        if option == "-p":
            if not value.startswith("no:"):
                yield f"`-p {value}` loads a pytest plugin (code nobody checked)"
        elif option in ("-o", "--override-ini"):
            if value.partition("=")[0].strip() == "addopts":
                yield f"`{option} {value}` adds pytest options nobody checked"
        elif option == "--basetemp" and value and judge.is_folder(value):
            yield f"`--basetemp {value}` is a workspace folder, which pytest empties"
        i += 1


def path_problems(
    command: CommandWords, folders: Sequence[Path], sandboxed: bool = False
) -> list[str]:
    """Why the allowlisted `command` must still ask the user (empty: it need not); in a
    sandbox, a path outside the workspace is no reason."""
    root = Path(os.path.realpath(folders[0]))
    judge = PathJudge(folders, root, sandboxed)
    problems: list[str] = []
    if command.folder:
        folder_problem = PathJudge(folders, root).problem(command.folder, command.folder)
        if folder_problem is not None:
            return [f"cd {folder_problem}"]
        judge.cwd = judge.resolve(command.folder)
    argv = command.argv
    tool, start = program_of(argv)
    if tool.endswith(" run"):
        return [f"the options of `{tool}` ({argv[start]}) are not checked"]
    if tool in PACKAGE_MANAGERS:
        rest = tuple(argv[start:])
        script = next((s for s in PACKAGE_TEST_SCRIPTS if rest[: len(s)] == s), None)
        if script is not None and len(rest) > len(script):
            extra = " ".join(rest[len(script) :])
            return [f"`{extra}` goes to the project's {tool} test script, which nobody checked"]
    for word in command.words[1:]:
        glob = _glob_problem(word)
        if glob is not None:
            problems.append(glob)
            continue
        for candidate in _word_candidates(word.text):
            problem = judge.problem(candidate, word.text)
            if problem is not None:
                problems.append(problem)
                break
    if tool == "pytest":
        problems.extend(_pytest_problems(argv, start, judge))
    return list(dict.fromkeys(problems))
