"""Merging closed integer intervals, as used by the calendar importer."""

from __future__ import annotations

from collections.abc import Iterable

Interval = tuple[int, int]


def merge_intervals(intervals: Iterable[Interval]) -> list[Interval]:
    """Merge overlapping or touching closed intervals; the result is sorted by start."""
    merged: list[list[int]] = []
    for start, end in sorted(intervals):
        if start > end:
            raise ValueError(f"interval ({start}, {end}) ends before it starts")
        if merged and start < merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(start, end) for start, end in merged]


def total_length(intervals: Iterable[Interval]) -> int:
    """Length covered by the union of the intervals."""
    return sum(end - start for start, end in merge_intervals(intervals))
