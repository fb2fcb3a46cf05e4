"""Which sandbox a command runs in, and the argv that runs it there.

`choose_sandbox` reads the settings: `off` runs commands unsandboxed; `auto`
and `required` use bubblewrap when `bwrap` is on `PATH` and its probe works
(`cairn.sandbox.bubblewrap.probe_bwrap`, run once per bwrap path), else
Landlock when the kernel has it with network rules and its probe works
(`probe_landlock`, run once per process: both start a process, so call
`choose_sandbox` off the event loop), else `auto` runs them unsandboxed and
says why, and `required` refuses them (`SandboxUse.refusal`, naming the
fix). `command_argv` is the argv of a shell command under the chosen sandbox.
"""

from __future__ import annotations

import atexit
import functools
import json
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from cairn.models.sandbox_mode import SandboxMode
from cairn.sandbox.bubblewrap import BWRAP, SHELL, bwrap_argv, probe_bwrap
from cairn.sandbox.hidden import hidden_paths
from cairn.sandbox.landlock import MIN_ABI, abi_version, landlock_spec

SandboxKind = Literal["bubblewrap", "landlock", "none"]
LANDLOCK_MODULE = "cairn.sandbox.landlock"
PROBE_TIMEOUT_S = 10.0
INSTALL_HINT = "install bubblewrap (`apt-get install bubblewrap`, `dnf install bubblewrap`)"


@dataclass(frozen=True)
class SandboxUse:
    """The sandbox a command runs in (`kind` "none": none, `why_not` saying why)."""

    kind: SandboxKind
    mode: SandboxMode
    network: bool = False
    why_not: str = ""

    @property
    def active(self) -> bool:
        return self.kind != "none"

    @property
    def refusal(self) -> str | None:
        """Why the command must not run at all (`sandbox = "required"` without one), or None."""
        if self.active or self.mode != "required":
            return None
        return (
            f'sandbox = "required", but no sandbox works here ({self.why_not}): {INSTALL_HINT},'
            ' or set sandbox = "auto" to run commands without one'
        )

    def describe(self) -> str:
        """A short account for the tool result: "sandboxed (bubblewrap, no network)"."""
        if self.active:
            return f"sandboxed ({self.kind}, {'network allowed' if self.network else 'no network'})"
        return f"not sandboxed ({self.why_not})"


def choose_sandbox(mode: SandboxMode, network: bool) -> SandboxUse:
    """The sandbox of a command under these settings (may run the one-time probe)."""
    if mode == "off":
        return SandboxUse("none", mode, network, 'sandbox = "off"')
    bwrap = shutil.which(BWRAP)
    problem = f"{BWRAP} was not found on PATH" if bwrap is None else probe_bwrap(bwrap)
    if problem is None:
        return SandboxUse("bubblewrap", mode, network)
    landlock = probe_landlock()
    if landlock is None:
        return SandboxUse("landlock", mode, network, problem)
    return SandboxUse("none", mode, network, f"{problem}; {landlock}")


@functools.cache
def private_tmp() -> Path:
    """The temporary folder of this process's Landlock-sandboxed commands (removed at exit)."""
    folder = tempfile.mkdtemp(prefix="cairn-sandbox-")
    atexit.register(shutil.rmtree, folder, True)
    return Path(folder)


def _landlock_argv(spec: dict[str, object], command: Sequence[str]) -> list[str]:
    return [sys.executable, "-m", LANDLOCK_MODULE, json.dumps(spec), "--", *command]


@functools.cache
def probe_landlock() -> str | None:
    """None when the Landlock sandbox works here (cached), else why not."""
    abi = abi_version()
    if abi < MIN_ABI:
        return f"the kernel's Landlock ABI is {abi} (network rules need {MIN_ABI}, Linux 6.7)"
    spec = landlock_spec([], [], private_tmp(), False)
    try:
        done = subprocess.run(
            _landlock_argv(spec, [SHELL, "-c", ":"]),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=PROBE_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"the Landlock sandbox cannot start: {error}"
    if done.returncode != 0:
        said = " ".join(done.stderr.decode("utf-8", "replace").split())[:300]
        return f"the Landlock sandbox failed (exit {done.returncode}: {said or 'no message'})"
    return None


def command_argv(use: SandboxUse, command: str, folders: Sequence[Path], cwd: Path) -> list[str]:
    """The argv running the shell command `command` from `cwd` under `use`."""
    shell = [SHELL, "-c", command]
    if not use.active:
        return shell
    hidden = hidden_paths(folders)
    if use.kind == "landlock":
        spec = landlock_spec(folders, [h.path for h in hidden], private_tmp(), use.network)
        return _landlock_argv(spec, shell)
    bwrap = shutil.which(BWRAP) or BWRAP
    return bwrap_argv(bwrap, folders, hidden, use.network, cwd, shell)
