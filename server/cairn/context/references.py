"""The user's explicit `@file` / `@dir` references as context blocks.

`reference_blocks(workspace, refs, ignore=..., count=...)` turns each
reference into one `reference` block:

- a file → its whole text (the editor's unsaved text wins over the disk),
  `ref` = workspace-relative path, `version` = content hash, `kind` "code"
  for a programming language, "log" for logs (`LOG_SUFFIXES`), else "text"
  (what the text really is — a log saved as `.txt`, a minified bundle — is
  judged from its content when it has to be shrunk: `context.degrade`);
- a file over the read limit → its head, error lines and tail, read by
  streaming (`context.large_files`), kind "log", its reason saying how many
  of its lines are shown and how to read any range;
- a directory → a tree listing of its non-ignored entries (at most
  `TREE_MAX_DEPTH` levels and `TREE_MAX_ENTRIES` lines; deeper folders are
  collapsed to a file count) followed by a list of relevant files — names and
  sizes, never contents. Relevant means, in this order: open in the editor,
  a well-known entry or manifest name (`KEY_FILE_STEMS`, `KEY_FILE_NAMES`),
  most recently modified; only files `guard_path` accepts (so no secrets,
  links out, binaries or over-size files), at most `RELEVANT_FILES_MAX`;
- anything `guard_path` refuses (outside the workspace, a symlink escaping
  it, a secret, ignored, binary, too large, missing, unreadable) → a block
  with `included=False`, no text, 0 tokens, and the refusal as `reason`;
  its `ref` is the name the user wrote (`written_name`: an absolute path or
  `file:` URI inside a workspace folder as its workspace path, links not
  followed) and, when that name leads to another file of the workspace (a
  symlink), `target` says which.

The same file referenced twice yields one block (a refused one: one refusal). `ignore` holds the rules of
the root folder; a reference into another workspace folder uses that
folder's own rules (`ignore=None` applies no `.gitignore` rules at all). Framing (a title naming the
file) is the builder's job; `ref` carries the path.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePath

from cairn.context.blocks import make_block
from cairn.context.large_files import excerpt_reason, guard_large, large_file_excerpt
from cairn.context.priorities import PRIORITY_REFERENCE
from cairn.errors import CairnError, PathRefusedError
from cairn.files.guard import MAX_FILE_BYTES, PathRefusal, guard_path, read_refusal
from cairn.files.ignore import ALWAYS_IGNORED_DIRS, IgnoreRules
from cairn.files.languages import language_of
from cairn.files.reading import try_resolve
from cairn.files.workspace import Workspace, uri_to_path
from cairn.models.manifest import BlockKind, ContextBlock

# Directory listing limits.
TREE_MAX_DEPTH = 3
TREE_MAX_ENTRIES = 200
RELEVANT_FILES_MAX = 12
# File name suffixes (and `name.log.1` rotations) read as logs.
LOG_SUFFIXES: frozenset[str] = frozenset({".log", ".out", ".err", ".trace"})
# Entry-point and documentation stems that make a file relevant in a directory listing.
KEY_FILE_STEMS: frozenset[str] = frozenset(
    {"readme", "agents", "__init__", "__main__", "main", "index", "app", "cli", "lib", "mod"}
)
# Manifest names that make a file relevant in a directory listing.
KEY_FILE_NAMES: frozenset[str] = frozenset(
    {
        "pyproject.toml",
        "setup.py",
        "package.json",
        "go.mod",
        "Cargo.toml",
        "pom.xml",
        "build.gradle",
        "build.gradle.kts",
        "Makefile",
        "Dockerfile",
    }
)
_KIB = 1024

Count = Callable[[str], int]


def block_kind(path: PurePath) -> BlockKind:
    """How a referenced file's block may be degraded: code, log or plain text."""
    suffixes = [suffix.lower() for suffix in path.suffixes]
    if any(suffix in LOG_SUFFIXES for suffix in suffixes):
        return "log"
    return "code" if language_of(path) is not None else "text"


def refused_block(ref: str, reason: str, target: str | None = None) -> ContextBlock:
    """A placeholder for a refused reference: nothing of the file, only why (and, for a
    name that leads elsewhere, where)."""
    return ContextBlock(
        source="reference",
        priority=PRIORITY_REFERENCE,
        text="",
        tokens=0,
        version="",
        ref=ref,
        included=False,
        reason=reason,
        target=target,
    )


def _clean(ref: str) -> str:
    return ref.strip().removeprefix("@")


def written_name(workspace: Workspace, ref: str) -> str:
    """The name a reference is known by: as written (without `@`), or for an absolute path
    or `file:` URI inside a workspace folder its workspace path — links not followed, so
    a link is named by itself, not by its target."""
    cleaned = _clean(ref)
    raw = uri_to_path(cleaned) if cleaned.startswith("file:") else Path(cleaned)
    if raw.is_absolute() and workspace.folder_of(raw) is not None:
        return workspace.relative(raw)
    return cleaned


def link_target(workspace: Workspace, name: str) -> str | None:
    """The workspace path `name` resolves to when that is another path (a symlink), else
    None (also when it resolves nowhere inside the workspace)."""
    try:
        resolved = workspace.relative(workspace.resolve(name))
    except CairnError:
        return None
    return resolved if resolved != name.rstrip("/") else None


def _read(workspace: Workspace, ref: str, path: Path, max_bytes: int) -> str:
    try:
        return workspace.read_text(path, max_bytes)
    except OSError as error:
        raise read_refusal(ref, error) from error


def _rules_for(
    workspace: Workspace, ref: str, ignore: IgnoreRules | None, others: dict[Path, IgnoreRules]
) -> IgnoreRules | None:
    """The ignore rules of the folder `ref` lands in: `ignore`, or (multi-root) that folder's own."""
    if ignore is None:
        return None
    try:
        folder = workspace.folder_of(workspace.resolve(ref))
    except PathRefusedError:
        return ignore
    if folder is None or folder == ignore.root:
        return ignore
    if folder not in others:
        others[folder] = IgnoreRules.for_folder(folder)
    return others[folder]


def reference_blocks(
    workspace: Workspace,
    refs: list[str],
    *,
    ignore: IgnoreRules | None,
    count: Count,
    max_bytes: int = MAX_FILE_BYTES,
) -> list[ContextBlock]:
    """One block per distinct reference, in the order given (see the module docstring)."""
    blocks: list[ContextBlock] = []
    seen: set[Path] = set()
    refused: set[str] = set()
    others: dict[Path, IgnoreRules] = {}
    for raw in refs:
        ref = _clean(raw)
        if ref in refused:
            continue
        rules = _rules_for(workspace, ref, ignore, others)
        note: str | None = None
        try:
            try:
                path = guard_path(workspace, ref, ignore=rules, max_bytes=max_bytes, allow_dir=True)
                large = False
            except PathRefusal as refusal:
                path = guard_large(workspace, ref, ignore=rules, refusal=refusal)
                large = True
            if path in seen:
                continue
            seen.add(path)
            if path.is_dir():
                text = directory_listing(workspace, path, ignore=rules, max_bytes=max_bytes)
                kind: BlockKind = "text"
            elif large:
                text, kind, note = _read_large(workspace, ref, path, max_bytes)
            else:
                text = _read(workspace, ref, path, max_bytes)
                kind = block_kind(path)
        except PathRefusal as refusal:
            refused.add(ref)
            name = written_name(workspace, ref)
            blocks.append(refused_block(name, str(refusal), link_target(workspace, name)))
            continue
        block = make_block(
            "reference",
            PRIORITY_REFERENCE,
            text,
            count=count,
            ref=workspace.relative(path),
            kind=kind,
        )
        block.reason = note
        blocks.append(block)
    return blocks


def _read_large(
    workspace: Workspace, ref: str, path: Path, max_bytes: int
) -> tuple[str, BlockKind, str]:
    """A file over the read limit: an editor buffer's whole text (selection shrinks it),
    else the file's streamed excerpt; its kind, and the reason saying so."""
    buffer = workspace.buffers.get(path)
    if buffer is not None:
        return buffer.text, block_kind(path), f"over the {max_bytes}-byte read limit"
    rel = workspace.relative(path)
    try:
        streamed = large_file_excerpt(path, rel)
    except OSError as error:
        raise read_refusal(ref, error) from error
    return streamed.text, "log", excerpt_reason(rel, streamed.shown_lines, streamed.total_lines)


# -- directories ----------------------------------------------------------------


@dataclass
class _Folder:
    """A folder of the listing: sub-folders and file names."""

    folders: dict[str, _Folder] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)

    def add(self, parts: tuple[str, ...]) -> None:
        node = self
        for part in parts[:-1]:
            node = node.folders.setdefault(part, _Folder())
        node.files.append(parts[-1])

    def file_count(self) -> int:
        return len(self.files) + sum(sub.file_count() for sub in self.folders.values())


def _files_under(directory: Path, ignore: IgnoreRules | None) -> list[Path]:
    """Non-ignored files under `directory`, sorted (from `ignore` when it covers the folder)."""
    if ignore is not None and directory.is_relative_to(ignore.root):
        return [path for path in ignore.files() if path.is_relative_to(directory)]
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(directory):
        dirnames[:] = [name for name in dirnames if name not in ALWAYS_IGNORED_DIRS]
        found.extend(Path(dirpath) / name for name in filenames)
    return sorted(found)


def _render_tree(root: _Folder, name: str) -> list[str]:
    lines = [f"{name}/"]
    budget = TREE_MAX_ENTRIES

    def walk(node: _Folder, depth: int) -> None:
        nonlocal budget
        indent = "  " * depth
        entries = [(n, node.folders[n]) for n in sorted(node.folders)] + [
            (n, None) for n in sorted(node.files)
        ]
        for index, (entry, sub) in enumerate(entries):
            if budget <= 0:
                lines.append(f"{indent}… {len(entries) - index} more entries")
                return
            budget -= 1
            if sub is None:
                lines.append(f"{indent}{entry}")
            elif depth >= TREE_MAX_DEPTH:
                lines.append(f"{indent}{entry}/ ({sub.file_count()} files)")
            else:
                lines.append(f"{indent}{entry}/")
                walk(sub, depth + 1)

    walk(root, 1)
    return lines


def _relevance_key(workspace: Workspace, path: Path, mtime: float) -> tuple[int, int, float, str]:
    open_in_editor = 0 if path in workspace.buffers else 1
    pure = PurePath(path.name)
    key_name = 0 if pure.name in KEY_FILE_NAMES or pure.stem.lower() in KEY_FILE_STEMS else 1
    return (open_in_editor, key_name, -mtime, path.as_posix())


def _relevant_files(
    workspace: Workspace, files: list[Path], ignore: IgnoreRules | None, max_bytes: int
) -> list[tuple[Path, int]]:
    """Up to RELEVANT_FILES_MAX files the guard would let the model read, most relevant first."""
    ranked: list[tuple[tuple[int, int, float, str], Path, int]] = []
    for path in files:
        try:
            info = path.stat()
        except OSError:
            continue
        ranked.append((_relevance_key(workspace, path, info.st_mtime), path, info.st_size))
    chosen: list[tuple[Path, int]] = []
    for _key, path, size in sorted(ranked):
        if len(chosen) >= RELEVANT_FILES_MAX:
            break
        try:
            guard_path(workspace, str(path), ignore=ignore, max_bytes=max_bytes)
        except PathRefusal:
            continue
        chosen.append((path, size))
    return chosen


def _size(size: int) -> str:
    return f"{size} B" if size < _KIB else f"{size / _KIB:.1f} KiB"


def _inside(workspace: Workspace, path: Path) -> bool:
    """True when `path` resolves inside a workspace folder (a symlink loop does not)."""
    resolved = try_resolve(path)
    return resolved is not None and workspace.folder_of(resolved) is not None


def directory_listing(
    workspace: Workspace,
    directory: Path,
    *,
    ignore: IgnoreRules | None,
    max_bytes: int = MAX_FILE_BYTES,
) -> str:
    """A tree of `directory`'s non-ignored entries and its most relevant files (no contents)."""
    files = [path for path in _files_under(directory, ignore) if _inside(workspace, path)]
    tree = _Folder()
    for path in files:
        tree.add(path.relative_to(directory).parts)
    rel = workspace.relative(directory)
    header = (
        f"Directory {rel}/: {len(files)} files "
        f"(tree to depth {TREE_MAX_DEPTH}; deeper folders show their file count)"
    )
    lines = [header, *_render_tree(tree, rel)]
    relevant = _relevant_files(workspace, files, ignore, max_bytes)
    if relevant:
        lines.append("")
        lines.append(
            "Relevant files (open in the editor, entry points and manifests, then most "
            "recently changed; contents not included — reference one with @path to read it):"
        )
        lines.extend(f"- {workspace.relative(path)} ({_size(size)})" for path, size in relevant)
    return "\n".join(lines)
