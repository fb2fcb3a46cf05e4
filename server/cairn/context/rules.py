"""Project rules as context blocks: one `rules` block per applicable `AGENTS.md`.

Which rules files apply, in which order, is `cairn.files.rules`'s business
(general to specific, nearest last). A rules file that cannot be read, is
outside the workspace after following symlinks, or is larger than
`cairn.files.rules.MAX_RULES_FILE_BYTES`, is not a regular file (a FIFO) or
sits behind a symlink loop keeps its block with `included=False` and the
reason, and none of its text.
"""

from __future__ import annotations

from pathlib import Path

from cairn.context.blocks import Count, make_block
from cairn.context.priorities import PRIORITY_RULES
from cairn.errors import PathRefusedError
from cairn.files.reading import UnsafeFileError, try_resolve
from cairn.files.rules import applicable_rules_files, read_rules_file
from cairn.files.workspace import Workspace
from cairn.models.manifest import ContextBlock


def _reason(ref: str, error: Exception) -> str:
    if isinstance(error, PathRefusedError):
        return str(error)
    if isinstance(error, UnsafeFileError):
        return f"{ref}: {error.detail}"
    return f"{ref}: {error}"


def _rules_block(workspace: Workspace, path: Path, count: Count) -> ContextBlock:
    ref = workspace.relative(path)
    try:
        resolved = workspace.resolve(path)
        text = read_rules_file(workspace, resolved)
    except (PathRefusedError, OSError) as error:
        return ContextBlock(
            source="rules",
            priority=PRIORITY_RULES,
            text="",
            tokens=0,
            ref=ref,
            included=False,
            reason=_reason(ref, error),
        )
    return make_block("rules", PRIORITY_RULES, text, count=count, ref=ref)


def rules_blocks(
    workspace: Workspace, files_in_play: list[Path], count: Count
) -> list[ContextBlock]:
    """One `rules` block per applicable rules file, deduplicated, nearest last."""
    blocks: list[ContextBlock] = []
    seen: set[Path] = set()
    for path in applicable_rules_files(workspace, files_in_play):
        key = try_resolve(path) or path
        if key in seen:
            continue
        seen.add(key)
        blocks.append(_rules_block(workspace, path, count))
    return blocks
