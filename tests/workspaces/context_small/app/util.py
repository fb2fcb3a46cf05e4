"""Helpers."""


def clamp(value: int, low: int, high: int) -> int:
    """Clamp value into [low, high]."""
    return max(low, min(high, value))
