"""Project rules as context blocks: one `rules` block per applicable `AGENTS.md`.

A nested rules file whose files left play (their messages were summarised or
folded, `cairn.context.in_play`) and that no file in play still needs is a
block with no text, `included=False` and the reason (`out_of_play_blocks`),
so the manifest says why those rules are no longer sent.

Which rules files apply, in which order, is `cairn.files.rules`'s business
(general to specific, nearest last). A rules file that cannot be read, is
outside the workspace after following symlinks, or is larger than
`cairn.files.rules.MAX_RULES_FILE_BYTES`, is not a regular file (a FIFO) or
sits behind a symlink loop keeps its block with `included=False` and the
reason, and none of its text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from cairn.context.blocks import Count, make_block
from cairn.context.priorities import PRIORITY_RULES
from cairn.errors import CairnError, PathRefusedError
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


OUT_OF_PLAY = "out of play: the messages that touched {path} were {why}"


def out_of_play_blocks(
    workspace: Workspace, left: Mapping[str, str], files_in_play: Sequence[Path]
) -> list[ContextBlock]:
    """A text-less block per rules file that only files which left play needed (`left`:
    path → what became of their messages), saying why it is not sent."""
    applied = {try_resolve(p) or p for p in applicable_rules_files(workspace, files_in_play)}
    blocks: list[ContextBlock] = []
    for rel, why in left.items():
        try:
            path = workspace.resolve(rel)
        except CairnError:
            continue
        for rules in applicable_rules_files(workspace, [path]):
            key = try_resolve(rules) or rules
            if key in applied:
                continue
            applied.add(key)
            blocks.append(
                ContextBlock(
                    source="rules",
                    priority=PRIORITY_RULES,
                    text="",
                    tokens=0,
                    ref=workspace.relative(rules),
                    included=False,
                    reason=OUT_OF_PLAY.format(path=rel, why=why),
                )
            )
    return blocks
