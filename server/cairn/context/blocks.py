"""Context blocks as the builder handles them: a `ContextBlock` plus how to place it.

`make_block` computes a block's `version` (`content_hash` of its text) and `tokens`.
A `Candidate` wraps a block with what selection and assembly need: the
undecorated body (what degradation shrinks), the title line it is framed
with in the system prompt, and — for blocks that are chat messages rather
than system-prompt sections — the OpenAI-format messages it stands for and
its position in the conversation.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from cairn.files.text import content_hash
from cairn.models.manifest import BlockKind, ContextBlock, Source

# Per chat message framing (role, separators) that the text alone does not count.
MESSAGE_OVERHEAD_TOKENS = 4
# The blank line joining a section to the next one inside the system message.
SECTION_OVERHEAD_TOKENS = 1

Count = Callable[[str], int]
ChatMessage = dict[str, Any]


def make_block(
    source: Source,
    priority: int,
    text: str,
    *,
    count: Count,
    ref: str | None = None,
    kind: BlockKind = "text",
    role: str = "system",
    required: bool = False,
    extra_tokens: int = 0,
) -> ContextBlock:
    """A block with its version and token count computed from `text`."""
    return ContextBlock.model_validate(
        {
            "source": source,
            "priority": priority,
            "text": text,
            "tokens": count(text) + extra_tokens,
            "version": content_hash(text),
            "ref": ref,
            "kind": kind,
            "role": role,
            "required": required,
        }
    )


def frame(title: str | None, body: str) -> str:
    """The text of a system-prompt section: a `## title` line, then the body."""
    return f"## {title}\n{body}" if title else body


def message_text(message: ChatMessage) -> str:
    """Everything of a chat message the model reads: content, tool names and arguments."""
    pieces: list[str] = []
    content = message.get("content")
    if isinstance(content, str):
        pieces.append(content)
    for call in message.get("tool_calls") or []:
        function = call.get("function", {})
        pieces.append(f"{function.get('name', '')}({function.get('arguments', '')})")
    return "\n".join(pieces)


@dataclass
class Candidate:
    """One block on its way into the context.

    `messages` is None for a system-prompt section (its text is `frame(title,
    body)`), else the chat messages the block stands for, placed at `seq` in
    the conversation (for sections, `seq` orders those of one source). `artifacts` maps a tool message's index in `messages`
    to the artifact already holding its full output.
    """

    block: ContextBlock
    body: str
    title: str | None = None
    messages: list[ChatMessage] | None = None
    seq: float = 0.0
    artifacts: dict[int, str] = field(default_factory=dict)

    @property
    def is_history(self) -> bool:
        return self.messages is not None and self.block.source in ("history", "tool")


def section(
    source: Source,
    priority: int,
    title: str | None,
    body: str,
    *,
    count: Count,
    ref: str | None = None,
    kind: BlockKind = "text",
    required: bool = False,
    extra_tokens: int = 0,
) -> Candidate:
    """A system-prompt section candidate; its tokens include the separator to the next one."""
    block = make_block(
        source,
        priority,
        frame(title, body),
        count=count,
        ref=ref,
        kind=kind,
        required=required,
        extra_tokens=SECTION_OVERHEAD_TOKENS + extra_tokens,
    )
    return Candidate(block=block, body=body, title=title)


def chat_candidate(
    source: Source,
    priority: int,
    messages: list[ChatMessage],
    *,
    count: Count,
    seq: float,
    ref: str | None = None,
    kind: BlockKind = "message",
    required: bool = False,
    artifacts: dict[int, str] | None = None,
) -> Candidate:
    """A candidate standing for chat messages; tokens include per-message framing."""
    text = "\n".join(message_text(m) for m in messages)
    role = str(messages[0]["role"]) if messages else "user"
    block = make_block(
        source,
        priority,
        text,
        count=count,
        ref=ref,
        kind=kind,
        role=role,
        required=required,
        extra_tokens=MESSAGE_OVERHEAD_TOKENS * len(messages),
    )
    return Candidate(
        block=block, body=text, messages=messages, seq=seq, artifacts=dict(artifacts or {})
    )


def with_body(candidate: Candidate, body: str, count: Count, reason: str) -> Candidate:
    """The same section with a smaller body (a degraded form), `reason` recorded.

    A chat candidate of one message (an attachment) keeps its role and gets the new text.
    """
    text = frame(candidate.title, body)
    overhead = SECTION_OVERHEAD_TOKENS
    messages = candidate.messages
    if messages is not None:
        messages = [{**messages[0], "content": text}] if messages else []
        overhead = MESSAGE_OVERHEAD_TOKENS * len(messages)
    block = candidate.block.model_copy(
        update={
            "text": text,
            "tokens": count(text) + overhead,
            "version": content_hash(text),
            "reason": reason,
        }
    )
    return replace(candidate, block=block, body=body, messages=messages)


def with_messages(
    candidate: Candidate, messages: list[ChatMessage], count: Count, reason: str
) -> Candidate:
    """The same chat candidate with replaced messages (a degraded form), `reason` recorded."""
    fresh = chat_candidate(
        candidate.block.source,
        candidate.block.priority,
        messages,
        count=count,
        seq=candidate.seq,
        ref=candidate.block.ref,
        kind=candidate.block.kind,
        required=candidate.block.required,
        artifacts=candidate.artifacts,
    )
    fresh.block.reason = reason
    fresh.block.redactions = candidate.block.redactions
    fresh.block.zone = candidate.block.zone
    return fresh


def tool_call_message(call_id: str, name: str, arguments: dict[str, Any]) -> ChatMessage:
    """One entry of an assistant message's `tool_calls` (OpenAI format)."""
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments, ensure_ascii=False)},
    }


def framed(
    block: ContextBlock, title: str | None, count: Count, *, body_version: bool = False
) -> Candidate:
    """A system-prompt section from a block made elsewhere (its text is the body).

    The version is the hash of the framed text, or with `body_version` the block's own
    (a rules file's content hash, as the profile records it). An excluded block (a
    refused reference, with its reason) stays excluded.
    """
    if not block.included:
        return Candidate(block=block, body=block.text, title=title)
    text = frame(title, block.text)
    fresh = block.model_copy(
        update={
            "text": text,
            "tokens": count(text) + SECTION_OVERHEAD_TOKENS,
            "version": block.version if body_version else content_hash(text),
        }
    )
    return Candidate(block=fresh, body=block.text, title=title)
