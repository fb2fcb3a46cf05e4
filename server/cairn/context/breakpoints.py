"""Where a request's prompt-cache breakpoints go, and which should serve how much (pure).

Anthropic caches a prefix only where a content block carries `cache_control`
(at most `MAX_BREAKPOINTS` per request) and serves a request the longest
cached prefix that ends at one of its breakpoints or at one of the
`LOOKBACK_BLOCKS` block boundaries before one; `cairn.llm.cache_hints` puts
`cache_control` on the messages named here (Anthropic-family models only).

A request's `Boundary`s are the ends of what the cache could hold: the
system message, the preamble, the frozen summary, each history entry (a
message, or a reply with its tool results). `place` marks:
- the system message, the preamble, the summary: the prefixes that outlive
  a change of the history after them (a fold, a prune) or of the preamble;
- the last history message: what the next call re-sends, written now;
- the end of what the previous call also sent (`resent`), when no other
  mark is within `LOOKBACK_BLOCKS` blocks after it: after a fold or prune
  deep in the history the unchanged part is then read, not written again.
With more than `MAX_BREAKPOINTS`, the earliest structural marks go first.

`served` is each mark's share of the call as the manifest records it
(`CacheBreakpoint`): its tokens, the tokens it should read from the cache —
the longest part of what the previous call also sent that ends at a
boundary a mark reaches (the session's earlier calls marked each of their
last messages, so an entry is there while the provider keeps it) — and the
tokens it writes. Providers with automatic caches
ignore the marks; the manifest's `predictedCached` is their prediction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from cairn.models.manifest import BreakpointKind, CacheBreakpoint

# Anthropic accepts at most four cache_control breakpoints per request.
MAX_BREAKPOINTS: Final = 4
# Block boundaries before a breakpoint at which Anthropic also looks for a cached prefix.
LOOKBACK_BLOCKS: Final = 20

BoundaryKind = Literal["system", "preamble", "summary", "history"]
# Structural marks, the first dropped first when there are too many.
STRUCTURAL: Final[tuple[BreakpointKind, ...]] = ("system", "preamble", "summary")


@dataclass(frozen=True)
class Boundary:
    """The end of one cacheable part of a request."""

    # Index of its last message in the request.
    message: int
    kind: BoundaryKind
    # Tokens of the request through it (tool schemas first), as the manifest counts them.
    tokens: int
    # Content blocks through it (tool schemas included): Anthropic's unit of lookback.
    blocks: int


@dataclass(frozen=True)
class Mark:
    boundary: Boundary
    kind: BreakpointKind


def _resent(boundaries: Sequence[Boundary], shared: int) -> Boundary | None:
    """The last boundary within the `shared` tokens the previous call also sent."""
    inside = [b for b in boundaries if b.tokens <= shared]
    return inside[-1] if inside else None


def _reached(marks: Sequence[Mark], boundary: Boundary) -> Mark | None:
    """The first mark whose lookback reaches `boundary` (at or after it, close enough)."""
    for mark in sorted(marks, key=lambda m: m.boundary.message):
        if mark.boundary.message < boundary.message:
            continue
        return mark if mark.boundary.blocks - boundary.blocks < LOOKBACK_BLOCKS else None
    return None


def place(boundaries: Sequence[Boundary], shared: int | None) -> list[Mark]:
    """The marks of a request (see the module docstring), in request order; `shared`: tokens
    of the prefix the previous call also sent (None: no previous call)."""
    marks = [Mark(b, b.kind) for b in boundaries if b.kind != "history"]
    history = [b for b in boundaries if b.kind == "history"]
    if history:
        marks.append(Mark(history[-1], "history"))
    resent = _resent(boundaries, shared) if shared else None
    if resent is not None and _reached(marks, resent) is None:
        marks.append(Mark(resent, "resent"))
    marks.sort(key=lambda m: m.boundary.message)
    while len(marks) > MAX_BREAKPOINTS:
        drop = next((m for m in marks if m.kind in STRUCTURAL), marks[0])
        marks.remove(drop)
    return marks


def served(
    marks: Sequence[Mark], boundaries: Sequence[Boundary], shared: int | None
) -> list[CacheBreakpoint]:
    """Each mark's tokens, reads and writes (see the module docstring)."""
    cached = [b for b in boundaries if shared and b.tokens <= shared]
    read, reader = 0, None
    for boundary in reversed(cached):
        reader = _reached(marks, boundary)
        if reader is not None:
            read = boundary.tokens
            break
    out: list[CacheBreakpoint] = []
    before = read
    for mark in marks:
        tokens = mark.boundary.tokens
        out.append(
            CacheBreakpoint(
                message=mark.boundary.message,
                ends=mark.kind,
                tokens=tokens,
                reads=read if mark is reader else 0,
                writes=max(tokens - before, 0),
            )
        )
        before = max(before, tokens)
    return out
