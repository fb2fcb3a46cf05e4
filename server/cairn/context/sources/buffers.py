"""Source: the files in play as the editor has them, then a few other open tabs, small.

Each file in play (the active editor file, the turn's edits, the file being
fixed — `cairn.agent.scope.inputs` decides) is one "code" block at
`PRIORITY_BUFFER` (degradable to an outline), read with
`Workspace.read_text` after the path guard (a refused file — secret,
binary, too large, outside — becomes an excluded block whose reason says
why). Files already given as `@` references are skipped (the reference
shows them).

The other open editor tabs are not in play: an editor may hold dozens, and
every token is paid for on every call. They follow, at most `TabPolicy.max_tabs`
of them (the most recently active first), at `PRIORITY_LOW_RELEVANCE` —
below the turn's own history, so they are the first to go — and by default
as outlines (`open_tabs = "outline"`: signatures with line ranges, cached by
content hash, so 60 tabs are not parsed again on every call), each at most
`TAB_MAX_TOKENS`; a tab whose outline is larger, or that has none (prose, data),
is one line naming it. `open_tabs = "whole"` shows their text; `"off"`
none.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

from cairn.context.blocks import Candidate, Count, make_block, section
from cairn.context.priorities import PRIORITY_BUFFER, PRIORITY_LOW_RELEVANCE
from cairn.errors import PathRefusedError
from cairn.files.guard import read_text_guarded
from cairn.files.text import content_hash
from cairn.files.workspace import Workspace
from cairn.settings import DEFAULT_OPEN_TABS_MAX, OpenTabs, Settings

# The largest outline of one other tab; a larger one is replaced by a one-line form.
TAB_MAX_TOKENS = 600
# Outlines remembered (by content hash), so the tabs of a long session are parsed once.
OUTLINE_MEMO_SIZE = 1_024
TAB_NOTE = "[open in the editor, not in play: outline only; read_file shows the text]"
TAB_TITLE = "Open tab: {rel} (outline)"

_outlines: OrderedDict[tuple[str, str], str | None] = OrderedDict()


@dataclass(frozen=True)
class TabPolicy:
    """How the open tabs that are not in play are shown (the `open_tabs*` settings)."""

    form: OpenTabs = "outline"
    max_tabs: int = DEFAULT_OPEN_TABS_MAX


def tab_policy(settings: Settings) -> TabPolicy:
    """The policy the settings choose."""
    return TabPolicy(form=settings.open_tabs, max_tabs=settings.open_tabs_max)


def _title(workspace: Workspace, path: Path) -> str:
    origin = "editor buffer" if path in workspace.buffers else "disk"
    return f"File: {workspace.relative(path)} ({origin})"


def _refused(rel: str, priority: int, refusal: Exception, count: Count) -> Candidate:
    block = make_block("buffer", priority, "", count=count, ref=rel, kind="code")
    block.included = False
    block.reason = f"refused: {refusal}"
    return Candidate(block=block, body="")


def buffer_candidate(workspace: Workspace, path: Path, priority: int, count: Count) -> Candidate:
    """The file's current text as a code section, or an excluded block naming the refusal."""
    rel = workspace.relative(path)
    try:
        text = read_text_guarded(workspace, str(path))
    except PathRefusedError as refusal:
        return _refused(rel, priority, refusal, count)
    return section(
        "buffer", priority, _title(workspace, path), text, count=count, ref=rel, kind="code"
    )


def outline_of(text: str, rel: str) -> str | None:
    """The outline of a tab's text (None: no outline for its language), memoised by content."""
    key = (Path(rel).suffix.lower(), content_hash(text))
    if key in _outlines:
        _outlines.move_to_end(key)
        return _outlines[key]
    try:
        from cairn.code import outline

        result = outline(text, rel)
    except Exception:  # a grammar that fails must not fail the call
        result = None
    _outlines[key] = result
    if len(_outlines) > OUTLINE_MEMO_SIZE:
        _outlines.popitem(last=False)
    return result


def tab_line(rel: str, text: str) -> str:
    """The one-line form of an open tab: its path and size."""
    lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    return f"{rel}: {lines} lines, {len(text.encode('utf-8'))} bytes [open in the editor]"


def tab_body(text: str, rel: str, count: Count) -> str:
    """What an open tab shows in outline form: its outline and a note, else one line."""
    outlined = outline_of(text, rel)
    body = f"{outlined.rstrip()}\n{TAB_NOTE}" if outlined and outlined.strip() else ""
    if not body or count(body) > TAB_MAX_TOKENS:
        return tab_line(rel, text)
    return body


def tab_candidate(workspace: Workspace, path: Path, form: OpenTabs, count: Count) -> Candidate:
    """An open tab that is not in play: its outline (or one line), or its whole text."""
    if form == "whole":
        return buffer_candidate(workspace, path, PRIORITY_LOW_RELEVANCE, count)
    rel = workspace.relative(path)
    try:
        text = read_text_guarded(workspace, str(path))
    except PathRefusedError as refusal:
        return _refused(rel, PRIORITY_LOW_RELEVANCE, refusal, count)
    title = TAB_TITLE.format(rel=rel)
    body = tab_body(text, rel, count)
    return section("buffer", PRIORITY_LOW_RELEVANCE, title, body, count=count, ref=rel)


def other_tabs(workspace: Workspace, in_play: Collection[Path], policy: TabPolicy) -> list[Path]:
    """The open tabs shown besides the files in play: the most recently active first."""
    if policy.form == "off" or policy.max_tabs <= 0:
        return []
    others = [p for p in reversed(list(workspace.open_paths())) if p not in in_play]
    return others[: policy.max_tabs]


def buffer_candidates(
    workspace: Workspace,
    files_in_play: Sequence[Path],
    count: Count,
    skip_refs: Collection[str] = (),
    policy: TabPolicy | None = None,
) -> list[Candidate]:
    """Files in play first (in the given order), then the other open tabs (see the module)."""
    chosen = policy or TabPolicy()
    seen: set[Path] = set()
    out: list[Candidate] = []
    for path in files_in_play:
        if path in seen or workspace.relative(path) in skip_refs:
            continue
        seen.add(path)
        out.append(buffer_candidate(workspace, path, PRIORITY_BUFFER, count))
    for path in other_tabs(workspace, set(files_in_play), chosen):
        if workspace.relative(path) in skip_refs:
            continue
        out.append(tab_candidate(workspace, path, chosen.form, count))
    return out
