"""Attachments: large stable texts shown once in the history instead of on every call.

The rule per kind of block (DESIGN §2.3, "cache-stable layout"):
- a referenced file or directory listing, a file in play (an open editor
  buffer, a `--file`), and a rules file that came into play after the
  turn's preamble was frozen are **attached**: rendered once as a message at
  the end of the history (right after the user's message on the turn's
  first call) and recorded, so every later call reads them from the cache;
- a file attached in *this* turn whose text changed since (the user edited
  it in the editor) is shown in the **tail** as a diff against the attached
  text, on every call, until the next turn re-attaches it whole; a file the
  agent edited itself is neither re-attached nor diffed (the model made the
  change; the uncommitted diff is in the tail);
- a changed rules file is attached again whole (rules are instructions);
- a refused file (secret, ignored, binary, too large) stays a tail block
  with no text, only the reason.

An attachment is a harness message (role "system") carrying `FilePart`s
with their text. Its bytes are the same whether it is still pending (a dry
run, or the build that precedes recording it) or already recorded.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePath

from cairn.context.blocks import (
    MESSAGE_OVERHEAD_TOKENS,
    Candidate,
    Count,
    frame,
    make_block,
    section,
)
from cairn.context.priorities import (
    PRIORITY_BUFFER,
    PRIORITY_DIFF,
    PRIORITY_LOW_RELEVANCE,
    PRIORITY_REFERENCE,
    PRIORITY_RULES,
)
from cairn.context.references import block_kind
from cairn.context.snapshot import FileView
from cairn.files.text import content_hash
from cairn.models.manifest import BlockKind, ContextBlock, Source
from cairn.models.messages import FilePart, Message

TITLES: Mapping[str, str] = {
    "reference": "Referenced: {path}",
    "buffer": "File: {path} ({origin})",
    "rules": "Project rules now in play: {path}",
}
CHANGED_TITLE = "Changed since it was attached: {path}"
DELTA_CONTEXT_LINES = 3
# Priority of an attachment in the turn it was attached in, by source.
CURRENT_PRIORITY: Mapping[str, int] = {
    "reference": PRIORITY_REFERENCE,
    "buffer": PRIORITY_BUFFER,
    "rules": PRIORITY_RULES,
}
RULES_KEY = "rules:"


@dataclass(frozen=True)
class Attached:
    """An attachment visible in the history: its text, and whether this turn attached it."""

    version: str
    text: str
    this_turn: bool


def current_priority(part: FilePart) -> int:
    """The priority of an attachment in the turn that attached it."""
    return CURRENT_PRIORITY[part.source] if part.in_play else PRIORITY_LOW_RELEVANCE


def is_attachment(message: Message) -> bool:
    """A harness message that attaches file texts."""
    return message.role == "system" and any(
        isinstance(p, FilePart) and p.text is not None for p in message.parts
    )


def attachment_parts(message: Message) -> list[FilePart]:
    return [p for p in message.parts if isinstance(p, FilePart) and p.text is not None]


def key_of(part: FilePart) -> str:
    """Rules files and other files are tracked apart (a rules file may also be read)."""
    return RULES_KEY + part.path if part.source == "rules" else part.path


def _kind(part: FilePart) -> BlockKind:
    if part.source == "rules" or part.origin == "directory":
        return "text"
    return block_kind(PurePath(part.path))


def title_of(part: FilePart) -> str:
    return TITLES[part.source].format(path=part.path, origin=part.origin or "disk")


def attachment_candidate(part: FilePart, seq: float, priority: int, count: Count) -> Candidate:
    """One attached file as a user-role chat block (degradable like the file itself)."""
    title = title_of(part)
    body = part.text or ""
    text = frame(title, body)
    source: Source = "rules" if part.source == "rules" else part.source
    block = make_block(
        source,
        priority,
        text,
        count=count,
        ref=part.path,
        kind=_kind(part),
        role="user",
        extra_tokens=MESSAGE_OVERHEAD_TOKENS,
    )
    block.reason = part.reason
    return Candidate(
        block=block,
        body=body,
        title=title,
        messages=[{"role": "user", "content": text}],
        seq=seq,
    )


def _view_part(view: FileView) -> FilePart:
    return FilePart(
        path=view.rel,
        hash=view.version,
        text=view.text,
        source=view.source,
        origin=view.origin,
        in_play=view.priority > PRIORITY_LOW_RELEVANCE,
        reason=view.reason,
    )


def _rules_part(candidate: Candidate) -> FilePart:
    return FilePart(
        path=candidate.block.ref or "",
        hash=content_hash(candidate.body),
        text=candidate.body,
        source="rules",
        origin="rules",
    )


def rules_versions(rules: Sequence[Candidate]) -> dict[str, str]:
    """ref → content hash of the included rules candidates (what a preamble holds)."""
    return {c.block.ref or "": content_hash(c.body) for c in rules if c.block.included and c.body}


def pending_attachments(
    files: Sequence[FileView],
    rules: Sequence[Candidate],
    attached: Mapping[str, Attached],
    preamble_rules: Mapping[str, str],
) -> list[FilePart]:
    """What must be attached before this call: rules first, then references, then files."""
    out: list[FilePart] = []
    for candidate in rules:
        if not candidate.block.included or not candidate.body:
            continue
        ref = candidate.block.ref or ""
        version = content_hash(candidate.body)
        seen = attached.get(RULES_KEY + ref)
        if preamble_rules.get(ref) == version or (seen is not None and seen.version == version):
            continue
        out.append(_rules_part(candidate))
    for view in files:
        if view.refusal is not None:
            continue
        seen = attached.get(view.rel)
        if seen is None or (seen.version != view.version and not seen.this_turn):
            out.append(_view_part(view))
    return out


def _delta_text(rel: str, before: str, after: str) -> str:
    lines = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        fromfile=f"a/{rel} (attached)",
        tofile=f"b/{rel} (now)",
        n=DELTA_CONTEXT_LINES,
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines).rstrip("\n")


def tail_blocks(
    files: Sequence[FileView], attached: Mapping[str, Attached], count: Count
) -> list[Candidate]:
    """Tail sections: changes to files attached this turn, and refused files (reason only)."""
    out: list[Candidate] = []
    for view in files:
        if view.refusal is not None:
            block = ContextBlock(
                source=view.source,
                priority=view.priority,
                text="",
                ref=view.rel,
                included=False,
                reason=view.refusal,
                target=view.target,
            )
            out.append(Candidate(block=block, body=""))
            continue
        seen = attached.get(view.rel)
        if seen is None or not seen.this_turn or seen.version == view.version:
            continue
        delta = _delta_text(view.rel, seen.text, view.text)
        full = count(view.text) <= count(delta)
        body = view.text if full else delta
        kind: BlockKind = view.kind if full else "log"
        out.append(
            section(
                view.source,
                max(view.priority, PRIORITY_DIFF),
                CHANGED_TITLE.format(path=view.rel),
                body,
                count=count,
                ref=view.rel,
                kind=kind,
            )
        )
    return out
