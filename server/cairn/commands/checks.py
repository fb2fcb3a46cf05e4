"""Checks every command makes of its arguments before it does any work.

`require_workspace` refuses a missing `--workspace`; `parse_mode` a
`--mode` that is not one of `MODES`; `checked_references` runs a turn's
`--file`s and `@` mentions through the path guard before any model is
called: a refused `--file` is an error (nothing runs, nothing is spent), a
refused mention is a warning line (the turn runs without it, as it would in
an editor).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from cairn.context.mentions import mentioned_references, merged
from cairn.errors import InvalidRequestError
from cairn.files.guard import PathRefusal, guard_path
from cairn.files.ignore import IgnoreRules
from cairn.files.workspace import Workspace
from cairn.settings import Mode

MODES: tuple[Mode, ...] = ("build", "plan", "review")


def require_workspace(workspace: Path) -> None:
    """Refuse a `--workspace` that is not an existing folder (exit 1, one line)."""
    if not workspace.is_dir():
        raise InvalidRequestError(f"workspace not found: {workspace}")


def parse_mode(mode: str) -> Mode:
    """A `--mode` value, or an error naming the choices."""
    for known in MODES:
        if mode == known:
            return known
    raise InvalidRequestError(f"unknown mode {mode!r}: use build, plan or review")


def file_reference(file: Path) -> str:
    """A `--file` as typed, as a reference: relative to the current folder when it exists
    there, else as given (workspace-relative or absolute; the guard judges it)."""
    if not file.is_absolute() and (Path.cwd() / file).exists():
        return str(Path.cwd() / file)
    return str(file)


def _refusal(workspace: Workspace, ref: str, ignore: IgnoreRules) -> str | None:
    try:
        guard_path(workspace, ref, ignore=ignore, allow_dir=True)
    except PathRefusal as refusal:
        return str(refusal)
    return None


def checked_references(
    workspace: Workspace,
    ignore: IgnoreRules,
    files: Sequence[Path],
    message: str,
    err: TextIO = sys.stderr,
) -> list[str]:
    """The `--file` references of a turn, each let through by the guard (else an error
    naming it and why); refused `@` mentions of `message` are reported on `err`."""
    refs = [file_reference(f) for f in files]
    for ref in refs:
        why = _refusal(workspace, ref, ignore)
        if why is not None:
            raise InvalidRequestError(f"--file {why}; nothing was run")
    extra = merged(workspace, (refs, mentioned_references(workspace, message)))[len(refs) :]
    for ref in extra:
        why = _refusal(workspace, ref, ignore)
        if why is not None:
            err.write(f"note: @{ref} is not referenced: {why}\n")
    return refs
