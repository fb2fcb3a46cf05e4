"""Faithful smaller forms of blocks that do not fit their share of the budget.

Nothing is ever cut at an arbitrary point (DESIGN §2.3). A block too large for
its share is replaced by:
- kind "code": the tree-sitter outline (signatures with line ranges, from
  `cairn.code.outline`), the full text stored as an artifact whose id the
  block names; no outline for the language → no degraded form;
- kind "log": the first and last lines plus every error-looking line in
  between (whole lines, with their line numbers; `context.excerpt`, the one
  shortener), the full text stored as an artifact;
- kind "message" (a history block): each large tool output in it becomes such
  a log excerpt, largest first, until the block fits (the artifact the tool
  already stored is reused);
- anything else: no degraded form (the selection drops it with a reason).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from cairn.context.blocks import (
    Candidate,
    ChatMessage,
    Count,
    with_body,
    with_messages,
)
from cairn.context.excerpt import ExcerptShape, fitting_excerpt
from cairn.files.text import content_hash

StoreArtifact = Callable[[str, str], str]

# A log excerpt keeps this many lines from the head and from the tail ...
LOG_HEAD_LINES = 20
LOG_TAIL_LINES = 40
# ... and at most this many error lines from the middle (`context.excerpt`).
LOG_MAX_ERROR_LINES = 60
LOG_EXCERPT = ExcerptShape(LOG_HEAD_LINES, LOG_TAIL_LINES, LOG_MAX_ERROR_LINES)
# A tool output smaller than this is never worth replacing by an excerpt.
MIN_DEGRADABLE_OUTPUT_TOKENS = 200


@dataclass
class DegradeContext:
    """What degradation needs: the counter, where full texts go, and a memo of stored texts."""

    count: Count
    store_artifact: StoreArtifact | None = None
    # content version → artifact id, so one text is stored once per session.
    stored: dict[str, str] = field(default_factory=dict)

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


def _where(artifact_id: str | None) -> str:
    return f"in artifact {artifact_id}" if artifact_id else "not stored (dry run)"


def _reason(form: str, tokens: int, limit: int, artifact_id: str | None) -> str:
    where = f"; full text in artifact {artifact_id}" if artifact_id else ""
    return f"degraded to {form}: needs {tokens} tokens, {limit} allowed{where}"


def _outline_of(text: str, path: str) -> str | None:
    try:
        from cairn.code import outline
    except ImportError:
        return None
    try:
        return outline(text, path)
    except Exception:
        return None


def degrade_code(candidate: Candidate, limit: int, ctx: DegradeContext) -> Candidate | None:
    """The outline form of a code block, or None when there is no outline or it does not fit."""
    path = candidate.block.ref or ""
    outlined = _outline_of(candidate.body, path)
    if not outlined:
        return None
    lines = candidate.body.count("\n") + 1
    artifact_id = ctx.store(candidate.body, "text")
    how = f'read_file("{path}", start_line, end_line) shows any range' if path else ""
    note = (
        f"[Outline only: the full text ({candidate.block.tokens} tokens, {lines} lines) is"
        f" {_where(artifact_id)}{'; ' + how if how else ''}.]"
    )
    reason = _reason("outline", candidate.block.tokens, limit, artifact_id)
    smaller = with_body(candidate, f"{outlined.rstrip()}\n{note}", ctx.count, reason)
    smaller.block.artifact_id = artifact_id
    return smaller if smaller.block.tokens <= limit else None


def _log_note(total_lines: int, tokens: int, artifact_id: str | None) -> str:
    return (
        f"[Excerpt: head, tail and error lines of {total_lines} lines ({tokens} tokens);"
        f" the full output is {_where(artifact_id)}.]"
    )


def degrade_log(candidate: Candidate, limit: int, ctx: DegradeContext) -> Candidate | None:
    """The head/tail/error-lines form of a log block, or None when it cannot fit."""
    text = candidate.body
    artifact_id = ctx.store(text, "log")
    note = _log_note(text.count("\n") + 1, candidate.block.tokens, artifact_id)
    title_tokens = candidate.block.tokens - ctx.count(text)
    budget = limit - max(0, title_tokens)
    body = fitting_excerpt(text, budget, ctx.count, LOG_EXCERPT, note=note, artifact_id=artifact_id)
    if body is None:
        return None
    reason = _reason("log excerpt", candidate.block.tokens, limit, artifact_id)
    smaller = with_body(candidate, body, ctx.count, reason)
    smaller.block.artifact_id = artifact_id
    return smaller if smaller.block.tokens <= limit else None


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
    reason = _reason("tool output excerpts", candidate.block.tokens, limit, ", ".join(artifact_ids))
    smaller = with_messages(candidate, messages, ctx.count, reason)
    smaller.block.artifact_id = artifact_ids[0] if artifact_ids else None
    return smaller if smaller.block.tokens <= limit else None


def degrade(candidate: Candidate, limit: int, ctx: DegradeContext) -> Candidate | None:
    """A faithful smaller form of `candidate` within `limit` tokens, or None (drop it)."""
    if limit <= 0:
        return None
    kind = candidate.block.kind
    if kind == "code":
        return degrade_code(candidate, limit, ctx)
    if kind == "log":
        return degrade_log(candidate, limit, ctx)
    if kind == "message" and candidate.messages is not None:
        return degrade_messages(candidate, limit, ctx)
    return None
