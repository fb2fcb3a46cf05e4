"""`cairn trust [DIR]`, `--revoke`, `--list`, and the trust a `cairn run` runs with.

`cairn trust DIR` (default: the current folder) records the user's grant
(`cairn.files.trust`) and prints the folder and the exec-relevant keys of its
`cairn.toml` the grant covers; the grant lapses when those change.
`--revoke` forgets it; `--list` prints every trusted folder and whether its
config is still the one trusted.

`cairn run` asks `run_trust`: `--trust` grants the folder first (saying so on
stderr, as `cairn trust` does on stdout); a folder
already trusted is; otherwise, when its `cairn.toml` has keys an untrusted
folder ignores and both stdin and stderr are terminals, one prompt asks
whether to trust it ([y/N]). Without a grant the run goes on untrusted, and
the one-line notice (`untrusted_notice`) is printed on stderr.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

import typer

from cairn.errors import InvalidRequestError, SettingsError
from cairn.files.settings_layers import load_settings
from cairn.files.trust import (
    config_hash,
    exec_config,
    grant,
    is_trusted,
    real_folder,
    revoke,
    trust_question,
    trusted_records,
    untrusted_notice,
)
from cairn.settings import Settings

YES_ANSWERS = frozenset({"y", "yes"})
NOTHING_COVERED = "no exec-relevant keys in cairn.toml (AGENTS.md's commands are pre-approved)"
NONE_TRUSTED = "no folder is trusted (trust one with `cairn trust DIR`)"


def _require_folder(folder: Path) -> Path:
    real = real_folder(folder)
    if not real.is_dir():
        raise InvalidRequestError(f"not a folder: {folder}")
    return real


def covered(folder: Path) -> str:
    """What a grant of `folder` covers: its exec-relevant keys, or that there are none."""
    keys = list(exec_config(folder))
    return ", ".join(keys) if keys else NOTHING_COVERED


def trust_folder(folder: Path) -> str:
    """Grant `folder`; the line saying what was trusted."""
    real = _require_folder(folder)
    grant(real)
    return f"trusted {real}: {covered(real)}"


def revoke_folder(folder: Path) -> str:
    """Forget `folder`'s grant; the line saying whether there was one."""
    real = real_folder(folder)
    if revoke(real):
        return f"no longer trusted: {real}"
    return f"was not trusted: {real}"


def list_lines() -> list[str]:
    """One line per recorded folder: its path, and whether its config changed since."""
    records = trusted_records()
    if not records:
        return [NONE_TRUSTED]
    lines: list[str] = []
    for record in sorted(records, key=lambda r: r.folder):
        folder = Path(record.folder)
        if not folder.is_dir():
            state = "missing"
        else:
            try:
                same = config_hash(folder) == record.config_hash
            except (SettingsError, OSError):  # an unreadable cairn.toml: not the one trusted
                same = False
            state = "trusted" if same else "changed since trusted: not trusted"
        lines.append(f"{record.folder}  {state}")
    return lines


def trust_command(folder: Path, revoke_it: bool, list_them: bool) -> None:
    """`cairn trust` (see the module docstring)."""
    if list_them:
        typer.echo("\n".join(list_lines()))
    elif revoke_it:
        typer.echo(revoke_folder(folder))
    else:
        typer.echo(trust_folder(folder))


def _ask(prompt: str, err: TextIO) -> bool:
    err.write(prompt)
    err.flush()
    try:
        answer = input()
    except EOFError:
        return False
    return answer.strip().lower() in YES_ANSWERS


def interactive() -> bool:
    """Whether a prompt can be answered: stdin and stderr are terminals."""
    return sys.stdin.isatty() and sys.stderr.isatty()


def run_trust(
    workspace: Path,
    trust_flag: bool,
    *,
    can_ask: Callable[[], bool] = interactive,
    err: TextIO | None = None,
) -> Settings:
    """The settings `cairn run` uses in `workspace` (see the module docstring)."""
    out = err or sys.stderr
    if trust_flag:
        out.write(trust_folder(workspace) + "\n")
    if trust_flag or is_trusted(workspace):
        return load_settings(workspace, trusted=True)
    untrusted = load_settings(workspace, trusted=False)
    ignored = untrusted.ignored_keys
    if not ignored:
        return untrusted
    real = real_folder(workspace)
    if can_ask() and _ask(trust_question(real, ignored) + " [y/N] ", out):
        grant(real)
        return load_settings(workspace, trusted=True)
    out.write(untrusted_notice(ignored, real) + "\n")
    out.flush()
    return untrusted
