"""The builder's one redaction step: secret values out of every candidate before selection.

Every block that can reach the provider passes here — sections (references,
buffers, diffs, diagnostics, rules, the repository map, the profile, extra
blocks) and chat blocks (history, tool outputs in it, tool-call arguments,
the summary, the user message) — so selection, token counts and versions
all see the redacted text. A candidate with nothing to redact is returned
as it is; a redacted one is rebuilt with its tokens and version recomputed
and `ContextBlock.redactions` saying which kinds were replaced how often
(the values never leave `cairn.files.redaction`). `redact_messages` is the
same step for the one model call that is not a context build (compaction:
the transcript of old history and the previous summary).
"""

from __future__ import annotations

from dataclasses import replace

from cairn.context.blocks import Candidate, ChatMessage, Count, chat_candidate, frame
from cairn.files.redaction import Redactor, add_counts
from cairn.files.text import content_hash
from cairn.models.manifest import RedactionNote


def notes(counts: dict[str, int]) -> list[RedactionNote]:
    """The manifest note of a block: one entry per kind, sorted by kind."""
    return [RedactionNote(kind=kind, count=n) for kind, n in sorted(counts.items())]


def _redact_message(
    message: ChatMessage, redactor: Redactor, counts: dict[str, int]
) -> ChatMessage:
    """The message with its content and tool-call arguments redacted (the same dict if clean)."""
    out = message
    content = message.get("content")
    if isinstance(content, str):
        result = redactor.redact(content)
        if result.changed:
            out = {**out, "content": result.text}
            add_counts(counts, result.counts)
    calls = message.get("tool_calls")
    if calls:
        cleaned = [_redact_call(call, redactor, counts) for call in calls]
        if any(new is not old for new, old in zip(cleaned, calls, strict=True)):
            out = {**out, "tool_calls": cleaned}
    return out


def _redact_call(
    call: dict[str, object], redactor: Redactor, counts: dict[str, int]
) -> dict[str, object]:
    function = call.get("function")
    if not isinstance(function, dict):
        return call
    arguments = function.get("arguments")
    if not isinstance(arguments, str):
        return call
    result = redactor.redact_json(arguments)
    if not result.changed:
        return call
    add_counts(counts, result.counts)
    return {**call, "function": {**function, "arguments": result.text}}


def _redact_chat(candidate: Candidate, redactor: Redactor, count: Count) -> Candidate:
    assert candidate.messages is not None
    counts: dict[str, int] = {}
    messages = [_redact_message(m, redactor, counts) for m in candidate.messages]
    if not counts:
        return candidate
    block = candidate.block
    fresh = chat_candidate(
        block.source,
        block.priority,
        messages,
        count=count,
        seq=candidate.seq,
        ref=block.ref,
        kind=block.kind,
        required=block.required,
        artifacts=candidate.artifacts,
    )
    fresh.block.reason = block.reason
    fresh.block.redactions = notes(counts)
    fresh.block.zone = block.zone
    return fresh


def _redact_section(candidate: Candidate, redactor: Redactor, count: Count) -> Candidate:
    """A section, or an attachment (one chat message framed like a section: its body and
    message are redacted together, so it can still be degraded like the file it shows)."""
    result = redactor.redact(candidate.body)
    if not result.changed:
        return candidate
    block = candidate.block
    overhead = block.tokens - count(block.text)  # framing tokens the text alone does not count
    text = frame(candidate.title, result.text)
    fresh = block.model_copy(
        update={
            "text": text,
            "tokens": count(text) + overhead,
            "version": content_hash(text),
            "redactions": notes(result.counts),
        }
    )
    messages = candidate.messages
    if messages is not None:
        messages = [{**messages[0], "content": text}]
    return replace(candidate, block=fresh, body=result.text, messages=messages)


def redact_messages(
    messages: list[ChatMessage], redactor: Redactor
) -> tuple[list[ChatMessage], dict[str, int]]:
    """Chat messages sent outside a context build (the compaction call), redacted the same way."""
    counts: dict[str, int] = {}
    if not redactor.enabled:
        return messages, counts
    return [_redact_message(m, redactor, counts) for m in messages], counts


def redact_candidate(candidate: Candidate, redactor: Redactor, count: Count) -> Candidate:
    """`candidate` with its secret values replaced (itself when it has none, or is excluded)."""
    block = candidate.block
    if not block.included or not redactor.enabled or redactor.known_clean(block.version):
        return candidate
    if candidate.messages is not None and candidate.title is None:
        out = _redact_chat(candidate, redactor, count)
    else:
        out = _redact_section(candidate, redactor, count)
    if out is candidate:  # the version is the hash of everything the block sends
        redactor.remember_clean(block.version)
    return out
