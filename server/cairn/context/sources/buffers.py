"""Source: the text of the files in play, as the editor has them (unsaved edits included).

Each file in play is one "code" block (degradable to an outline) read with
`Workspace.read_text` after the path guard (a refused file — secret, binary,
too large, outside — becomes an excluded block whose reason says why). The
most recently opened editor buffers that are not in play (at most
`MAX_OTHER_BUFFERS`: an editor may hold dozens of tabs, and every token is
paid for on every call) follow at `PRIORITY_LOW_RELEVANCE`.
Files already given as `@` references are skipped (the reference shows them).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path

from cairn.context.blocks import Candidate, Count, make_block, section
from cairn.context.priorities import PRIORITY_BUFFER, PRIORITY_LOW_RELEVANCE
from cairn.errors import PathRefusedError
from cairn.files.guard import read_text_guarded
from cairn.files.workspace import Workspace

# Open buffers that are not in play shown at most (the most recently opened first).
MAX_OTHER_BUFFERS = 4


def _title(workspace: Workspace, path: Path) -> str:
    origin = "editor buffer" if path in workspace.buffers else "disk"
    return f"File: {workspace.relative(path)} ({origin})"


def buffer_candidate(workspace: Workspace, path: Path, priority: int, count: Count) -> Candidate:
    """The file's current text as a code section, or an excluded block naming the refusal."""
    rel = workspace.relative(path)
    try:
        text = read_text_guarded(workspace, str(path))
    except PathRefusedError as refusal:
        block = make_block("buffer", priority, "", count=count, ref=rel, kind="code")
        block.included = False
        block.reason = f"refused: {refusal}"
        return Candidate(block=block, body="")
    return section(
        "buffer", priority, _title(workspace, path), text, count=count, ref=rel, kind="code"
    )


def buffer_candidates(
    workspace: Workspace,
    files_in_play: Sequence[Path],
    count: Count,
    skip_refs: Collection[str] = (),
) -> list[Candidate]:
    """Files in play first (in the given order), then the other open buffers."""
    seen: set[Path] = set()
    out: list[Candidate] = []
    in_play = set(files_in_play)
    others = [p for p in reversed(list(workspace.open_paths())) if p not in in_play]
    others = others[:MAX_OTHER_BUFFERS]
    for priority, paths in ((PRIORITY_BUFFER, files_in_play), (PRIORITY_LOW_RELEVANCE, others)):
        for path in paths:
            if path in seen or workspace.relative(path) in skip_refs:
                continue
            seen.add(path)
            out.append(buffer_candidate(workspace, path, priority, count))
    return out
