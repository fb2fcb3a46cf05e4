"""Entry point of the rules fixture."""

from pkg.mod import double


def main() -> None:
    double(2)
