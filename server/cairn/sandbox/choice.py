"""Which sandbox a command runs in, and the argv that runs it there.

`choose_sandbox` reads the settings: `off` runs commands unsandboxed; `auto`
and `required` use bubblewrap when `bwrap` is on `PATH` and its probe works
(`cairn.sandbox.bubblewrap.probe_bwrap`, run once per bwrap path: it starts a
process, so call it off the event loop), else `auto` runs them unsandboxed
and says why, and `required` refuses them (`SandboxUse.refusal`, naming the
fix). Landlock is not used yet (docs/SECURITY.md). `command_argv` is the argv
of a shell command under the chosen sandbox.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from cairn.models.sandbox_mode import SandboxMode
from cairn.sandbox.bubblewrap import BWRAP, SHELL, bwrap_argv, probe_bwrap
from cairn.sandbox.hidden import hidden_paths

SandboxKind = Literal["bubblewrap", "none"]
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
    if bwrap is None:
        return SandboxUse("none", mode, network, f"{BWRAP} was not found on PATH")
    problem = probe_bwrap(bwrap)
    if problem is not None:
        return SandboxUse("none", mode, network, problem)
    return SandboxUse("bubblewrap", mode, network)


def command_argv(use: SandboxUse, command: str, folders: Sequence[Path], cwd: Path) -> list[str]:
    """The argv running the shell command `command` from `cwd` under `use`."""
    shell = [SHELL, "-c", command]
    if not use.active:
        return shell
    bwrap = shutil.which(BWRAP) or BWRAP
    return bwrap_argv(bwrap, folders, hidden_paths(folders), use.network, cwd, shell)
