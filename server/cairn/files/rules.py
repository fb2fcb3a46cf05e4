"""Rules files (`AGENTS.md`): which ones apply to which files, reading them, hashing them.

A folder's rules file is its `AGENTS.md`, or, when it has none, its
`CLAUDE.md` (`RULES_FILE_NAMES`, first match wins, one file per folder: a
project written for Claude Code keeps its rules without a copy, and a
folder with both is not told the same thing twice). For the workspace
root, its rules file always applies. For each file in play, every rules
file on the path from its workspace folder down to the file's own folder
applies too. `applicable_rules_files` returns them
deduplicated and ordered general to specific — by workspace folder, then
depth, then path — so for every file the nearest rules come last, and the
order does not depend on the order of the files given (stable output keeps
caches warm). Rules files off those paths never apply.

`read_rules_file` reads one like any reference (the editor's unsaved text
wins) but refuses one larger than `MAX_RULES_FILE_BYTES` (checked before
reading) or one that is not a regular file. A file in play whose symlinks
loop adds no folders. The profile lists
every rules file of a folder (`rules_files_in_folder`) with its content hash
(`hash_rules_files`). The context's rules blocks are made by
`cairn.context.rules`.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from cairn.errors import PathRefusedError
from cairn.files.ignore import IgnoreRules
from cairn.files.reading import read_text_bounded, try_resolve
from cairn.files.text import content_hash
from cairn.files.workspace import Workspace
from cairn.models.profile import RulesFile

# A folder's rules file: the first of these it has (see the module docstring).
RULES_FILE_NAMES: tuple[str, ...] = ("AGENTS.md", "CLAUDE.md")
# A rules file larger than this is refused (it would crowd out everything else).
MAX_RULES_FILE_BYTES = 256 * 1024


def _rules_in(folder: Path) -> list[Path]:
    """The folder's rules file (the first of `RULES_FILE_NAMES` it has), as a list."""
    found = next((folder / n for n in RULES_FILE_NAMES if (folder / n).is_file()), None)
    return [] if found is None else [found]


def _preferred(paths: Iterable[Path]) -> list[Path]:
    """Of several rules files, the one of each folder that `RULES_FILE_NAMES` prefers."""
    best: dict[Path, Path] = {}
    for path in paths:
        kept = best.get(path.parent)
        if kept is None or RULES_FILE_NAMES.index(path.name) < RULES_FILE_NAMES.index(kept.name):
            best[path.parent] = path
    return list(best.values())


def _chain(folder: Path, target: Path) -> list[Path]:
    """Folders from `folder` down to `target`'s folder (or `target` itself when a folder)."""
    end = target if target.is_dir() else target.parent
    if not end.is_relative_to(folder):
        return [folder]
    folders = [folder]
    for part in end.relative_to(folder).parts:
        folders.append(folders[-1] / part)
    return folders


def applicable_rules_files(workspace: Workspace, files_in_play: Iterable[Path]) -> list[Path]:
    """The rules files for these files: root's plus nearer ones, general to specific."""
    folders: set[Path] = {workspace.root}
    for raw in files_in_play:
        resolved = try_resolve(Path(raw) if Path(raw).is_absolute() else workspace.root / raw)
        if resolved is None:
            continue
        path = resolved
        folder = workspace.folder_of(path)
        if folder is not None:
            folders.update(_chain(folder, path))
    index = {folder: position for position, folder in enumerate(workspace.folders)}

    def order(folder: Path) -> tuple[int, int, str]:
        home = workspace.folder_of(folder) or workspace.root
        return (index.get(home, 0), len(folder.relative_to(home).parts), folder.as_posix())

    found: list[Path] = []
    for folder in sorted(folders, key=order):
        found.extend(_rules_in(folder))
    return found


def read_rules_file(workspace: Workspace, resolved: Path) -> str:
    """The rules file's text (the editor's wins); `OSError` or `PathRefusedError` if refused."""
    text = workspace.read_text(resolved, MAX_RULES_FILE_BYTES)
    size = len(text.encode("utf-8"))
    if size > MAX_RULES_FILE_BYTES:
        raise PathRefusedError(
            f"{workspace.relative(resolved)}: too large ({size} bytes > {MAX_RULES_FILE_BYTES})"
        )
    return text


def find_rules_files(workspace: Workspace, ignore: IgnoreRules | None = None) -> list[Path]:
    """Every rules file in the workspace folders (non-ignored), sorted like `rules_blocks`."""
    found: list[Path] = []
    for folder in workspace.folders:
        rules = ignore if ignore is not None and ignore.root == folder else None
        found.extend(rules_files_in_folder(folder, rules or IgnoreRules.for_folder(folder)))
    return found


def rules_files_in_folder(folder: Path, ignore: IgnoreRules) -> list[Path]:
    """The folder's non-ignored rules files (one per folder), shallow ones first."""
    names = set(RULES_FILE_NAMES)
    hits = _preferred(path for path in ignore.files() if path.name in names)
    return sorted(hits, key=lambda path: (len(path.relative_to(folder).parts), path.as_posix()))


def hash_rules_files(folder: Path, paths: list[Path]) -> list[RulesFile]:
    """`RulesFile` records (folder-relative path, content hash as used for block versions)."""
    records: list[RulesFile] = []
    for path in paths:
        try:
            text = read_text_bounded(path, MAX_RULES_FILE_BYTES)
        except OSError:
            continue
        records.append(RulesFile(path=path.relative_to(folder).as_posix(), hash=content_hash(text)))
    return records
