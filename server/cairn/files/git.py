"""Every git command Cairn runs, with the configuration that executes programs switched off.

A repository's config is the repository's, not the user's: a cloned or
unpacked project can bring a `.git/config` (or a `.cairn/snapshots/config`)
naming a program git would start. `git_command` builds the one argv and
environment every Cairn git call uses:

- `GIT_CONFIG_NOSYSTEM=1` always; for Cairn's own snapshot store
  (`own_store=True`) also `GIT_CONFIG_GLOBAL=/dev/null`, so only the store's
  own config applies. `GIT_TERMINAL_PROMPT=0` (no credential prompt),
  `LC_ALL=C` (stable messages), `--no-pager`.
- `-c` overrides, which win over every config file (git-config(1),
  "CONFIGURATION FILE": command-line `-c` has the highest precedence):
  `core.fsmonitor=false` (a command git starts on every index refresh —
  `status`, `diff`, `ls-files`, `add`), `core.hooksPath=/dev/null` (no hook
  runs, e.g. `post-index-change` when the index is written),
  `protocol.allow=never` (the default policy of every transport: Cairn never
  fetches, and a stray one would start no `core.sshCommand`, `core.gitProxy`
  or remote helper), `credential.helper=` (the empty value clears the helper
  list).
- Content drivers the repository's own config defines (`filter.<name>.clean` /
  `smudge` / `process`, `diff.<name>.textconv` / `command`, run on files whose
  `.gitattributes` name the driver) are set to the empty string, which git
  treats as no driver. Only the ones defined in the repository's `local` /
  `worktree` scope (listed with `git config --show-scope`, which reads config
  and runs nothing): the user's own global drivers (git-lfs) stay, except for
  Cairn's own store, where no global config is read at all.

`diff` calls also pass `--no-ext-diff` themselves (no `diff.external`
program; the store's also `--no-textconv`). Checked against git 2.39's
git-config(1) and gitattributes(5).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

# Overrides of keys whose value git runs as a program (git-config(1)).
SAFE_OPTIONS = (
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "protocol.allow=never",
    "-c",
    "credential.helper=",
)
# `<section>.<driver>.<key>` keys that name a program run on file contents.
DRIVER_KEYS = {"filter": ("clean", "smudge", "process"), "diff": ("textconv", "command")}
# Config scopes the repository brings (as `git config --show-scope` names them).
REPOSITORY_SCOPES = frozenset({"local", "worktree"})
BASE_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}
CONFIG_LIST_TIMEOUT_S = 5.0


def git_env(*, own_store: bool) -> dict[str, str]:
    """The environment of a git call: the process's, system config off (and global for the store)."""
    env = {**os.environ, **BASE_ENV}
    if own_store:
        env["GIT_CONFIG_GLOBAL"] = os.devnull
    return env


def _driver_keys(listing: str, scopes: frozenset[str] | None) -> list[str]:
    """The program-naming driver keys in a `git config --list --show-scope --name-only -z`
    listing (`scope\\0name\\0` pairs), of `scopes` only (None: every scope)."""
    keys: list[str] = []
    fields = listing.split("\0")
    for scope, name in zip(fields[0::2], fields[1::2], strict=False):
        if scopes is not None and scope not in scopes:
            continue
        section, _, rest = name.partition(".")
        driver, _, key = rest.rpartition(".")
        if driver and key.lower() in DRIVER_KEYS.get(section.lower(), ()):
            keys.append(name)
    return sorted(set(keys))


def _listed_config(location: Sequence[str], env: Mapping[str, str]) -> str:
    """The config names git sees at `location` (the `-C`/`--git-dir` options), or ''."""
    command = ["git", *location, *SAFE_OPTIONS, "config", "--list", "--show-scope", "--name-only"]
    try:
        done = subprocess.run(
            [*command, "-z"],
            capture_output=True,
            timeout=CONFIG_LIST_TIMEOUT_S,
            env=dict(env),
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.decode("utf-8", "replace") if done.returncode == 0 else ""


def git_command(
    location: Sequence[str], args: Sequence[str], *, own_store: bool = False
) -> tuple[list[str], dict[str, str]]:
    """(argv, env) of `git <location> <safe overrides> <args>`.

    `location` is `("-C", folder)` for the user's repository or
    `("--git-dir=…", "--work-tree=…")` for Cairn's store."""
    env = git_env(own_store=own_store)
    scopes = None if own_store else REPOSITORY_SCOPES
    drivers = _driver_keys(_listed_config(location, env), scopes)
    neutralised = [part for key in drivers for part in ("-c", f"{key}=")]
    return ["git", "--no-pager", *location, *SAFE_OPTIONS, *neutralised, *args], env


def run_git(root: Path, *args: str, timeout: float) -> bytes | None:
    """stdout of `git -C root args` run safely, or None when git is missing, fails or times out."""
    command, env = git_command(("-C", str(root)), args)
    try:
        done = subprocess.run(command, capture_output=True, timeout=timeout, env=env, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None
