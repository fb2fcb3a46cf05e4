"""Faithful smaller forms of blocks that do not fit their share of the budget: a ladder.

Nothing is ever cut at an arbitrary point (DESIGN §2.3). A block too large
for its share climbs down a ladder of smaller forms and keeps the first that
fits; the full text goes to an artifact (stored only for the form kept) and
the manifest reason names every form tried. What the block is comes from
its content (`context.kinds`), wherever it came from:

- code: the tree-sitter outline (signatures with line ranges) → the
  top-level outline (classes and functions of the file, not their members)
  → one line;
- a log or command output: head, error lines with context and tail
  (`context.excerpt`, the one shortener; fewer lines until it fits) → one line;
- minified or generated code: one line (an outline of it says nothing);
- other text: head, error lines and tail → one line;
- one line: the path, size, line count and the artifact id (`one_line`);
- a history block ("message"): each large tool output becomes an excerpt,
  largest first, until the block fits (the artifact the tool already stored
  is reused); history has no one-line form (older messages go first instead).

A block that cannot fit in any form costs nothing: its one-line form is
measured first, and when even that is over the limit no outline is parsed
and no artifact is written. Outlines are memoised by content hash
(`OutlineMemo`), so an unchanged file is parsed once, not once per build.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from cairn.context.blocks import (
    Candidate,
    ChatMessage,
    Count,
    with_body,
    with_messages,
)
from cairn.context.excerpt import ExcerptShape, fitting_excerpt
from cairn.context.kinds import TextKind, text_kind
from cairn.context.outline_memo import OUTLINES, OutlineMemo
from cairn.files.text import content_hash
from cairn.trace.names import placeholder_artifact_id

if TYPE_CHECKING:
    from cairn.code.outlines import OutlineForms

StoreArtifact = Callable[[str, str], str]

# A log excerpt keeps this many lines from the head and from the tail ...
LOG_HEAD_LINES = 20
LOG_TAIL_LINES = 40
# ... and at most this many error lines from the middle (`context.excerpt`).
LOG_MAX_ERROR_LINES = 60
LOG_EXCERPT = ExcerptShape(LOG_HEAD_LINES, LOG_TAIL_LINES, LOG_MAX_ERROR_LINES)
# A tool output smaller than this is never worth replacing by an excerpt.
MIN_DEGRADABLE_OUTPUT_TOKENS = 200
_KIB = 1024
# Why a block's one-line form does not show it (the minified words are no longer: the
# smallest form is measured before the content is judged).
SHARE_NOT_SHOWN = "not shown (over its share of the context)"
MINIFIED_NOT_SHOWN = "not shown (minified: too long lines)"
# What an artifact id will look like in a form measured before it is stored.
_PENDING_ID = placeholder_artifact_id()


@dataclass
class DegradeContext:
    """What degradation needs: the counter, where full texts go, a memo of stored texts
    and of outlines."""

    count: Count
    store_artifact: StoreArtifact | None = None
    # content version → artifact id, so one text is stored once per session.
    stored: dict[str, str] = field(default_factory=dict)
    outlines: OutlineMemo = field(default_factory=lambda: OUTLINES)
    # The forms the last `degrade` call tried, for the reason of a block it could not fit.
    tried: str = ""

    def store(self, text: str, kind: str) -> str | None:
        """The artifact id holding `text` (stored on first use), or None without a store."""
        key = content_hash(text)
        known = self.stored.get(key)
        if known is not None:
            return known
        if self.store_artifact is None:
            return None
        artifact_id = self.store_artifact(text, kind)
        self.stored[key] = artifact_id
        return artifact_id

    def pending_id(self, text: str) -> str | None:
        """The id `text` will have, to make a form before storing it: the id it already
        has, a stand-in of the same length when it is still to be stored, None without a
        store (a form that cannot name an artifact)."""
        known = self.stored.get(content_hash(text))
        if known is not None:
            return known
        return None if self.store_artifact is None else _PENDING_ID


@dataclass
class _Ladder:
    """One block's way down: the forms tried so far and their sizes."""

    candidate: Candidate
    limit: int
    ctx: DegradeContext
    tried: list[str] = field(default_factory=list)

    def keep(self, form: str, body: str | None, kind: str) -> Candidate | None:
        """The block with `body` (made with the stand-in id) when it fits; stored then."""
        if body is None:
            self.tried.append(f"{form} (none)")
            return None
        pending = self.ctx.pending_id(self.candidate.body)
        smaller = with_body(self.candidate, body, self.ctx.count, "")
        if smaller.block.tokens > self.limit:
            self.tried.append(f"{form} {smaller.block.tokens}")
            return None
        artifact_id = self.ctx.store(self.candidate.body, kind)
        if pending and artifact_id:
            body = body.replace(pending, artifact_id)
        self.tried.append(f"{form} {self.ctx.count(body)}")
        reason = _reason(form, self.candidate.block.tokens, self.limit, artifact_id, self.tried)
        chosen = with_body(self.candidate, body, self.ctx.count, reason)
        chosen.block.artifact_id = artifact_id
        return chosen if chosen.block.tokens <= self.limit else None


def _where(artifact_id: str | None) -> str:
    return f"in artifact {artifact_id}" if artifact_id else "not stored (dry run)"


def _reason(form: str, tokens: int, limit: int, artifact_id: str | None, tried: list[str]) -> str:
    where = f"; full text in artifact {artifact_id}" if artifact_id else ""
    steps = f" (tried {', '.join(tried)} tokens)" if len(tried) > 1 else ""
    return f"degraded to {form}: needs {tokens} tokens, {limit} allowed{steps}{where}"


def _size(chars: int) -> str:
    return f"{chars} B" if chars < _KIB else f"{chars / _KIB:.1f} KiB"


def one_line(candidate: Candidate, what: TextKind, artifact_id: str | None) -> str:
    """The smallest form of a block: what and where it is, how large, where its text is."""
    body = candidate.body
    lines = body.count("\n") + 1
    name = candidate.block.ref or candidate.block.source
    hint = (
        f'; read_file("{candidate.block.ref}", start_line, end_line) shows any range'
        if candidate.block.ref and candidate.block.source in ("reference", "buffer")
        else ""
    )
    why = MINIFIED_NOT_SHOWN if what == "minified" else SHARE_NOT_SHOWN
    return (
        f"[{name}: {what}, {_size(len(body.encode('utf-8', 'surrogatepass')))}, {lines} lines,"
        f" {candidate.block.tokens} tokens; {why};"
        f" the full text is {_where(artifact_id)}{hint}]"
    )


def _outline_note(candidate: Candidate, coarse: str, artifact_id: str | None) -> str:
    path = candidate.block.ref or ""
    lines = candidate.body.count("\n") + 1
    how = f'; read_file("{path}", start_line, end_line) shows any range' if path else ""
    return (
        f"[{coarse} only: the full text ({candidate.block.tokens} tokens, {lines} lines) is"
        f" {_where(artifact_id)}{how}.]"
    )


def _code_forms(ladder: _Ladder, forms: OutlineForms) -> Candidate | None:
    candidate = ladder.candidate
    if not forms.full:
        ladder.tried.append("outline (no definitions)")
        return None
    pending = ladder.ctx.pending_id(candidate.body)
    full = f"{forms.full.rstrip()}\n{_outline_note(candidate, 'Outline', pending)}"
    chosen = ladder.keep("outline", full, "text")
    if chosen is not None or forms.top_level_definitions == forms.definitions:
        return chosen
    coarse = _outline_note(candidate, "Top-level outline", pending)
    return ladder.keep("top-level outline", f"{forms.top_level.rstrip()}\n{coarse}", "text")


def _log_note(total_lines: int, tokens: int, artifact_id: str | None) -> str:
    return (
        f"[Excerpt: head, tail and error lines of {total_lines} lines ({tokens} tokens);"
        f" the full output is {_where(artifact_id)}.]"
    )


def _excerpt_form(ladder: _Ladder) -> Candidate | None:
    candidate, ctx = ladder.candidate, ladder.ctx
    text = candidate.body
    pending = ctx.pending_id(text)
    note = _log_note(text.count("\n") + 1, candidate.block.tokens, pending)
    title_tokens = candidate.block.tokens - ctx.count(text)
    budget = ladder.limit - max(0, title_tokens)
    body = fitting_excerpt(text, budget, ctx.count, LOG_EXCERPT, note=note, artifact_id=pending)
    return ladder.keep("excerpt", body, "log")


def _one_line_form(ladder: _Ladder, what: TextKind) -> Candidate | None:
    kind = "log" if what == "log" else "text"
    return ladder.keep(
        "one line",
        one_line(ladder.candidate, what, ladder.ctx.pending_id(ladder.candidate.body)),
        kind,
    )


def degrade_section(candidate: Candidate, limit: int, ctx: DegradeContext) -> Candidate | None:
    """The first form of the ladder for what the section holds that fits `limit`, or None."""
    ladder = _Ladder(candidate, limit, ctx)
    # Measured with the longest kind word, before the content is even looked at.
    smallest = one_line(candidate, "generated", ctx.pending_id(candidate.body))
    smallest_tokens = with_body(candidate, smallest, ctx.count, "").block.tokens
    if smallest_tokens > limit:  # not even one line fits: nothing parsed, nothing stored
        ctx.tried = f"no smaller form fits: its one-line form needs {smallest_tokens}"
        return None
    what = text_kind(candidate.block.ref, candidate.body, candidate.block.kind)
    chosen: Candidate | None = None
    if what == "code":
        forms = ctx.outlines.get(candidate.body, candidate.block.ref or "")
        if forms is not None:
            chosen = _code_forms(ladder, forms)
        else:  # a language without a grammar: its text is shortened like any other
            ladder.tried.append("outline (no grammar)")
            chosen = _excerpt_form(ladder)
    elif what in ("log", "text"):
        chosen = _excerpt_form(ladder)
    return chosen or _one_line_form(ladder, what)


def degrade_code(candidate: Candidate, limit: int, ctx: DegradeContext) -> Candidate | None:
    """The outline (or top-level outline) form of a code block, or None when neither fits."""
    forms = ctx.outlines.get(candidate.body, candidate.block.ref or "")
    return None if forms is None else _code_forms(_Ladder(candidate, limit, ctx), forms)


def degrade_log(candidate: Candidate, limit: int, ctx: DegradeContext) -> Candidate | None:
    """The head/tail/error-lines form of a log block, or None when it cannot fit."""
    return _excerpt_form(_Ladder(candidate, limit, ctx))


def degrade_messages(candidate: Candidate, limit: int, ctx: DegradeContext) -> Candidate | None:
    """A history block whose large tool outputs are log excerpts, or None when it cannot fit."""
    messages: list[ChatMessage] = [dict(m) for m in candidate.messages or []]
    tool_indexes = [
        i
        for i, m in enumerate(messages)
        if m.get("role") == "tool" and isinstance(m.get("content"), str)
    ]
    sizes = {i: ctx.count(messages[i]["content"]) for i in tool_indexes}
    order = sorted(
        (i for i in tool_indexes if sizes[i] >= MIN_DEGRADABLE_OUTPUT_TOKENS),
        key=lambda i: -sizes[i],
    )
    excess = candidate.block.tokens - limit
    if sum(sizes[i] for i in order) < excess:  # even without its large outputs it is too big
        ctx.tried = "no smaller form fits: its large tool outputs are not enough to shorten"
        return None
    artifact_ids: list[str] = []
    for index in order:
        if excess <= 0:
            break
        output: str = messages[index]["content"]
        tool_artifact = candidate.artifacts.get(index)
        artifact_id = tool_artifact or ctx.store(output, "log")
        note = _log_note(output.count("\n") + 1, sizes[index], artifact_id)
        target = max(1, sizes[index] - excess)
        # The tool's own artifact holds its raw output, not this message's lines:
        # line numbers into it would be wrong, so only an exact copy gets the range hint.
        exact = None if tool_artifact else artifact_id
        excerpt = fitting_excerpt(
            output, target, ctx.count, LOG_EXCERPT, note=note, artifact_id=exact
        )
        if excerpt is None:
            continue
        messages[index] = {**messages[index], "content": excerpt}
        excess -= sizes[index] - ctx.count(excerpt)
        if artifact_id:
            artifact_ids.append(artifact_id)
    if excess > 0:
        return None
    reason = (
        f"degraded to tool output excerpts: needs {candidate.block.tokens} tokens, {limit}"
        f" allowed; full outputs in artifact {', '.join(artifact_ids)}"
        if artifact_ids
        else f"degraded to tool output excerpts: needs {candidate.block.tokens} tokens,"
        f" {limit} allowed"
    )
    smaller = with_messages(candidate, messages, ctx.count, reason)
    smaller.block.artifact_id = artifact_ids[0] if artifact_ids else None
    return smaller if smaller.block.tokens <= limit else None


def degrade(candidate: Candidate, limit: int, ctx: DegradeContext) -> Candidate | None:
    """A faithful smaller form of `candidate` within `limit` tokens, or None (drop it;
    `ctx.tried` then says what was tried)."""
    ctx.tried = ""
    if limit <= 0:
        return None
    if candidate.block.kind == "message":
        return degrade_messages(candidate, limit, ctx) if candidate.messages is not None else None
    return degrade_section(candidate, limit, ctx)
