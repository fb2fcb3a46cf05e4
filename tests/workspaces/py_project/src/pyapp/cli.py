"""Command line entry point: `pyapp NAME [--shout]`."""

import argparse

from pyapp.greeting import greet


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="pyapp")
    parser.add_argument("name")
    parser.add_argument("--shout", action="store_true")
    args = parser.parse_args(argv)
    print(greet(args.name, shout=args.shout))
    return 0
