"""Context blocks, the per-call manifest and context statistics.

A `ContextBlock` is one whole piece of the model's input. Selection keeps or
drops blocks whole; the `Manifest` records every block with `included` and,
when dropped or degraded, the reason, and the cache zone it was placed in
(DESIGN §2.3: tools → system → preamble → history → tail). Its `cache`
holds what the build predicted the provider would read from its prompt
cache and a hash per zone; `usage` what the provider reported after the
call; `cacheBreak` why the prefix changed before this call, if it did.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field

from cairn.models.base import WireModel
from cairn.models.session import Usage

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
    "ledger",
    "tools",
]

# What a block is, which decides how it may be degraded when it does not fit.
BlockKind = Literal["text", "code", "log", "message"]

# The per-call extras whose cost the manifest lists one line each (`Manifest.extras`).
EXTRA_SOURCES: tuple[Source, ...] = (
    "repomap",
    "profile",
    "rules",
    "buffer",
    "diff",
    "diagnostics",
    "plan",
    "ledger",
)

# Where a block sits in the request, in request order (cairn.context.zones).
Zone = Literal["tools", "system", "preamble", "history", "tail"]


class RedactionNote(WireModel):
    """Secret values replaced in a block before it was sent: their kind and how many (no value)."""

    kind: str
    count: int


def _absent(value: object) -> bool:
    return value is None


def _none_said(value: list[str]) -> bool:
    return not value


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
    # A refused reference whose name leads elsewhere (a symlink): where it leads.
    target: str | None = None
    # Secret values redacted from the block (`cairn.files.redaction`); None when there were none.
    redactions: list[RedactionNote] | None = None
    # The cache zone the block is placed in (set when the context is assembled).
    zone: Zone | None = None


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
    zone: Zone | None = None
    # Optional on the wire: present only for a refused reference whose name (`ref`, as the
    # user wrote it) leads to another file (a symlink): the workspace path it resolves to.
    target: str | None = Field(default=None, exclude_if=_absent)


# What a prompt-cache breakpoint ends ("resent": the end of what the previous call also sent).
BreakpointKind = Literal["system", "preamble", "summary", "history", "resent"]


class CacheBreakpoint(WireModel):
    """One prompt-cache breakpoint of a call (`cache_control` for Anthropic-family models) and
    what it should serve (`cairn.context.breakpoints`)."""

    # Index of the message it ends in the request.
    message: int
    # What it ends: "history" is the last history message; "resent" the end of what the
    # previous call also sent, after a change deeper in.
    ends: BreakpointKind
    # Tokens of the request through it (tool schemas included).
    tokens: int
    # Tokens it should read from the cache (the longest prefix the previous call marked that
    # this one repeats, when it reaches it) and write to it.
    reads: int = 0
    writes: int = 0


class ManifestCache(WireModel):
    """What a build predicted about the provider's prompt cache."""

    # Tokens of the request that are an unchanged prefix of the previous call's.
    predicted_cached: int = 0
    # Content hash of each zone's bytes (tools, system, preamble, history, tail).
    zone_hashes: dict[str, str] = Field(default_factory=dict)
    # The breakpoints of the call, in request order, with what each should read and write.
    breakpoints: list[CacheBreakpoint] = Field(default_factory=list)


class ExtraCost(WireModel):
    """What one kind of per-call extra (repository map, profile, rules, buffers, diff,
    diagnostics, plan) costs in a call: its included tokens and blocks, and blocks dropped."""

    source: str
    tokens: int
    blocks: int
    dropped: int = 0


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
    # Why the prompt prefix changed (or the provider cache went cold) before this call.
    cache_break: str | None = None
    cache: ManifestCache = Field(default_factory=ManifestCache)
    # What the provider reported for the call (None before the call or when it failed).
    usage: Usage | None = None
    # When the call was sent (None for a dry run).
    at: datetime | None = None
    # One line per kind of per-call extra, in `EXTRA_SOURCES` order (absent kinds left out).
    extras: list[ExtraCost] = Field(default_factory=list)
    # The call's context statistics (what the meter showed for it).
    stats: ContextStats | None = None
    # What the call's settings left out and why (an untrusted folder's ignored keys); absent
    # on the wire when there is nothing to say.
    notes: list[str] = Field(default_factory=list, exclude_if=_none_said)


class CompactionStats(WireModel):
    count: int = 0
    summary_tokens: int = 0
    watermark: str | None = None
    in_progress: bool = False


class CacheStats(WireModel):
    """The prompt cache as the meter shows it: predicted for the next call, reported for the last."""

    predicted_cached: int = 0
    cached_input: int = 0
    cache_write_input: int = 0
    last_break: str | None = None


class TokenCount(WireModel):
    """How a call's tokens are counted: the tokenizer (`exact`: the model's own, else an
    o200k_base estimate), the calibration factor applied to the budget (provider input
    tokens per counted token, learned from `samples` reported calls), and the input the
    provider should report for the call (counted input and tool schemas, times the factor)."""

    tokenizer: str = "o200k_base"
    exact: bool = False
    factor: float = 1.0
    samples: int = 0
    estimated_input: int = 0


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
    cache: CacheStats = Field(default_factory=CacheStats)
    tokens: TokenCount = Field(default_factory=TokenCount)
    # The session's last figure, answered because a build was running when it was asked
    # for; the fresh one follows (`cairn/contextStatsChanged`).
    stale: bool = False


Manifest.model_rebuild()
