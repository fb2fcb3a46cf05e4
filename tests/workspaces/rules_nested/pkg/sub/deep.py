"""Deep helpers."""

from pkg.mod import double


def quadruple(value: int) -> int:
    return double(double(value))
