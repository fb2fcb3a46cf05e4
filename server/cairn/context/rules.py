"""Project rules: the `AGENTS.md` files that apply to the files in play, as context blocks.

For the workspace root, its `AGENTS.md` always applies. For each file in
play, every `AGENTS.md` on the path from its workspace folder down to the
file's own folder applies too. The blocks come out deduplicated and ordered
general to specific — by workspace folder, then depth, then path — so for
every file the nearest rules come last, and the order does not depend on the
order of the files in play (stable output keeps caches warm). `AGENTS.md`
files off those paths never appear.

A rules file is read like any reference (the editor's unsaved text wins),
but it must stay inside the workspace after following symlinks and be at
most `MAX_RULES_FILE_BYTES`; otherwise its block is kept with
`included=False` and the reason, and none of its text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from cairn.context.blocks import content_version, make_block
from cairn.context.ignore import IgnoreRules
from cairn.context.priorities import PRIORITY_RULES
from cairn.errors import PathRefusedError
from cairn.models.context import ContextBlock
from cairn.models.profile import RulesFile
from cairn.workspace import Workspace

RULES_FILE_NAMES: tuple[str, ...] = ("AGENTS.md",)
# A rules file larger than this is refused (it would crowd out everything else).
MAX_RULES_FILE_BYTES = 256 * 1024

Count = Callable[[str], int]


def _rules_in(folder: Path) -> list[Path]:
    return [folder / name for name in RULES_FILE_NAMES if (folder / name).is_file()]


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
        path = Path(raw) if Path(raw).is_absolute() else workspace.root / raw
        path = path.resolve()
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


def _rules_block(workspace: Workspace, path: Path, count: Count) -> ContextBlock:
    ref = workspace.relative(path)
    try:
        resolved = workspace.resolve(path)
        text = _read_rules(workspace, resolved)
    except (PathRefusedError, OSError) as error:
        return ContextBlock(
            source="rules",
            priority=PRIORITY_RULES,
            text="",
            tokens=0,
            ref=ref,
            included=False,
            reason=str(error) if isinstance(error, PathRefusedError) else f"{ref}: {error}",
        )
    return make_block("rules", PRIORITY_RULES, text, count=count, ref=ref)


def _read_rules(workspace: Workspace, resolved: Path) -> str:
    text = workspace.read_text(resolved)
    size = len(text.encode("utf-8"))
    if size > MAX_RULES_FILE_BYTES:
        raise PathRefusedError(
            f"{workspace.relative(resolved)}: too large ({size} bytes > {MAX_RULES_FILE_BYTES})"
        )
    return text


def rules_blocks(
    workspace: Workspace, files_in_play: list[Path], count: Count
) -> list[ContextBlock]:
    """One `rules` block per applicable rules file, deduplicated, nearest last."""
    blocks: list[ContextBlock] = []
    seen: set[Path] = set()
    for path in applicable_rules_files(workspace, files_in_play):
        try:
            key = path.resolve()
        except OSError:
            key = path
        if key in seen:
            continue
        seen.add(key)
        blocks.append(_rules_block(workspace, path, count))
    return blocks


def find_rules_files(workspace: Workspace, ignore: IgnoreRules | None = None) -> list[Path]:
    """Every rules file in the workspace folders (non-ignored), sorted like `rules_blocks`."""
    found: list[Path] = []
    for folder in workspace.folders:
        rules = ignore if ignore is not None and ignore.root == folder else None
        found.extend(rules_files_in_folder(folder, rules or IgnoreRules.for_folder(folder)))
    return found


def rules_files_in_folder(folder: Path, ignore: IgnoreRules) -> list[Path]:
    """The folder's non-ignored rules files, shallow ones first."""
    names = set(RULES_FILE_NAMES)
    hits = [path for path in ignore.files() if path.name in names]
    return sorted(hits, key=lambda path: (len(path.relative_to(folder).parts), path.as_posix()))


def hash_rules_files(folder: Path, paths: list[Path]) -> list[RulesFile]:
    """`RulesFile` records (folder-relative path, content hash as used for block versions)."""
    records: list[RulesFile] = []
    for path in paths:
        try:
            text = path.read_bytes().decode("utf-8", errors="replace")
        except OSError:
            continue
        records.append(
            RulesFile(path=path.relative_to(folder).as_posix(), hash=content_version(text))
        )
    return records
