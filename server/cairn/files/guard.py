"""The gate every path the user or the model names must pass before Cairn reads it.

`guard_path(workspace, ref)` turns a reference (workspace-relative path,
absolute path or `file:` uri) into a resolved path, or raises
`PathRefusal` (a `PathRefusedError`) whose message names the path and the
reason. The checks, in order:

1. outside — resolved through `Workspace.resolve`, which follows symlinks, so
   a link pointing out of every workspace folder is refused; a symlink loop
   is refused as `link_loop`;
2. secret — the folder-relative path (of the reference or of the link's
   target) falls under the workspace's secret-path rules
   (`cairn.files.secrets`: the user's `secret_paths`, their exemptions, the
   built-in names and folders);
3. ignored — by `.gitignore` rules or the always-ignored folders (`IgnoreRules`);
4. not found; 5. a directory (unless `allow_dir`);
6. special — a FIFO, socket or device (found by `stat`, never opened: a FIFO
   would block the reader);
7. too large — more than `max_bytes` (default `MAX_FILE_BYTES`), from `stat`;
8. binary — a NUL byte, or too many suspicious bytes, in the first `BINARY_SNIFF_BYTES`;
9. unreadable — the operating system refuses to read it.

An open editor buffer counts as existing text even when it is not saved yet;
`read_text_guarded` returns the editor's text when there is one.
"""

from __future__ import annotations

import codecs
import errno
import os
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

from cairn.errors import PathRefusedError
from cairn.files.ignore import ALWAYS_IGNORED_DIRS, IgnoreRules
from cairn.files.reading import (
    MAX_FILE_BYTES,
    UnsafeFileError,
    kind_name,
    read_bytes_bounded,
    try_resolve,
)
from cairn.files.secrets import builtin_rule
from cairn.files.workspace import LinkLoopError, Workspace, uri_to_path

# `MAX_FILE_BYTES` (the largest file handed to the model whole) lives in `cairn.files.reading`.
# How much of a file's head is inspected to decide whether it is binary.
BINARY_SNIFF_BYTES = 8 * 1024
# A head with more than this share of suspicious bytes (control bytes; when it is not
# UTF-8, also bytes above ASCII) is binary.
BINARY_SUSPICIOUS_RATIO = 0.30

# Bytes that occur in ordinary text: tab, newlines, form feed, backspace, bell, escape.
_TEXT_CONTROL_BYTES = frozenset({7, 8, 9, 10, 12, 13, 27})
_CONTROL_LIMIT = 0x20
_ASCII_LIMIT = 0x7F
# A UTF-8 character is at most 4 bytes, so a cut one leaves at most 3 at the end.
_UTF8_MAX_CUT = 3

Reason = Literal[
    "outside",
    "link_loop",
    "secret",
    "ignored",
    "not_found",
    "directory",
    "special",
    "too_large",
    "binary",
    "unreadable",
    "nul_byte",
]

# How an empty reference is named in its refusal.
EMPTY_REF_LABEL = "(empty path)"

_REASON_TEXT: dict[Reason, str] = {
    "outside": "outside the workspace",
    "link_loop": "symlink loop",
    "secret": "secret file",
    "ignored": "ignored",
    "not_found": "not found",
    "directory": "is a directory",
    "special": "not a regular file",
    "too_large": "too large",
    "binary": "binary file",
    "unreadable": "cannot be read",
    "nul_byte": "a path cannot contain a NUL byte",
}


class PathRefusal(PathRefusedError):
    """A refused path, with a machine-readable `reason` besides the one-line message."""

    def __init__(self, ref: str, reason: Reason, detail: str = "") -> None:
        text = _REASON_TEXT[reason] + (f" ({detail})" if detail else "")
        super().__init__(f"{ref}: {text}")
        self.ref = ref
        self.reason: Reason = reason


def secret_pattern(path: Path) -> str | None:
    """The built-in secret pattern `path` matches (name or folder), or None when it is not secret."""
    return builtin_rule(path)


def secret_rule(workspace: Workspace, path: Path) -> str | None:
    """The rule of the workspace's secret policy that `path` (absolute) falls under, or None.

    Judged on the folder-relative path as named and, for a symlink, on its target
    too, so a harmless-looking link to `.env` is secret.
    """
    target = try_resolve(path) if path.is_absolute() else None
    return _first_secret_rule(workspace, (path, target))


def _first_secret_rule(workspace: Workspace, paths: Iterable[Path | None]) -> str | None:
    """The secret rule the first of `paths` (absolute, or None: skipped) falls under, judged on
    its folder-relative path (its name outside every folder); None when none does."""
    for path in paths:
        if path is None:
            continue
        folder = workspace.folder_of(path)
        inner = path.relative_to(folder) if folder is not None else Path(path.name)
        rule = workspace.secrets.rule_for(inner)
        if rule is not None:
            return rule
    return None


def is_secret(path: Path) -> bool:
    """True for `.env*`, private keys, key stores and credential files (built-in rules).

    An absolute path that is a symlink is also judged by its target's name, so
    a harmless-looking link to `.env` is secret too. Readers with a workspace
    use `secret_rule`, which applies the user's lists too.
    """
    if secret_pattern(path) is not None:
        return True
    try:
        if not (path.is_absolute() and path.is_symlink()):
            return False
    except OSError:
        return False
    target = try_resolve(path)
    return target is not None and secret_pattern(Path(target.name)) is not None


# Byte-order marks of UTF-16 and UTF-32 text (`cairn.files.encoding` reads it).
WIDE_TEXT_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE, codecs.BOM_UTF32_BE)


def is_binary(data: bytes | Path) -> bool:
    """True when bytes (or a file's head) look binary: a NUL byte or many suspicious bytes.

    A path must be a regular file (else `UnsafeFileError`, before any open).
    """
    if isinstance(data, Path):
        data = read_bytes_bounded(data, BINARY_SNIFF_BYTES, head=True)
    head = data[:BINARY_SNIFF_BYTES]
    if not head:
        return False
    if head.startswith(WIDE_TEXT_BOMS):  # UTF-16/32 text is full of NUL bytes
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
    pattern = _first_secret_rule(workspace, (lexical, resolved))
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
    if "\x00" in ref:
        raise PathRefusal(ref.replace("\x00", "\\x00"), "nul_byte")
    try:
        resolved = workspace.resolve(ref)
    except LinkLoopError as error:
        raise PathRefusal(ref, "link_loop") from error
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
    mode, size = _stat(ref, resolved)
    if stat.S_ISDIR(mode):
        if allow_dir:
            return resolved
        raise PathRefusal(ref, "directory")
    if not stat.S_ISREG(mode):
        raise PathRefusal(ref, "special", kind_name(mode))
    if size > max_bytes:
        raise PathRefusal(ref, "too_large", f"{size} bytes > {max_bytes}")
    try:
        binary = is_binary(resolved)
    except OSError as error:  # unreadable, or swapped for a FIFO since the stat
        raise read_refusal(ref, error) from error
    if binary:
        raise PathRefusal(ref, "binary")
    return resolved


_UNSAFE_REASON: dict[str, Reason] = {
    "link_loop": "link_loop",
    "special": "special",
    "too_large": "too_large",
}


def read_refusal(ref: str, error: OSError) -> PathRefusal:
    """The refusal for a read of `ref` that failed with `error` (unsafe or unreadable)."""
    if isinstance(error, UnsafeFileError):
        return PathRefusal(ref, _UNSAFE_REASON[error.problem], error.detail)
    return PathRefusal(ref, "unreadable", error.strerror or type(error).__name__)


def _stat(ref: str, resolved: Path) -> tuple[int, int]:
    """(mode, size) of the resolved path (links followed), or the refusal saying why not."""
    try:
        info = os.stat(resolved)
    except FileNotFoundError as error:
        raise PathRefusal(ref, "not_found") from error
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise PathRefusal(ref, "link_loop") from error
        if error.errno == errno.ENOTDIR:
            raise PathRefusal(ref, "not_found") from error
        raise PathRefusal(ref, "unreadable", error.strerror or type(error).__name__) from error
    return info.st_mode, info.st_size


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
        return workspace.read_text(path, max_bytes)
    except OSError as error:
        raise read_refusal(ref, error) from error
