"""bubblewrap (`bwrap`): the argv that runs a shell command in a sandbox, and whether it works.

`bwrap_argv` builds the sandbox, in mount order (a later mount covers an
earlier one): the whole file system read-only; a fresh `/dev` and `/proc`; a
private, empty `/tmp` (`TMPDIR` points there), except that the Python
environment Cairn runs in stays visible, read-only, when it lives under `/tmp`
(`interpreter_paths`: a throwaway venv whose python the project's test command
names); each workspace folder
writable, its `.cairn/` (Cairn's records and snapshots) read-only; every
hidden path (`cairn.sandbox.hidden`) covered by an empty folder or
`/dev/null`. It unshares the PID and IPC namespaces — the command's processes
die with the sandbox's first process, so killing bwrap's process group (what
`run_command` does on cancel and timeout) ends every process the command
started, even one that left its process group — and the network namespace
unless the network is allowed (then only a loopback interface is left).
`--die-with-parent` ends the sandbox if Cairn dies, `--new-session` keeps the
command from reaching Cairn's terminal (no TIOCSTI injection).

`probe_bwrap` runs the same sandbox on `true` once per bwrap path and caches
the answer: None when it works, else why not (bwrap's own message: a kernel
without unprivileged user namespaces, a container that forbids them, ...).
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from cairn.models.trace_location import STATE_FOLDER
from cairn.sandbox.hidden import HiddenPath

BWRAP = "bwrap"
SHELL = "/bin/sh"
PROBE_TIMEOUT_S = 10.0
# What bwrap said, kept to one line of at most this many characters.
MAX_REASON_CHARS = 300
PRIVATE_TMP = Path("/tmp")


def interpreter_paths() -> list[Path]:
    """The folders of the Python environment Cairn runs in (its venv and the base
    installation) that the private `/tmp` would hide, real paths, outermost first."""
    found: list[Path] = []
    for raw in (sys.base_prefix, sys.prefix, os.path.dirname(sys.executable)):
        path = Path(os.path.realpath(raw))
        inside = path == PRIVATE_TMP or PRIVATE_TMP in path.parents
        if (
            inside
            and path != PRIVATE_TMP
            and not any(p in path.parents or p == path for p in found)
        ):
            found.append(path)
    return found


def bwrap_argv(
    bwrap: str,
    folders: Sequence[Path],
    hidden: Sequence[HiddenPath],
    network: bool,
    cwd: Path,
    command: Sequence[str],
) -> list[str]:
    """The argv running `command` in the sandbox (see the module's docstring)."""
    argv = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    argv += ["--tmpfs", str(PRIVATE_TMP)]
    for kept in interpreter_paths():
        argv += ["--ro-bind", str(kept), str(kept)]
    for folder in (Path(os.path.realpath(f)) for f in folders):
        argv += ["--bind", str(folder), str(folder)]
        state = folder / STATE_FOLDER
        if state.is_dir():
            argv += ["--ro-bind", str(state), str(state)]
    for item in hidden:
        if item.folder:
            argv += ["--tmpfs", str(item.path)]
        else:
            argv += ["--ro-bind", "/dev/null", str(item.path)]
    argv += ["--setenv", "TMPDIR", "/tmp", "--unshare-pid", "--unshare-ipc"]
    if not network:
        argv.append("--unshare-net")
    argv += ["--die-with-parent", "--new-session", "--chdir", str(cwd), "--", *command]
    return argv


def _one_line(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= MAX_REASON_CHARS else line[: MAX_REASON_CHARS - 1] + "…"


@functools.cache
def probe_bwrap(bwrap: str) -> str | None:
    """None when `bwrap` can build the sandbox here (cached per path), else why not."""
    argv = bwrap_argv(bwrap, [], [], False, Path("/"), ["true"])
    try:
        done = subprocess.run(
            argv,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=PROBE_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"{bwrap} cannot run: {_one_line(str(error))}"
    if done.returncode != 0:
        said = _one_line(done.stderr.decode("utf-8", errors="replace")) or "no message"
        return f"{bwrap} cannot create a sandbox here (exit {done.returncode}: {said})"
    return None
