"""Regenerate `bench/RESULTS.md` from `bench/history/` without running a benchmark.

.venv/bin/python -m bench.results           # rewrite the page
.venv/bin/python -m bench.results --check   # exit 1 when the page is stale
"""

from __future__ import annotations

import argparse
import sys

from bench.harness.paths import RESULTS
from bench.harness.writer import regenerate, results_text


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check that the page is current")
    args = parser.parse_args()
    if args.check:
        current = RESULTS.read_text(encoding="utf-8") if RESULTS.exists() else ""
        if current != results_text():
            print(f"{RESULTS} is stale: run `python -m bench.results`", file=sys.stderr)
            return 1
        return 0
    print(regenerate())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
