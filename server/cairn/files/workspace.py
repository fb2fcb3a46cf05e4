"""What the editor knows about the workspace: folders, open buffers, diagnostics.

Pure state, no I/O beyond reading files that are not open. The editor's text
wins over the disk: `read_text` returns an open buffer's (possibly unsaved)
text, and falls back to the file on disk — a regular file only, bounded by a
size limit checked before reading (`cairn.files.reading`). Every path handed
to the core is resolved here and confined to the workspace folders after
following symlinks; a symlink loop is refused (`LinkLoopError`), never raised
as a crash.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, unquote, urlparse

from cairn.errors import PathRefusedError
from cairn.files.buffers import Buffer, TextChange
from cairn.files.reading import MAX_FILE_BYTES, UnsafeFileError, read_text_bounded, resolve_path
from cairn.files.secrets import DEFAULT_SECRET_PATHS, SecretPaths
from cairn.models.diagnostics import Diagnostic


def uri_to_path(uri: str) -> Path:
    """`file:///a/b.py` → `/a/b.py`; a plain path is returned as a Path."""
    if uri.startswith("file:"):
        return Path(unquote(urlparse(uri).path))
    return Path(uri)


def path_to_uri(path: Path) -> str:
    try:
        resolved = resolve_path(path)
    except UnsafeFileError:
        resolved = path.absolute()
    return "file://" + quote(str(resolved))


class LinkLoopError(PathRefusedError):
    """A path that cannot be resolved because its symlinks form a loop."""


def _resolve_folder(folder: Path) -> Path:
    try:
        return resolve_path(Path(folder))
    except UnsafeFileError as error:
        raise ValueError(
            f"workspace folder {folder}: symlink loop; open its real folder"
        ) from error


@dataclass
class Workspace:
    """The workspace folders and what the editor has told us about them."""

    folders: list[Path]
    buffers: dict[Path, Buffer] = field(default_factory=dict)
    diagnostics: dict[Path, list[Diagnostic]] = field(default_factory=dict)
    # Which paths are secret (the user's lists on top of the built-in rules).
    secrets: SecretPaths = DEFAULT_SECRET_PATHS

    def __post_init__(self) -> None:
        if not self.folders:
            raise ValueError("a workspace needs at least one folder")
        self.folders = [_resolve_folder(f) for f in self.folders]

    @property
    def root(self) -> Path:
        """The first workspace folder (where `.cairn/` and `cairn.toml` live)."""
        return self.folders[0]

    # -- paths -------------------------------------------------------------
    def folder_of(self, path: Path) -> Path | None:
        for folder in self.folders:
            if path == folder or path.is_relative_to(folder):
                return folder
        return None

    def resolve(self, ref: str | Path) -> Path:
        """A uri, absolute path or workspace-relative path → an absolute path inside a folder.

        Symlinks are followed before the check, so a link pointing outside is refused;
        a symlink loop raises `LinkLoopError`.
        """
        raw = (
            ref
            if isinstance(ref, Path)
            else uri_to_path(ref)
            if str(ref).startswith("file:")
            else Path(ref)
        )
        if not str(raw).strip():
            raise PathRefusedError("empty path")
        if "\x00" in str(raw):
            shown = str(ref).replace("\x00", "\\x00")
            raise PathRefusedError(f"{shown}: a path cannot contain a NUL byte")
        candidates, fallback = self._candidates(raw)
        for candidate in candidates:
            resolved = self._resolved(candidate, ref)
            if self.folder_of(resolved) is not None and (raw.is_absolute() or resolved.exists()):
                return resolved
        if fallback is not None:
            resolved = self._resolved(fallback, ref)
            if self.folder_of(resolved) is not None:
                return resolved
        raise PathRefusedError(f"{ref}: outside the workspace")

    def _candidates(self, raw: Path) -> tuple[list[Path], Path | None]:
        """Where a path may point, in order, and where a path that exists nowhere yet goes.

        A relative path is tried in the root, then as `relative` names a secondary
        folder's files (`<folder name>/<path>`), then in each secondary folder.
        """
        if raw.is_absolute():
            return [raw], None
        parts = raw.parts
        named = [
            folder.joinpath(*parts[1:])
            for folder in self.folders[1:]
            if len(parts) > 1 and parts[0] == folder.name
        ]
        others = [folder / raw for folder in self.folders[1:]]
        fallback = named[0] if named else self.root / raw
        return [self.root / raw, *named, *others], fallback

    @staticmethod
    def _resolved(candidate: Path, ref: str | Path) -> Path:
        try:
            return resolve_path(candidate)
        except UnsafeFileError:
            raise LinkLoopError(f"{ref}: symlink loop") from None

    def relative(self, path: Path) -> str:
        """Workspace-relative POSIX path (prefixed by the folder name in multi-root workspaces)."""
        folder = self.folder_of(path)
        if folder is None:
            return str(path)
        rel = path.relative_to(folder).as_posix() or "."
        if len(self.folders) > 1 and folder != self.root:
            return f"{folder.name}/{rel}"
        return rel

    # -- buffers -----------------------------------------------------------
    def open_buffer(self, path: Path, text: str, version: int = 0, language_id: str = "") -> None:
        self.buffers.pop(path, None)  # to the end: the most recently active last
        self.buffers[path] = Buffer(text, version, language_id)

    def change_buffer(self, path: Path, changes: Iterable[TextChange], version: int) -> None:
        buffer = self.buffers.pop(path, None)
        if buffer is None:
            raise PathRefusedError(f"{path}: change for a document that is not open")
        self.buffers[path] = buffer  # to the end: the most recently active last
        for change in changes:
            buffer.apply(change)
        buffer.version = version

    def close_buffer(self, path: Path) -> None:
        self.buffers.pop(path, None)

    def open_paths(self) -> Iterator[Path]:
        """The open buffers, least recently opened or edited first."""
        return iter(self.buffers)

    def copy(self) -> Workspace:
        """A copy of the editor state (buffers, diagnostics) that later edits do not change,
        for reading the workspace on another thread while the editor keeps sending changes."""
        buffers = {path: buffer.copy() for path, buffer in list(self.buffers.items())}
        diagnostics = {path: list(items) for path, items in list(self.diagnostics.items())}
        return Workspace(list(self.folders), buffers, diagnostics, self.secrets)

    def read_text(self, path: Path, max_bytes: int = MAX_FILE_BYTES) -> str:
        """The editor's text when the file is open, else the file on disk (UTF-8, replace).

        A file on disk must be a regular file of at most `max_bytes`, else
        `UnsafeFileError` (an `OSError`) — checked before it is opened.
        """
        buffer = self.buffers.get(path)
        if buffer is not None:
            return buffer.text
        return read_text_bounded(path, max_bytes)

    # -- diagnostics ---------------------------------------------------------
    def set_diagnostics(self, path: Path, diagnostics: list[Diagnostic]) -> None:
        if diagnostics:
            self.diagnostics[path] = list(diagnostics)
        else:
            self.diagnostics.pop(path, None)

    def diagnostics_for(self, path: Path | None = None) -> dict[Path, list[Diagnostic]]:
        if path is None:
            return dict(self.diagnostics)
        return {path: self.diagnostics[path]} if path in self.diagnostics else {}
