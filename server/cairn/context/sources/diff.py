"""Source: uncommitted changes, `git diff HEAD` of each workspace folder, one block per file.

Runs git as a subprocess with a timeout and repository config that would start
a program neutralised (`cairn.files.git`; `--relative`: only changes under the
folder, with paths relative to it, even when the folder is inside a larger repository); a folder outside git, without a
first commit, or where git fails or times out contributes nothing. The diff
shows the disk (unsaved editor text is the buffers source's business).
Diffs of files in play come first; changes to secret files (`.env`, keys,
whatever the workspace's secret-path rules name — before or after a
rename) are never shown. A file out of play whose text on disk is exactly
what the session's own last edit of it left (`own_edit_hashes`) is not
shown as a diff: all such files share one short block, a line each with
their added and removed line counts (`own_changes_section`). The change is
the session's, its patches are listed in the ledger block, and repeating
the whole diff (or a block header per file) on every call of every later
turn buys nothing. Any other change (the user's, or a file in play) is
shown whole. Each file's
`index <blob>..<blob>` line is left out (`without_index_lines`): the blob
hashes tell the model nothing, change with every edit, and the diff is in
the tail, re-sent on every call.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from cairn.compaction.ledger import EDIT_TOOL, KEY_HASH, KEY_PATH
from cairn.compaction.markers import tool_results
from cairn.context.blocks import Candidate, Count, section
from cairn.context.priorities import PRIORITY_DIFF
from cairn.files.git import run_git
from cairn.files.guard import secret_rule
from cairn.files.text import content_hash
from cairn.files.workspace import Workspace
from cairn.models.messages import Message

GIT_DIFF_TIMEOUT_S = 5.0
GIT_DIFF_ARGS = ("diff", "HEAD", "--relative", "--no-color", "--no-ext-diff", "--")
_FILE_HEADER = re.compile(r"^diff --git a/(.+?) b/(.+)$", re.MULTILINE)
DIFF_TITLE = "Uncommitted change: {rel}"
OWN_CHANGES_TITLE = "Uncommitted changes, all from this session's own edits"
OWN_CHANGES_REF = "own-changes"
OWN_CHANGES_NOTE = (
    "These files differ from HEAD exactly as this session's last edit left them"
    " (the ledger lists their patches; read a file to see it now):"
)
# git's `index <old blob>..<new blob>[ <mode>]` line of a file's header.
_INDEX_LINE = re.compile(r"^index [0-9a-f]+\.\.[0-9a-f]+(?: [0-7]+)?\n", re.MULTILINE)


def git_diff(folder: Path, timeout: float = GIT_DIFF_TIMEOUT_S) -> str:
    """`git diff HEAD` of `folder`, or "" when it is not a git work tree or git fails."""
    out = run_git(folder, *GIT_DIFF_ARGS, timeout=timeout)
    return "" if out is None else out.decode("utf-8", errors="replace")


def split_by_file(diff: str) -> list[tuple[str, str]]:
    """[(path in the new tree, that file's diff)] in git's order."""
    headers = list(_FILE_HEADER.finditer(diff))
    out: list[tuple[str, str]] = []
    for index, match in enumerate(headers):
        end = headers[index + 1].start() if index + 1 < len(headers) else len(diff)
        out.append((match.group(2), diff[match.start() : end].rstrip("\n")))
    return out


def _sides(rel: str, text: str) -> tuple[str, ...]:
    """The paths a file's diff touches: the new one and, for a rename or copy, the old one."""
    header = _FILE_HEADER.match(text)
    return (rel, header.group(1)) if header is not None else (rel,)


def own_edit_hashes(messages: Iterable[Message]) -> dict[str, str]:
    """Workspace-relative path → content hash of the text the session's last edit left."""
    out: dict[str, str] = {}
    for message in messages:
        for part in tool_results(message):
            data = part.data or {}
            if part.name == EDIT_TOOL and part.ok and KEY_PATH in data and KEY_HASH in data:
                out[str(data[KEY_PATH])] = str(data[KEY_HASH])
    return out


def _line_counts(text: str) -> tuple[int, int]:
    lines = text.splitlines()
    added = sum(1 for line in lines if line.startswith("+") and not line.startswith("+++"))
    removed = sum(1 for line in lines if line.startswith("-") and not line.startswith("---"))
    return added, removed


def own_change_line(rel: str, text: str) -> str:
    """The line of a change that is all the session's own edits: path and line counts."""
    added, removed = _line_counts(text)
    return f"- {rel} (+{added} -{removed})"


def own_changes_section(lines: Sequence[str], count: Count) -> Candidate:
    """The one block listing every file changed only by the session's own edits."""
    text = "\n".join([OWN_CHANGES_NOTE, *lines])
    return section("diff", PRIORITY_DIFF, OWN_CHANGES_TITLE, text, count=count, ref=OWN_CHANGES_REF)


def is_own_change(path: Path, rel: str, own: Mapping[str, str]) -> bool:
    """Whether `path`'s text on disk is exactly what the session's last edit of it left."""
    wanted = own.get(rel)
    if wanted is None:
        return False
    try:
        return content_hash(path.read_text(encoding="utf-8")) == wanted
    except (OSError, UnicodeDecodeError):
        return False


def without_index_lines(text: str) -> str:
    """A file's diff without its `index` line (the file's mode, when it changed, has its own)."""
    return _INDEX_LINE.sub("", text, count=1)


def diff_candidates(
    workspace: Workspace,
    files_in_play: Sequence[Path],
    count: Count,
    own: Mapping[str, str] | None = None,
) -> list[Candidate]:
    """One section per changed file, files in play first; the files out of play that only
    the session's own edits changed share one last section (see the module docstring)."""
    in_play = set(files_in_play)
    entries: list[tuple[bool, Path, str]] = []
    for folder in workspace.folders:
        for rel, text in split_by_file(git_diff(folder)):
            path = folder / rel
            if any(secret_rule(workspace, folder / side) is not None for side in _sides(rel, text)):
                continue
            entries.append((path not in in_play, path, text))
    entries.sort(key=lambda e: e[0])
    out: list[Candidate] = []
    own_lines: list[str] = []
    for out_of_play, path, text in entries:
        rel = workspace.relative(path)
        if out_of_play and is_own_change(path, rel, own or {}):
            own_lines.append(own_change_line(rel, text))
            continue
        title = DIFF_TITLE.format(rel=rel)
        out.append(
            section("diff", PRIORITY_DIFF, title, without_index_lines(text), count=count, ref=rel)
        )
    if own_lines:
        out.append(own_changes_section(own_lines, count))
    return out
