"""Where the cache bench's uncached input comes from, per kind of call (Cairn's side).

Uncached input is each request's tokens minus what Anthropic's breakpoint
cache reads (`cache_replay.Row`): writes count as uncached, since they are
paid at more than the full price. The calls are split into the compaction
calls, the main calls whose manifest records a cache break (summary, fold,
prune, preamble refresh: the whole history after the break point is
written again) and the other main calls, where what is left is the new
messages since the previous call plus the tail. For those, the tail's own
tokens (the last message, when it is the harness tail) are shown apart.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable, Sequence
from typing import Any

from cache_replay import TAIL_PREFIX, Request, Row

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
