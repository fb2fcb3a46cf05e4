"""Summarising timed samples: the median in milliseconds, and nearest-rank percentiles (p95…)."""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence

MS = 1_000
P95 = 0.95


def percentile(values: Sequence[float], share: float) -> float:
    """The nearest-rank `share` (0..1) percentile of `values`; 0.0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, min(len(ordered), math.ceil(share * len(ordered))))
    return ordered[rank - 1]


def median_ms(seconds: Iterable[float]) -> float:
    """The median of samples in seconds, in milliseconds."""
    return statistics.median(seconds) * MS
