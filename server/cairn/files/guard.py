"""The gate every path the user or the model names must pass before Cairn reads it.

`guard_path(workspace, ref)` turns a reference (workspace-relative path,
absolute path or `file:` uri) into a resolved path, or raises
`PathRefusal` (a `PathRefusedError`) whose message names the path and the
reason. The checks, in order:

1. outside — resolved through `Workspace.resolve`, which follows symlinks, so
   a link pointing out of every workspace folder is refused;
2. secret — the name (of the reference or of the link's target) matches
   `SECRET_NAME_PATTERNS`, or a folder on the way is in `SECRET_DIR_NAMES`;
3. ignored — by `.gitignore` rules or the always-ignored folders (`IgnoreRules`);
4. not found; 5. a directory (unless `allow_dir`);
6. too large — more than `max_bytes` (default `MAX_FILE_BYTES`);
7. binary — a NUL byte, or too many suspicious bytes, in the first `BINARY_SNIFF_BYTES`;
8. unreadable — the operating system refuses to read it.

An open editor buffer counts as existing text even when it is not saved yet;
`read_text_guarded` returns the editor's text when there is one.
"""

from __future__ import annotations

import fnmatch
import os
from pathlib import Path
from typing import Literal

from cairn.errors import PathRefusedError
from cairn.files.ignore import ALWAYS_IGNORED_DIRS, IgnoreRules
from cairn.files.workspace import Workspace, uri_to_path

# Largest file (bytes) handed to the model whole, before any degradation.
MAX_FILE_BYTES = 1024 * 1024
# How much of a file's head is inspected to decide whether it is binary.
BINARY_SNIFF_BYTES = 8 * 1024
# A head with more than this share of suspicious bytes (control bytes; when it is not
# UTF-8, also bytes above ASCII) is binary.
BINARY_SUSPICIOUS_RATIO = 0.30

# File names (matched case-insensitively) that hold credentials or private keys.
SECRET_NAME_PATTERNS: tuple[str, ...] = (
    ".env",
    ".env.*",
    "*.pem",
    "*.key",
    "id_rsa*",
    "id_dsa*",
    "id_ecdsa*",
    "id_ed25519*",
    "*.p12",
    "*.pfx",
    "*.jks",
    "*.keystore",
    "*.kdbx",
    ".npmrc",
    ".pypirc",
    ".netrc",
    ".pgpass",
    ".git-credentials",
    ".htpasswd",
)
# `.env` templates that are documentation, not secrets (they match `.env.*`).
SECRET_EXEMPT_NAMES: frozenset[str] = frozenset(
    {".env.example", ".env.sample", ".env.template", ".env.dist"}
)
# Folders whose every file is treated as secret.
SECRET_DIR_NAMES: frozenset[str] = frozenset({".ssh", ".gnupg", ".aws"})

# Bytes that occur in ordinary text: tab, newlines, form feed, backspace, bell, escape.
_TEXT_CONTROL_BYTES = frozenset({7, 8, 9, 10, 12, 13, 27})
_CONTROL_LIMIT = 0x20
_ASCII_LIMIT = 0x7F
# A UTF-8 character is at most 4 bytes, so a cut one leaves at most 3 at the end.
_UTF8_MAX_CUT = 3

Reason = Literal[
    "outside", "secret", "ignored", "not_found", "directory", "too_large", "binary", "unreadable"
]

# How an empty reference is named in its refusal.
EMPTY_REF_LABEL = "(empty path)"

_REASON_TEXT: dict[Reason, str] = {
    "outside": "outside the workspace",
    "secret": "secret file",
    "ignored": "ignored",
    "not_found": "not found",
    "directory": "is a directory",
    "too_large": "too large",
    "binary": "binary file",
    "unreadable": "cannot be read",
}


class PathRefusal(PathRefusedError):
    """A refused path, with a machine-readable `reason` besides the one-line message."""

    def __init__(self, ref: str, reason: Reason, detail: str = "") -> None:
        text = _REASON_TEXT[reason] + (f" ({detail})" if detail else "")
        super().__init__(f"{ref}: {text}")
        self.ref = ref
        self.reason: Reason = reason


def secret_pattern(path: Path) -> str | None:
    """The secret pattern `path` matches (name or folder), or None when it is not secret."""
    name = path.name.lower()
    if name not in SECRET_EXEMPT_NAMES:
        for pattern in SECRET_NAME_PATTERNS:
            if fnmatch.fnmatchcase(name, pattern):
                return pattern
    for part in path.parts:
        if part.lower() in SECRET_DIR_NAMES:
            return f"{part}/"
    return None


def is_secret(path: Path) -> bool:
    """True for `.env*`, private keys, key stores and credential files.

    An absolute path that is a symlink is also judged by its target's name, so
    a harmless-looking link to `.env` is secret too.
    """
    if secret_pattern(path) is not None:
        return True
    try:
        if path.is_absolute() and path.is_symlink():
            return secret_pattern(Path(path.resolve().name)) is not None
    except OSError:
        return False
    return False


def is_binary(data: bytes | Path) -> bool:
    """True when bytes (or a file's head) look binary: a NUL byte or many suspicious bytes."""
    if isinstance(data, Path):
        with data.open("rb") as handle:
            data = handle.read(BINARY_SNIFF_BYTES)
    head = data[:BINARY_SNIFF_BYTES]
    if not head:
        return False
    if b"\0" in head:
        return True
    suspicious = sum(
        1 for byte in head if byte < _CONTROL_LIMIT and byte not in _TEXT_CONTROL_BYTES
    )
    if not _is_utf8(head):
        # Not UTF-8: bytes above ASCII are suspicious too (legacy-encoded text has few).
        suspicious += sum(1 for byte in head if byte > _ASCII_LIMIT)
    return suspicious / len(head) > BINARY_SUSPICIOUS_RATIO


def _is_utf8(head: bytes) -> bool:
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as error:
        # A multi-byte character cut at the sniff boundary is still UTF-8.
        return error.start >= len(head) - _UTF8_MAX_CUT and error.reason == "unexpected end of data"
    return True


def _lexical_path(workspace: Workspace, ref: str) -> Path | None:
    """The absolute path `ref` names before following symlinks (None if not in a folder)."""
    raw = uri_to_path(ref) if ref.startswith("file:") else Path(ref)
    candidates = [raw] if raw.is_absolute() else [folder / raw for folder in workspace.folders]
    for candidate in candidates:
        lexical = Path(os.path.normpath(candidate))
        if workspace.folder_of(lexical) is not None:
            return lexical
    return None


def _check_secret(workspace: Workspace, ref: str, resolved: Path, lexical: Path | None) -> None:
    for path in (lexical, resolved):
        if path is None:
            continue
        folder = workspace.folder_of(path)
        inner = path.relative_to(folder) if folder is not None else Path(path.name)
        pattern = secret_pattern(inner)
        if pattern is not None:
            raise PathRefusal(ref, "secret", f"matches {pattern!r}")


def _check_ignored(
    workspace: Workspace, ref: str, resolved: Path, lexical: Path | None, ignore: IgnoreRules | None
) -> None:
    for path in (lexical, resolved):
        if path is None:
            continue
        folder = workspace.folder_of(path)
        if folder is not None and path != folder:
            parts = path.relative_to(folder).parts
            hit = next((part for part in parts if part in ALWAYS_IGNORED_DIRS), None)
            if hit is not None:
                raise PathRefusal(ref, "ignored", f"inside {hit}/")
        if ignore is not None and ignore.is_ignored(path):
            raise PathRefusal(ref, "ignored", "by .gitignore")


def guard_path(
    workspace: Workspace,
    ref: str,
    *,
    ignore: IgnoreRules | None = None,
    max_bytes: int = MAX_FILE_BYTES,
    allow_dir: bool = False,
) -> Path:
    """The resolved path `ref` names, if the agent may read it; else raise `PathRefusal`."""
    ref = str(ref)
    if not ref.strip():
        raise PathRefusal(EMPTY_REF_LABEL, "not_found")
    try:
        resolved = workspace.resolve(ref)
    except PathRefusedError as error:
        raise PathRefusal(ref, "outside") from error
    lexical = _lexical_path(workspace, ref)
    _check_secret(workspace, ref, resolved, lexical)
    _check_ignored(workspace, ref, resolved, lexical, ignore)
    buffer = workspace.buffers.get(resolved)
    if buffer is not None:
        size = len(buffer.text.encode("utf-8"))
        if size > max_bytes:
            raise PathRefusal(ref, "too_large", f"{size} bytes > {max_bytes}")
        return resolved
    if not resolved.exists():
        raise PathRefusal(ref, "not_found")
    if resolved.is_dir():
        if allow_dir:
            return resolved
        raise PathRefusal(ref, "directory")
    try:
        size = resolved.stat().st_size
        if size > max_bytes:
            raise PathRefusal(ref, "too_large", f"{size} bytes > {max_bytes}")
        binary = is_binary(resolved)
    except OSError as error:
        raise PathRefusal(ref, "unreadable", error.strerror or type(error).__name__) from error
    if binary:
        raise PathRefusal(ref, "binary")
    return resolved


def read_text_guarded(
    workspace: Workspace,
    ref: str,
    *,
    ignore: IgnoreRules | None = None,
    max_bytes: int = MAX_FILE_BYTES,
) -> str:
    """The text of `ref` after `guard_path` (the editor's unsaved text wins over the disk)."""
    path = guard_path(workspace, ref, ignore=ignore, max_bytes=max_bytes)
    try:
        return workspace.read_text(path)
    except OSError as error:
        raise PathRefusal(ref, "unreadable", error.strerror or type(error).__name__) from error
