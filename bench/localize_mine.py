"""Candidate instances for `bench/localize.py`, mined from a repository's history.

Usage:
    .venv/bin/python -m bench.localize_mine OWNER/NAME [--count 12] [--since 2019-01-01]

Lists fix commits of a bare mirror (`bench/localize_data.mirror_of`) that name the issue
they fix (`fixes #123`, `closes #123`, `resolves #123`, or the issue's URL), change one
to three non-test source files that already existed in the parent commit, and change a
test too (as SWE-bench's instances do). Prints one JSON object a line: repo, the fix
commit, its parent (the base commit), the issue number, the commit's subject and the
gold files, a deterministic spread over the history (`--count` of them, oldest first).

The issue's own text (title and description) is then looked up by hand in a public
issue index and written into `bench/data/localize.jsonl` with `source` naming the fix
commit: the commit's message is never used as the message (it describes the fix, not
the problem).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
from pathlib import Path, PurePosixPath

from bench.localize_data import mirror_of

ISSUE_REF = re.compile(
    r"(?:fix(?:e[sd])?|close[sd]?|resolve[sd]?)\s*:?\s+"
    r"(?:https://github\.com/[\w.-]+/[\w.-]+/issues/|#|gh-)(\d+)",
    re.IGNORECASE,
)
SOURCE_SUFFIXES = frozenset({".py", ".pyi", ".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs"})
TEST_DIRS = frozenset({"test", "tests", "testing", "__tests__", "spec", "specs", "test-data"})
MAX_GOLD = 3
SEPARATOR = "\x1e"


def is_test(rel: str) -> bool:
    """A test file or test data, by path (independent of Cairn's own role rules)."""
    path = PurePosixPath(rel)
    name = path.name.lower()
    return bool(
        {p.lower() for p in path.parts[:-1]} & TEST_DIRS
        or name.startswith("test_")
        or path.stem.lower().endswith(("_test", ".test", ".spec"))
        or name == "conftest.py"
    )


def is_source(rel: str) -> bool:
    """A source file that is not a test, a doc or an example."""
    path = PurePosixPath(rel)
    dirs = {p.lower() for p in path.parts[:-1]}
    return (
        path.suffix in SOURCE_SUFFIXES
        and not is_test(rel)
        and not dirs & {"doc", "docs", "website", "examples", "example", "benchmarks", "asv_bench"}
    )


def git(git_dir: Path, *args: str) -> str:
    out = subprocess.run(
        ["git", f"--git-dir={git_dir}", *args], capture_output=True, check=True, text=True
    )
    return out.stdout


def candidates(repo: str, since: str) -> list[dict[str, object]]:
    """Every fix commit of the mirror's default branch that fits (newest first)."""
    git_dir = mirror_of(repo)
    log = git(
        git_dir,
        "log",
        "--no-merges",
        f"--since={since}",
        f"--format={SEPARATOR}%H %P%n%s%n%b",
        "--name-status",
        "HEAD",
    )
    out: list[dict[str, object]] = []
    for chunk in log.split(SEPARATOR)[1:]:
        head, _, rest = chunk.partition("\n")
        shas = head.split()
        if len(shas) != 2:
            continue  # a root or a merge commit
        commit, parent = shas
        lines = rest.splitlines()
        subject = lines[0] if lines else ""
        message = "\n".join(line for line in lines if "\t" not in line)
        issue = ISSUE_REF.search(message)
        if issue is None:
            continue
        changes = [line.split("\t") for line in lines if "\t" in line]
        modified = [c[1] for c in changes if len(c) == 2 and c[0] == "M"]
        touched = [c[-1] for c in changes]
        gold = sorted(rel for rel in modified if is_source(rel))
        added_sources = [c[-1] for c in changes if c[0] != "M" and is_source(c[-1])]
        if not 0 < len(gold) <= MAX_GOLD or added_sources:
            continue
        if not any(is_test(rel) for rel in touched):
            continue
        out.append(
            {
                "repo": repo,
                "commit": commit,
                "base_commit": parent,
                "issue": int(issue.group(1)),
                "subject": subject,
                "gold": gold,
            }
        )
    return out


def spread(items: list[dict[str, object]], count: int) -> list[dict[str, object]]:
    """`count` items evenly spaced over the list, oldest first (deterministic)."""
    ordered = list(reversed(items))
    if len(ordered) <= count:
        return ordered
    step = len(ordered) / count
    return [ordered[int(i * step)] for i in range(count)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("repo")
    parser.add_argument("--count", type=int, default=12)
    parser.add_argument("--since", default="2019-01-01")
    args = parser.parse_args()
    found = candidates(args.repo, args.since)
    for item in spread(found, args.count):
        print(json.dumps(item))


if __name__ == "__main__":
    main()
