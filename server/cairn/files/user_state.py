"""Cairn's per-user state, kept outside every workspace: the folder and the user's secret.

The folder is `$XDG_STATE_HOME/cairn` (`~/.local/state/cairn` when the
variable is unset or not absolute, as the XDG base directory specification
says), created mode 0700. It holds `secret`, 32 random bytes (mode 0600)
made on first use, with which Cairn signs what it creates inside a workspace
(`stamp`): a workspace cannot forge a stamp, so state it brought along (a
committed `.cairn/`) is told from state Cairn made for this user at this path.
It also holds `trusted.json`, the folders the user trusts (`cairn.files.trust`).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path

APP_DIR = "cairn"
SECRET_NAME = "secret"
SECRET_BYTES = 32
DIR_MODE = 0o700
FILE_MODE = 0o600


def state_path() -> Path:
    """Where the user's Cairn state folder is (not created)."""
    base = os.environ.get("XDG_STATE_HOME", "")
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".local" / "state"
    return root / APP_DIR


def state_dir() -> Path:
    """The user's Cairn state folder (created, mode 0700)."""
    folder = state_path()
    folder.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
    return folder


def user_secret() -> bytes:
    """The user's secret, made on first use (an unreadable or short one is replaced)."""
    path = state_dir() / SECRET_NAME
    try:
        data = path.read_bytes()
        if len(data) >= SECRET_BYTES:
            return data
    except OSError:
        pass
    data = secrets.token_bytes(SECRET_BYTES)
    temporary = path.with_name(f".{SECRET_NAME}.{os.getpid()}")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    os.replace(temporary, path)
    return data


def stamp(purpose: str, subject: Path) -> str:
    """An HMAC with the user's secret over `purpose` and `subject`'s real path (hex)."""
    message = f"{purpose}\0{os.path.realpath(subject)}".encode("utf-8", "surrogateescape")
    return hmac.new(user_secret(), message, hashlib.sha256).hexdigest()


def stamp_matches(purpose: str, subject: Path, seen: str) -> bool:
    """Whether `seen` is the stamp this user would make for `subject` now."""
    return hmac.compare_digest(stamp(purpose, subject), seen.strip())
