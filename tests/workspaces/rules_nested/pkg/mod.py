"""Arithmetic helpers."""


def double(value: int) -> int:
    return value * 2
