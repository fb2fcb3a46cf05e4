"""The paths a sandboxed command must not read: credentials and the user's Cairn state.

A sandbox leaves the file system readable (a test suite reads the interpreter,
its packages, the project's data), so what holds credentials is hidden: an
empty folder over each folder of `HOME_SECRET_FOLDERS`, `/dev/null` over each
file of `HOME_SECRET_FILES` and over every file directly in the home folder
whose name is a built-in secret name (`cairn.files.secrets`: `*.pem`, `*.key`,
`id_rsa*`, ...), Cairn's own state folder (its secret, the trusted folders,
the TCP token), and the sockets through which a process could act outside
the sandbox (the user's runtime folder, `$XDG_RUNTIME_DIR`: the session bus,
which can start programs unconfined; the ssh agent's socket; docker's).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePath

from cairn.files.secrets import builtin_rule
from cairn.files.user_state import state_path

# Folders under the home folder that hold credentials (hidden whole).
HOME_SECRET_FOLDERS: tuple[str, ...] = (
    ".ssh", ".aws", ".gnupg", ".config/gcloud", ".azure", ".kube", ".docker",
    ".config/gh", ".password-store", ".local/share/keyrings", ".terraform.d",
)  # fmt: skip
# Files under the home folder that hold credentials.
HOME_SECRET_FILES: tuple[str, ...] = (
    ".netrc", ".git-credentials", ".pypirc", ".npmrc", ".pgpass", ".vault-token",
)  # fmt: skip
# Sockets of daemons that run programs on request, outside any sandbox.
DAEMON_SOCKETS: tuple[str, ...] = (
    "/var/run/docker.sock", "/run/docker.sock", "/run/podman/podman.sock",
)  # fmt: skip
# At most this many entries of the home folder are looked at for key files.
MAX_HOME_ENTRIES = 10_000


@dataclass(frozen=True)
class HiddenPath:
    """A path to hide and whether it is a folder (an empty one goes over it) or not."""

    path: Path
    folder: bool


def _home_key_files(home: Path) -> Iterator[Path]:
    try:
        with os.scandir(home) as entries:
            for count, entry in enumerate(entries):
                if count >= MAX_HOME_ENTRIES:
                    return
                if builtin_rule(PurePath(entry.name)) is not None:
                    yield Path(entry.path)
    except OSError:
        return


def _candidates(home: Path) -> Iterator[Path]:
    yield from (home / name for name in HOME_SECRET_FOLDERS)
    yield from (home / name for name in HOME_SECRET_FILES)
    yield from _home_key_files(home)
    yield state_path()
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    yield Path(runtime) if runtime.startswith("/") else Path(f"/run/user/{os.getuid()}")
    agent = os.environ.get("SSH_AUTH_SOCK", "")
    if agent.startswith("/"):
        yield Path(agent)
    yield from map(Path, DAEMON_SOCKETS)


def hidden_paths(keep: Sequence[Path], home: Path | None = None) -> list[HiddenPath]:
    """The existing secret paths to hide (real paths), leaving out any that is or holds a
    folder of `keep` (the workspace folders must stay visible)."""
    kept = [Path(os.path.realpath(folder)) for folder in keep]
    found: dict[Path, HiddenPath] = {}
    for candidate in _candidates(home or Path.home()):
        if not os.path.lexists(candidate):
            continue
        real = Path(os.path.realpath(candidate))
        if not real.exists() or any(real == k or real in k.parents for k in kept):
            continue
        found.setdefault(real, HiddenPath(real, real.is_dir()))
    return list(found.values())
