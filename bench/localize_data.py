"""Instances of `bench/localize.py` and their trees.

An instance (`bench/data/localize.jsonl`, one JSON object a line) is a real
issue of a public repository outside the SWE-bench test split: `id`, `repo`
(owner/name), `base_commit` (the tree before the fix), `text` (the issue as
the user's message), `gold` (the non-test files the fix edited) and `source`
(where the record came from). Trees are never committed: each base commit is
materialised once from a bare mirror of its repository
(`<mirrors>/<owner>+<name>/repo`, what the session's `fetch` tool leaves) into
`bench/.work/localize/<id>` with `git archive | tar -x` (blob by blob when the mirror
lacks some large data files), then made a repository of its own (`git init`) so that the
tree's ignore rules apply rather than this checkout's.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path

BENCH = Path(__file__).resolve().parent
DATA = BENCH / "data" / "localize.jsonl"
TREES = BENCH / ".work" / "localize"
MIRRORS = Path("/work/.mirror")
DONE_MARK = ".git/localize-complete"
"""Written last into a materialised tree: a tree without it is re-extracted."""


@dataclass(frozen=True)
class Instance:
    """One localisation task."""

    id: str
    repo: str
    base_commit: str
    text: str
    gold: tuple[str, ...]

    @property
    def project(self) -> str:
        """The repository's name (per-repository figures group by it)."""
        return self.repo.split("/")[-1]


def load(path: Path = DATA) -> list[Instance]:
    """The instances of the data file, in file order."""
    out: list[Instance] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            out.append(
                Instance(
                    row["id"], row["repo"], row["base_commit"], row["text"], tuple(row["gold"])
                )
            )
    return out


def mirror_of(repo: str, mirrors: Path = MIRRORS) -> Path:
    """The bare git directory holding `repo`'s history."""
    return mirrors / repo.replace("/", "+") / "repo"


def materialise(instance: Instance, mirrors: Path = MIRRORS, trees: Path = TREES) -> Path | str:
    """The instance's tree at its base commit (extracted once), or why it cannot be had."""
    target = trees / instance.id
    if (target / DONE_MARK).exists():
        return target
    git_dir = mirror_of(instance.repo, mirrors)
    if not git_dir.is_dir():
        return f"no mirror of {instance.repo} at {git_dir}"
    target.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(
        ["git", f"--git-dir={git_dir}", "archive", instance.base_commit],
        capture_output=True,
        check=False,
    )
    if archive.returncode != 0:
        # A partial mirror lacks some large blobs (data files): extract what it has.
        why = _extract_present(git_dir, instance.base_commit, target)
        if why is not None:
            return why
    else:
        untar = subprocess.run(
            ["tar", "-x", "-C", str(target)], input=archive.stdout, capture_output=True, check=False
        )
        if untar.returncode != 0:
            return f"tar failed: {untar.stderr.decode()[:200]}"
    # Its own (empty) git repository: the tree's own ignore rules apply, not this one's
    # (which ignores bench/.work/ and so every file of the tree).
    init = subprocess.run(["git", "init", "-q", str(target)], capture_output=True, check=False)
    if init.returncode != 0:
        return f"git init failed: {init.stderr.decode()[:200]}"
    (target / DONE_MARK).write_text(instance.base_commit + "\n", encoding="utf-8")
    return target


def _extract_present(git_dir: Path, commit: str, target: Path) -> str | None:
    """Write every blob of `commit` the mirror holds under `target`; None, or why not."""
    listing = subprocess.run(
        ["git", f"--git-dir={git_dir}", "ls-tree", "-r", "-z", commit],
        capture_output=True,
        check=False,
    )
    if listing.returncode != 0:
        return f"git ls-tree {commit[:12]} failed: {listing.stderr.decode()[:200]}"
    blobs: list[tuple[str, str]] = []
    for entry in listing.stdout.decode("utf-8", "surrogateescape").split("\0"):
        meta, _, rel = entry.partition("\t")
        fields = meta.split()
        if len(fields) == 3 and fields[1] == "blob" and fields[0] != "120000":
            blobs.append((fields[2], rel))
    batch = subprocess.run(
        ["git", f"--git-dir={git_dir}", "cat-file", "--batch"],
        input="".join(f"{sha}\n" for sha, _ in blobs).encode(),
        capture_output=True,
        check=False,
    )
    data, offset = batch.stdout, 0
    for _, rel in blobs:
        end = data.index(b"\n", offset)
        header = data[offset:end].split()
        offset = end + 1
        if len(header) < 3 or header[1] != b"blob":
            continue  # missing from the mirror
        size = int(header[2])
        path = target / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data[offset : offset + size])
        offset += size + 1
    return None
