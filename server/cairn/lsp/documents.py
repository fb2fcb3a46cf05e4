"""Document and folder sync: didOpen/didChange/didClose/didSave, workspace folders, watched files.

Open documents inside the workspace folders are mirrored into the engine's
`Workspace` with incremental edits (the editor's text wins over the disk).
A change whose range cannot apply (inverted, or beyond the document) is
refused, never guessed at: it is logged, the document is marked out of sync
and its buffer dropped (the file on disk is used meanwhile), later incremental
changes are ignored, and the next full-text change or didOpen brings it back.
Documents outside the folders or with a non-file scheme are ignored. Handlers
are plain functions: they run in arrival order and take microseconds.
Saves and watched-file events (created, changed, deleted) go to the engine's
`files_changed`, which records them for the next context build; a change to
`cairn.toml` reloads the settings. When the client can register watchers
dynamically, the server asks it to watch every file (`WATCH_PATTERNS`).
"""

from __future__ import annotations

import logging
from concurrent.futures import Future
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from cairn.errors import CairnError
from cairn.files.buffers import TextChange
from cairn.files.workspace import uri_to_path
from cairn.lsp.settings import resolve_settings
from cairn.settings import SETTINGS_FILE

if TYPE_CHECKING:
    from cairn.lsp.server import CairnServer

logger = logging.getLogger(__name__)

FILE_SCHEME = "file:"
# Every file: new and deleted files change glob/grep and `@dir` listings and the repository
# map, `.gitignore` changes the listing, `AGENTS.md` the rules and the profile.
WATCH_PATTERNS = ("**/*",)
WATCHER_REGISTRATION_ID = "cairn-watched-files"


def document_path(ls: CairnServer, uri: str) -> Path | None:
    """The workspace path of a document, or None when Cairn does not track it (cached)."""
    if uri in ls.document_paths:
        return ls.document_paths[uri]
    path: Path | None = None
    if uri.startswith(FILE_SCHEME):
        try:
            path = ls.host.workspace.resolve(uri)
        except CairnError as exc:
            logger.debug("not tracking %s: %s", uri, exc)
    ls.document_paths[uri] = path
    return path


def to_text_change(change: types.TextDocumentContentChangeEvent) -> TextChange:
    if isinstance(change, types.TextDocumentContentChangePartial):
        start, end = change.range.start, change.range.end
        return TextChange(change.text, (start.line, start.character), (end.line, end.character))
    return TextChange(change.text)


def did_open(ls: CairnServer, params: types.DidOpenTextDocumentParams) -> None:
    document = params.text_document
    ls.document_paths.pop(document.uri, None)
    path = document_path(ls, document.uri)
    if path is not None:
        ls.out_of_sync.pop(path, None)
        ls.host.workspace.open_buffer(path, document.text, document.version, document.language_id)


def range_problem(line_count: int, start: tuple[int, int], end: tuple[int, int]) -> str | None:
    """Why a ranged change cannot apply to a document of `line_count` lines, or None.

    A position names a line of the document, or (line_count, 0): the end, as
    "the start of the next line" after the last one. A character past the end
    of its line means the end of that line (LSP), so it is not checked here.
    """
    for name, (line, character) in (("start", start), ("end", end)):
        if line > line_count or (line == line_count and character > 0):
            return f"{name} {line}:{character} is beyond the document's {line_count} lines"
    if start > end:
        return f"inverted range: start {start[0]}:{start[1]} is after end {end[0]}:{end[1]}"
    return None


def last_full_text(changes: list[TextChange]) -> int | None:
    """The index of the last whole-document change, if any."""
    for index in range(len(changes) - 1, -1, -1):
        if changes[index].start is None:
            return index
    return None


def did_change(ls: CairnServer, params: types.DidChangeTextDocumentParams) -> None:
    path = document_path(ls, params.text_document.uri)
    if path is None:
        return
    workspace = ls.host.workspace
    version = params.text_document.version
    changes = [to_text_change(change) for change in params.content_changes]
    if path in ls.out_of_sync:
        full = last_full_text(changes)
        if full is None:
            logger.debug("%s is out of sync: incremental change ignored", path)
            return
        language_id = ls.out_of_sync.pop(path)
        workspace.open_buffer(path, changes[full].text, version, language_id)
        logger.info("%s is back in sync (full text received)", path)
        changes = changes[full + 1 :]
    for index, change in enumerate(changes):
        buffer = workspace.buffers.get(path)
        if buffer is None:
            logger.warning("didChange ignored: %s is not open", params.text_document.uri)
            return
        if change.start is not None and change.end is not None:
            problem = range_problem(buffer.line_count, change.start, change.end)
            if problem is not None:
                where = f"version {version}, change {index + 1} of {len(changes)}"
                mark_out_of_sync(ls, path, f"{params.text_document.uri} ({where}): {problem}")
                return
        try:
            workspace.change_buffer(path, [change], version)
        except CairnError as exc:
            logger.warning("didChange ignored: %s", exc)
            return


def mark_out_of_sync(ls: CairnServer, path: Path, reason: str) -> None:
    """Refuse a change: drop the buffer until the editor sends the whole text again."""
    workspace = ls.host.workspace
    buffer = workspace.buffers.get(path)
    ls.out_of_sync[path] = buffer.language_id if buffer is not None else ""
    workspace.close_buffer(path)
    logger.warning(
        "didChange refused for %s; the document is out of sync until the editor sends its "
        "full text (didOpen or a whole-document change), and the file on disk is used meanwhile",
        reason,
    )


def did_close(ls: CairnServer, params: types.DidCloseTextDocumentParams) -> None:
    path = ls.document_paths.pop(params.text_document.uri, None)
    if path is not None:
        ls.out_of_sync.pop(path, None)
        ls.host.workspace.close_buffer(path)


def did_save(ls: CairnServer, params: types.DidSaveTextDocumentParams) -> None:
    path = document_path(ls, params.text_document.uri)
    if path is None:
        return
    workspace = ls.host.workspace
    if params.text is not None and path in workspace.buffers:
        buffer = workspace.buffers[path]
        buffer.apply(TextChange(params.text))
    notify_engine(ls, [path])
    if path.name == SETTINGS_FILE and path.parent == workspace.root:
        reload_settings(ls)


def did_change_workspace_folders(
    ls: CairnServer, params: types.DidChangeWorkspaceFoldersParams
) -> None:
    workspace = ls.host.workspace
    removed = {uri_to_path(folder.uri).resolve() for folder in params.event.removed}
    folders = [folder for folder in workspace.folders if folder not in removed]
    for folder in params.event.added:
        path = uri_to_path(folder.uri).resolve()
        if path not in folders:
            folders.append(path)
    if not folders:
        logger.warning("ignoring a folder change that would leave no workspace folder")
        return
    workspace.folders = folders
    ls.document_paths.clear()
    logger.info("workspace folders: %s", ", ".join(map(str, folders)))


def did_change_watched_files(ls: CairnServer, params: types.DidChangeWatchedFilesParams) -> None:
    workspace = ls.host.workspace
    settings_file = workspace.root / SETTINGS_FILE
    reload = False
    paths: list[Path] = []
    for event in params.changes:
        if not event.uri.startswith(FILE_SCHEME):
            continue
        path = uri_to_path(event.uri)
        paths.append(path)
        if event.type == types.FileChangeType.Deleted:
            workspace.set_diagnostics(path, [])
        if path == settings_file:
            reload = True
    notify_engine(ls, paths)
    if reload:
        reload_settings(ls)


def notify_engine(ls: CairnServer, paths: list[Path]) -> None:
    """Tell a ready engine about changed files (one still loading lists the files afresh)."""
    engine = ls.host.ready
    if engine is not None and paths:
        engine.files_changed(paths)


def reload_settings(ls: CairnServer) -> None:
    """Re-read `cairn.toml` with the editor's overrides on top; report invalid keys."""
    host = ls.host
    settings, kept, problems = resolve_settings(
        host.workspace.root, host.overrides, host.editor_trust
    )
    for problem in problems:
        ls.show_to_user(f"Cairn settings: {problem}")
    ls.host.update_settings(settings, kept)
    logger.info("settings reloaded")


def register_watchers(ls: CairnServer) -> None:
    """Ask the client to watch the workspace files when it supports dynamic registration."""
    if not ls.client_supports("workspace.did_change_watched_files.dynamic_registration"):
        return
    options = types.DidChangeWatchedFilesRegistrationOptions(
        watchers=[types.FileSystemWatcher(glob_pattern=pattern) for pattern in WATCH_PATTERNS]
    )
    future = ls.client_register_capability(
        types.RegistrationParams(
            registrations=[
                types.Registration(
                    id=WATCHER_REGISTRATION_ID,
                    method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                    register_options=options,
                )
            ]
        )
    )
    future.add_done_callback(_log_registration)


def _log_registration(future: Future[None]) -> None:
    if not future.cancelled() and (error := future.exception()) is not None:
        logger.info("the client did not register the file watchers: %s", error)
