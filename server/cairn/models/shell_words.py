"""The words of a shell command, as `/bin/sh` splits them: the grammar of allowlist entries.

An allowlist entry (`allowed_commands`, or a test command a rules file names)
is an argv pattern: the words of `split_command`. A command or entry with a
shell operator (`;`, `&`, `|`, backquote, `$(`, `>`, `<`, a newline, or a
comment `#`) is no pattern — anywhere in its text, quoted or not — except
the one form Cairn writes itself for a suite in a subfolder,
`cd <folder> && <command>`, which is read as `<command>` run in `<folder>`.

Each `Word` remembers what the shell would still do to it: `expands` when
it holds a `$` outside single quotes (a variable, whose value nobody can
check beforehand), `globs` the positions of its unquoted `*`, `?`, `[`
(pathname expansion).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

SHELL_OPERATORS = re.compile(r"[;&|`<>\n\r]|\$\(")
# The prefix Cairn writes for a suite in a subfolder (`cairn.profile`): `cd <folder> && `.
CD_PREFIX = re.compile(r"^\s*cd\s+(?P<folder>[^\s;&|`<>$'\"\\]+)\s+&&\s+")
GLOB_CHARS = frozenset("*?[")
OPERATOR_FIX = (
    "write one program and its arguments (no `;`, `&&`, `|`, `>`, `<`, backquotes, `$(` or"
    " newlines); a compound command is approved when it runs"
)


@dataclass(frozen=True)
class Word:
    """One word after quote removal; what the shell still expands in it."""

    text: str
    expands: bool = False
    globs: tuple[int, ...] = ()


@dataclass(frozen=True)
class CommandWords:
    """A command as an argv pattern: its words, run in `folder` (relative, "" = the root)."""

    words: tuple[Word, ...]
    folder: str = ""
    argv: tuple[str, ...] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "argv", tuple(w.text for w in self.words))


def split_words(text: str) -> list[Word]:
    """The words of `text` (no operators in it): quotes removed, expansions noted.
    Raises ValueError on an unterminated quote or a comment."""
    words: list[Word] = []
    chars: list[str] = []
    expands = False
    globs: list[int] = []
    in_word = False
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in " \t":
            if in_word:
                words.append(Word("".join(chars), expands, tuple(globs)))
                chars, expands, globs, in_word = [], False, [], False
            i += 1
            continue
        if c == "#" and not in_word:
            raise ValueError("a comment (`#`) hides the rest of the command")
        in_word = True
        if c == "\\":
            if i + 1 < n:
                chars.append(text[i + 1])
            i += 2
        elif c == "'":
            end = text.find("'", i + 1)
            if end < 0:
                raise ValueError("an unterminated quote")
            chars.extend(text[i + 1 : end])
            i = end + 1
        elif c == '"':
            i += 1
            while i < n and text[i] != '"':
                if text[i] == "\\" and i + 1 < n and text[i + 1] in '$`"\\':
                    i += 1
                elif text[i] == "$":
                    expands = True
                chars.append(text[i])
                i += 1
            if i >= n:
                raise ValueError("an unterminated quote")
            i += 1
        else:
            if c == "$":
                expands = True
            elif c in GLOB_CHARS:
                globs.append(len(chars))
            chars.append(c)
            i += 1
    if in_word:
        words.append(Word("".join(chars), expands, tuple(globs)))
    return words


def split_command(command: str) -> CommandWords:
    """`command` as an argv pattern; ValueError saying why it is none (an operator, an
    unterminated quote, a comment, no words)."""
    folder = ""
    rest = command
    prefix = CD_PREFIX.match(command)
    if prefix is not None:
        folder = prefix.group("folder")
        rest = command[prefix.end() :]
    operator = SHELL_OPERATORS.search(rest)
    if operator is not None:
        raise ValueError(f"it contains the shell operator {operator.group()!r}")
    words = split_words(rest)
    if not words:
        raise ValueError("it names no program")
    return CommandWords(tuple(words), folder)


def entry_problem(entry: str) -> str | None:
    """Why `entry` cannot be an allowlist entry (with the fix), or None when it can."""
    try:
        pattern = split_command(entry)
    except ValueError as error:
        return f"allowed_commands entry {entry!r} is refused: {error}; {OPERATOR_FIX}"
    if any(word.expands or word.globs for word in pattern.words):
        return (
            f"allowed_commands entry {entry!r} is refused: the shell expands `$`, `*`, `?` or"
            " `[` in it; quote them or leave them out"
        )
    return None
