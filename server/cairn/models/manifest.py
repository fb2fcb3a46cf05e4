"""Context blocks, the per-call manifest and context statistics.

A `ContextBlock` is one whole piece of the model's input. Selection keeps or
drops blocks whole; the `Manifest` records every block with `included` and,
when dropped or degraded, the reason.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from cairn.models.base import WireModel

Source = Literal[
    "system",
    "rules",
    "mode",
    "user",
    "reference",
    "plan",
    "diagnostics",
    "diff",
    "buffer",
    "history",
    "tool",
    "summary",
    "repomap",
    "profile",
    "tools",
]

# What a block is, which decides how it may be degraded when it does not fit.
BlockKind = Literal["text", "code", "log", "message"]


class RedactionNote(WireModel):
    """Secret values replaced in a block before it was sent: their kind and how many (no value)."""

    kind: str
    count: int


def _absent(value: object) -> bool:
    return value is None


class ContextBlock(WireModel):
    """One whole block of context. `version` is the content hash."""

    source: Source
    priority: int
    text: str
    tokens: int = 0
    version: str = ""
    ref: str | None = None
    kind: BlockKind = "text"
    # For history blocks: the chat role and message payload the model sees.
    role: Literal["system", "user", "assistant", "tool"] = "system"
    required: bool = False
    included: bool = True
    reason: str | None = None
    # When the block was degraded (outline, log excerpt): the artifact holding the full text.
    artifact_id: str | None = None
    # Secret values redacted from the block (`cairn.files.redaction`); None when there were none.
    redactions: list[RedactionNote] | None = None


class ManifestBlock(WireModel):
    source: str
    priority: int
    tokens: int
    version: str
    included: bool
    reason: str | None = None
    ref: str | None = None
    # Optional on the wire: present only for a block whose secret values were redacted.
    redactions: list[RedactionNote] | None = Field(default=None, exclude_if=_absent)


class Manifest(WireModel):
    session_id: str
    call_id: str | None = None
    # The turn whose model call it was (None for a dry run).
    turn_id: str | None = None
    model: str
    available_input: int
    used_input: int
    blocks: list[ManifestBlock] = Field(default_factory=list)
    # A call made again after the provider refused call `retry_of`, and what was done first.
    retry_of: str | None = None
    retry_reason: str | None = None


class CompactionStats(WireModel):
    count: int = 0
    summary_tokens: int = 0
    watermark: str | None = None
    in_progress: bool = False


class ContextStats(WireModel):
    session_id: str
    context_window: int
    max_output_tokens: int
    tool_schema_tokens: int
    safety_margin: int
    available_input: int
    used_input: int
    by_source: dict[str, int] = Field(default_factory=dict)
    compaction: CompactionStats = Field(default_factory=CompactionStats)
