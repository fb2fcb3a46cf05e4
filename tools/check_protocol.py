"""Checks a PROTOCOL.md against the server's contract and models.

    .venv/bin/python -m tools.check_protocol [FILE]   # default: docs/PROTOCOL.md

Prints the mismatches, the implemented-but-undocumented items and the
documented-but-not-implemented ("missing") ones. Exits 1 on a mismatch or an
undocumented item; with `--strict` (what the test of docs/PROTOCOL.md
asks), also on a missing one. A target contract ahead of the code (the
shared PROTOCOL.md) passes without `--strict` and lists what is still to build.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tools.contracts.protocol_doc import Report, check

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DOC = REPO / "docs" / "PROTOCOL.md"


def render(report: Report) -> list[str]:
    lines: list[str] = []
    for title, items in (
        ("mismatch (documented and implemented, but different)", report.mismatches),
        ("undocumented (implemented, not in the document)", report.undocumented),
        ("missing (documented, not implemented yet)", report.missing),
    ):
        lines += [f"{title}: {item}" for item in items]
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Check a PROTOCOL.md against the models.")
    parser.add_argument("file", nargs="?", type=Path, default=DEFAULT_DOC)
    parser.add_argument("--strict", action="store_true", help="fail on missing items too")
    args = parser.parse_args(argv)
    report = check(args.file.read_text(encoding="utf-8"))
    for line in render(report):
        print(line)
    failed = not report.consistent or (args.strict and bool(report.missing))
    print(f"{args.file}: {'FAILED' if failed else 'ok'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
