"""Where the cache bench's uncached input comes from, per kind of call (Cairn's side).

Uncached input is each request's tokens minus what Anthropic's breakpoint
cache reads (`replay.Row`): writes count as uncached, since they are
paid at more than the full price. The calls are split into the compaction
calls, the main calls whose manifest records a cache break (summary, fold,
prune, preamble refresh: the whole history after the break point is
written again) and the other main calls, where what is left is the new
messages since the previous call plus the tail. For those, the tail's own
tokens (the last message, when it is the harness tail) are shown apart.

`sent_before` is the input a cache could hold at all: the tokens of each
request that the previous request also sent (its tools, and every message it
had, wherever it stood). The messages new since the previous call (the
model's reply, the tool results it asked for) were never sent before, so no
provider serves them from a cache; `cacheable_line` gives, for each side,
the share of that input the cache served. `floor_line` is what follows for
Cairn's cost: were every token sent before read from the cache (0.1x) and
every other one paid once at the full price — at Anthropic's, those the
next request sends again written (1.25x), since only a written prefix is
read later — its input would still cost at least that much; over the
peer's measured cost, it is the lowest ratio any breakpoint placement can
reach without sending less.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from bench.cache.replay import ANTHROPIC_WRITE, OPENAI_READ, TAIL_PREFIX, Request, Row, units

Count = Callable[[str], int]


def tail_tokens(request: Request, count: Count) -> int:
    """Tokens of the request's last message when it is the harness tail, else 0."""
    if not request.messages:
        return 0
    last = request.messages[-1]
    if not str(last.get("content") or "").startswith(TAIL_PREFIX):
        return 0
    return count(json.dumps(last, sort_keys=True, ensure_ascii=False))


def reason_kind(reason: str) -> str:
    """A break reason's kind: "fold goal 3" → "fold goal", "summary" → "summary"."""
    words = reason.replace(":", " ").split()
    return " ".join(w for w in words[:2] if not w.isdigit()) or reason


def _uncached(row: Row) -> int:
    return row.total - row.anthropic_read


def breakdown_lines(
    requests: Sequence[Request], rows: Sequence[Row], manifests: Sequence[Any], count: Count
) -> list[str]:
    """Markdown lines: uncached input by kind of call, and the tail per call."""
    main = [(q, r) for q, r in zip(requests, rows, strict=True) if q.kind == "main"]
    if len(main) != len(manifests):
        return [f"(breakdown skipped: {len(main)} main requests, {len(manifests)} manifests)"]
    reasons = [str(getattr(m, "cache_break", None) or "") for m in manifests]
    broke: dict[str, list[Row]] = {}
    steady: list[tuple[Request, Row]] = []
    for (request, row), reason in zip(main, reasons, strict=True):
        if reason:
            broke.setdefault(reason_kind(reason), []).append(row)
        else:
            steady.append((request, row))
    compaction = [r for q, r in zip(requests, rows, strict=True) if q.kind == "compaction"]
    tails = [tail_tokens(q, count) for q, _ in steady]
    steady_uncached = sum(_uncached(r) for _, r in steady)
    lines = [
        f"Uncached input (Anthropic rules: request minus cache read) {sum(map(_uncached, rows))}:"
    ]
    lines += [
        f"- {len(group)} main calls after a break ({kind}): {sum(map(_uncached, group))}"
        for kind, group in sorted(broke.items())
    ]
    lines += [
        f"- {len(compaction)} compaction calls: {sum(map(_uncached, compaction))}",
        f"- {len(steady)} main calls without a break: {steady_uncached}"
        f" ({steady_uncached / max(len(steady), 1):.0f} per call), of which the tail"
        f" {sum(tails)} (median {statistics.median(tails) if tails else 0:.0f} per call,"
        f" max {max(tails, default=0)}) and new messages since the previous call"
        f" {steady_uncached - sum(tails)}",
    ]
    return lines


def sent_before(requests: Sequence[Request], count: Count) -> int:
    """Tokens of the requests that the previous request also sent (see the module docstring)."""
    total = 0
    previous: set[str] = set()
    for request in requests:
        current = units(request)
        total += sum(count(unit) for unit in current if unit in previous)
        previous = set(current)
    return total


def served_shares(
    requests: Sequence[Request], rows: Sequence[Row], count: Count
) -> tuple[float, float]:
    """Of the input sent before, the share served from cache (Anthropic, OpenAI rules)."""
    before = sent_before(requests, count) or 1
    anthropic = sum(r.anthropic_read for r in rows) / before
    return anthropic, sum(r.openai_cached for r in rows) / before


def cacheable_line(
    sides: Mapping[str, tuple[Sequence[Request], Sequence[Row]]], count: Count
) -> str:
    """Per side: of the input sent before, the share served from cache (Anthropic / OpenAI)."""
    parts: list[str] = []
    for name, (requests, rows) in sides.items():
        anthropic, openai = served_shares(requests, rows, count)
        share = sent_before(requests, count) / (sum(r.total for r in rows) or 1)
        parts.append(f"{name} {anthropic:.1%} / {openai:.1%} (of {share:.1%} of its input)")
    return (
        "Served from cache, of the input the previous request also sent (Anthropic / OpenAI"
        " rules; the new messages since the previous call cannot be cached): " + ", ".join(parts)
    )


def floor_parts(requests: Sequence[Request], count: Count) -> tuple[int, int, int]:
    """(tokens sent before, tokens new, of those the ones the next request sends again)."""
    before = new = again = 0
    sets = [set(units(r)) for r in requests]
    for index, request in enumerate(requests):
        previous = sets[index - 1] if index else set()
        following = sets[index + 1] if index + 1 < len(sets) else set()
        for unit in units(request):
            tokens = count(unit)
            if unit in previous:
                before += tokens
            else:
                new += tokens
                again += tokens if unit in following else 0
    return before, new, again


def floor_line(
    sides: Mapping[str, tuple[Sequence[Request], Sequence[Row]]], count: Count, peer: str
) -> str:
    """Cairn's cost floor for its requests (see the module docstring) over `peer`'s cost."""
    requests, _ = sides["Cairn"]
    before, new, again = floor_parts(requests, count)
    openai = new + OPENAI_READ * before
    anthropic = openai + (ANTHROPIC_WRITE - 1) * again
    _, peer_rows = sides[peer]
    peer_anthropic = sum(r.anthropic_cost for r in peer_rows) or 1
    peer_openai = sum(r.openai_cost for r in peer_rows) or 1
    return (
        f"Cost floor of Cairn's requests (all {before} tokens sent before read from cache, the"
        f" other {new} paid once, and at Anthropic prices the {again} of them the next request"
        f" sends again written at {ANTHROPIC_WRITE}x): {anthropic:.0f} at Anthropic prices,"
        f" {anthropic / peer_anthropic:.2f}× {peer}'s cost; {openai:.0f} at OpenAI prices,"
        f" {openai / peer_openai:.2f}×."
    )
