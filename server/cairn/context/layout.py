"""Selected blocks → the chat messages of one request, zone by zone (OpenAI format, as litellm takes it).

The request (DESIGN §2.3, `cairn.context.zones`):
1. one system message: the harness rules, then the mode's rules;
2. one system message: the preamble — rules files (general to specific),
   the project profile, the repository map (absent when empty);
3. the history in conversation order: the summary, then messages (user /
   assistant with `tool_calls` / tool with `tool_call_id`), attachments and
   harness notes (user role);
4. one user message, the tail: its header, then diagnostics, the diff,
   changes to attached files, other blocks, the ledger, and the current plan LAST, so
   the plan is the last thing the model reads (DESIGN §2.2). The tail is
   user-role because litellm moves every system message into Anthropic's
   `system` parameter, which would put it before the history.

`boundaries` are the ends of the request's cacheable parts (the system
message, the preamble, the summary, each history entry) with the tokens and
content blocks through each: `cairn.context.breakpoints` chooses among them
where `cache_control` goes.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from cairn.context.blocks import Candidate, ChatMessage
from cairn.context.breakpoints import Boundary, BoundaryKind
from cairn.context.zones import (
    SECTION_ORDER,
    ZONE_HISTORY,
    ZONE_PREAMBLE,
    ZONE_SYSTEM,
    ZONE_TAIL,
    zone_rank,
)
from cairn.files.text import content_hash
from cairn.models.manifest import Zone

SECTION_SEPARATOR = "\n\n"
# A zone's header (a block of source "system" in another zone) comes before its sections.
HEADER_SOURCE = "system"
# Sources placed last in the tail, in this order (the plan is the last thing read).
TAIL_LAST: tuple[str, ...] = ("ledger", "plan")


@dataclass(frozen=True)
class Layout:
    """The messages of a request, where each zone's messages are, and its cacheable parts."""

    messages: list[ChatMessage]
    # Zone → indexes of its messages in `messages` (the tools zone has none).
    zones: dict[Zone, tuple[int, ...]]
    boundaries: tuple[Boundary, ...] = ()


def content_blocks(message: ChatMessage) -> int:
    """The content blocks a message is sent as (its text, each tool call): what Anthropic's
    cache lookback counts."""
    content = message.get("content")
    texts = len(content) if isinstance(content, list) else int(bool(content))
    calls = len(message.get("tool_calls") or [])
    return max(texts + calls, 1)


def _section_rank(zone: Zone, source: str) -> int:
    if source == HEADER_SOURCE and zone != ZONE_SYSTEM:
        return -1
    order = SECTION_ORDER.get(zone, ())
    if zone == ZONE_TAIL and source in TAIL_LAST:
        return len(order) + 1 + TAIL_LAST.index(source)
    return order.index(source) if source in order else len(order)


def layout(candidates: Sequence[Candidate]) -> list[Candidate]:
    """Candidates in request order: by zone, sections by their order in the zone then `seq`,
    chat blocks by conversation position (`seq`); ties keep the given order."""

    def key(candidate: Candidate) -> tuple[int, int, float]:
        zone = candidate.block.zone or ZONE_TAIL
        rank = 0 if candidate.messages is not None else _section_rank(zone, candidate.block.source)
        return (zone_rank(zone), rank, candidate.seq)

    return sorted(candidates, key=key)


def _sections(ordered: Sequence[Candidate], zone: Zone) -> list[str]:
    return [
        c.block.text
        for c in ordered
        if c.block.zone == zone and c.messages is None and c.block.included and c.block.text
    ]


def to_messages(ordered: Sequence[Candidate], tools: tuple[int, int] = (0, 0)) -> Layout:
    """The messages of the included candidates of a `layout`-ordered list; `tools`: the
    tokens and count of the tool schemas sent before them (the boundaries count from there)."""
    messages: list[ChatMessage] = []
    zones: dict[Zone, tuple[int, ...]] = {}
    tokens, blocks = tools
    boundaries: list[Boundary] = []
    opening: tuple[tuple[Zone, BoundaryKind], ...] = (
        (ZONE_SYSTEM, "system"),
        (ZONE_PREAMBLE, "preamble"),
    )
    for zone, kind in opening:
        texts = _sections(ordered, zone)
        if texts:
            zones[zone] = (len(messages),)
            messages.append({"role": "system", "content": SECTION_SEPARATOR.join(texts)})
            tokens += sum(
                c.block.tokens
                for c in ordered
                if c.block.zone == zone and c.messages is None and c.block.included
            )
            blocks += 1
            boundaries.append(Boundary(len(messages) - 1, kind, tokens, blocks))
    history_start = len(messages)
    for candidate in ordered:
        if candidate.messages is None or not candidate.block.included:
            continue
        shown = [dict(m) for m in candidate.messages]
        messages.extend(shown)
        tokens += candidate.block.tokens
        blocks += sum(content_blocks(m) for m in shown)
        ends: BoundaryKind = "summary" if candidate.block.source == "summary" else "history"
        boundaries.append(Boundary(len(messages) - 1, ends, tokens, blocks))
    zones[ZONE_HISTORY] = tuple(range(history_start, len(messages)))
    tail = _sections(ordered, ZONE_TAIL)
    if tail:
        zones[ZONE_TAIL] = (len(messages),)
        messages.append({"role": "user", "content": SECTION_SEPARATOR.join(tail)})
    return Layout(messages=messages, zones=zones, boundaries=tuple(boundaries))


def zone_hashes(layout_: Layout, tool_schemas: Sequence[object]) -> dict[str, str]:
    """A content hash of each zone's bytes as sent."""
    hashes = {"tools": content_hash(json.dumps(list(tool_schemas), sort_keys=True))}
    for zone, indexes in layout_.zones.items():
        payload = json.dumps([layout_.messages[i] for i in indexes], sort_keys=True)
        hashes[zone] = content_hash(payload)
    return hashes
