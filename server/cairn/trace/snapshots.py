"""Workspace snapshots: the workspace's files as git trees in Cairn's own snapshot repository.

`<root>/snapshots/` (under the trace store's root, e.g. `.cairn/snapshots/`) is a
git repository of Cairn's, never the user's: its work tree is the workspace
folder, its index and objects are its own, and git runs with the user's and
the system's configuration switched off, so no hook, filter, external diff or
prefix setting applies (`cairn.files.git.git_command`: system and global
config off, fsmonitor, hooks and content drivers neutralised). It works the
same inside and outside a git repository; it only needs `git` on PATH.

A store is used only when Cairn made it for this user: `init` writes
`STORE_MARKER`, a stamp with the user's secret (`cairn.files.user_state`)
over the store's path, and a store whose marker is missing or wrong, or that
the project's git tracks (a `.cairn/` committed to the repository), is never
run: snapshots go to a fresh store in the user's state folder instead, and
`take_notices` says so once (when that store is made).

`take(overlays)` records the workspace as it is now — every file git would
not ignore (the workspace's `.gitignore` files apply), untracked files
included — as a tree and returns its id. `overlays` replace the disk's bytes
of some files (the editor's unsaved buffers). Excluded whatever the ignore
files say: the trace directory, `EXCLUDED_DIRS`, secret files (the rules
`exclude_lines` is given: the built-in ones and the user's lists; read
again before every snapshot, so a changed setting applies to the next one)
and files over `MAX_SNAPSHOT_FILE_BYTES`. `diff(before,
after)` is the unified diff between two trees in git's format (`diff --git`
headers, `new file mode` / `deleted file mode`, `/dev/null` sides, no
renames): text files line by line; a binary file appears as a `Binary files
… differ` line (its bytes are in the trees: `blob(tree, path)`, checked
against the diff's `index` line with `blob_id`). The index is kept between
snapshots, so only changed files are hashed again. A lock keeps two
processes from snapshotting one workspace at once.
"""

from __future__ import annotations

import fcntl
import hashlib
import logging
import os
import subprocess
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from cairn.files.git import git_command, run_git
from cairn.files.user_state import stamp, stamp_matches, state_dir

logger = logging.getLogger(__name__)

SNAPSHOTS_DIR = "snapshots"
LOCK_NAME = "cairn.lock"
GIT_TIMEOUT_S = 60.0
# Larger files are left out of snapshots (and so of patches).
MAX_SNAPSHOT_FILE_BYTES = 8 * 1024 * 1024
# Folders never snapshotted (besides the trace directory and git's own `.git`).
EXCLUDED_DIRS = ("node_modules", ".venv", "__pycache__")
REGULAR_MODE = "100644"
# The file in a store holding Cairn's stamp over the store's path.
STORE_MARKER = "cairn-store"
STAMP_PURPOSE = "snapshot-store"
# The folder of the user's state that holds the stores used instead of foreign ones.
FALLBACK_DIR = "snapshots"
FALLBACK_NOTICE = (
    "{store} was not made by Cairn for you (no valid {marker} marker, or the project's git"
    " tracks it); it is not used: snapshots go to {fallback}"
)
GIT_OPTIONS = (
    "-c",
    "core.autocrlf=false",
    "-c",
    "core.quotepath=false",
    "-c",
    "core.safecrlf=false",
    "-c",
    "gc.auto=0",
)


class SnapshotError(Exception):
    """git is missing or failed; the caller falls back to what it knows without snapshots."""


def _any_case(pattern: str) -> str:
    """A gitignore pattern matching `pattern` in any letter case (`.env` → `.[eE][nN][vV]`)."""
    return "".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else c for c in pattern)


def _literal(path: str) -> str:
    """An anchored gitignore pattern matching exactly `path`."""
    escaped = "".join(f"\\{c}" if c in "*?[]!#\\ " else c for c in path)
    return f"/{escaped}"


def exclude_lines(
    trace_dir: str,
    secret_names: Iterable[str],
    secret_exempt: Iterable[str],
    secret_dirs: Iterable[str],
    *,
    allow: Iterable[str] = (),
    deny: Iterable[str] = (),
) -> list[str]:
    """The snapshot repository's `info/exclude`: what is never snapshotted.

    The built-in secret names and folders, their exempt names, then the user's
    exemptions (`allow`) and secret paths (`deny`), both gitignore patterns: the
    last matching line wins, so the user's lists override the built-ins and
    `deny` overrides everything (a file in an excluded folder stays excluded)."""
    lines = [f"/{trace_dir.strip('/')}/", *(f"{name}/" for name in EXCLUDED_DIRS)]
    lines += [_any_case(p) for p in secret_names]
    lines += [f"{_any_case(d)}/" for d in secret_dirs]
    lines += [f"!{_any_case(name)}" for name in secret_exempt]
    lines += [f"!{pattern.lstrip('!')}" for pattern in allow if pattern.strip()]
    lines += [pattern for pattern in deny if pattern.strip()]
    return lines


class Snapshots:
    """Takes and compares snapshots of one workspace folder."""

    def __init__(
        self, store_root: Path, workspace_root: Path, excludes: Callable[[], list[str]]
    ) -> None:
        self.preferred_dir = store_root / SNAPSHOTS_DIR
        self.work_tree = workspace_root
        # The exclude lines (`exclude_lines`), asked for before every snapshot.
        self.excludes = excludes
        self._git_dir: Path | None = None
        # What the user must be told (the fallback store's notice), until `take_notices`.
        self.notices: list[str] = []

    @property
    def git_dir(self) -> Path:
        """The store in use: the preferred one when Cairn made it, else the fallback."""
        if self._git_dir is None:
            preferred = self.preferred_dir
            foreign = preferred.exists() and not self._made_by_cairn(preferred)
            self._git_dir = _fallback_dir(preferred) if foreign else preferred
            if foreign and not (self._git_dir / "HEAD").is_file():
                notice = FALLBACK_NOTICE.format(
                    store=preferred, marker=STORE_MARKER, fallback=self._git_dir
                )
                logger.warning("%s", notice)
                self.notices.append(notice)
        return self._git_dir

    def take_notices(self) -> list[str]:
        """The notices not yet shown (each is returned once)."""
        taken, self.notices = self.notices, []
        return taken

    def _made_by_cairn(self, store: Path) -> bool:
        try:
            marker = (store / STORE_MARKER).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return False
        return stamp_matches(STAMP_PURPOSE, store, marker) and not self._tracked(store)

    def _tracked(self, store: Path) -> bool:
        """Whether the project's git tracks anything in `store`."""
        try:
            relative = store.resolve().relative_to(self.work_tree.resolve()).as_posix()
        except (OSError, ValueError):
            return False
        listed = run_git(self.work_tree, "ls-files", "-z", "--", relative, timeout=GIT_TIMEOUT_S)
        return bool(listed)

    def _git(self, *args: str, data: bytes | None = None) -> bytes:
        location = (f"--git-dir={self.git_dir}", f"--work-tree={self.work_tree}")
        command, env = git_command(location, [*GIT_OPTIONS, *args], own_store=True)
        try:
            done = subprocess.run(
                command,
                input=data,
                capture_output=True,
                timeout=GIT_TIMEOUT_S,
                env=env,
                check=False,
            )
        except (OSError, subprocess.SubprocessError) as exc:
            raise SnapshotError(f"git {args[0]}: {exc}") from None
        if done.returncode != 0:
            message = done.stderr.decode("utf-8", "replace").strip().splitlines()
            raise SnapshotError(f"git {args[0]}: {message[-1] if message else done.returncode}")
        return done.stdout

    def _ensure(self) -> None:
        if not (self.git_dir / "HEAD").is_file():
            self.git_dir.parent.mkdir(parents=True, exist_ok=True)
            self._git("init", "--quiet")
            marker = stamp(STAMP_PURPOSE, self.git_dir)
            (self.git_dir / STORE_MARKER).write_text(marker + "\n", encoding="utf-8")

    def _write_excludes(self, too_large: Iterable[str]) -> None:
        info = self.git_dir / "info"
        info.mkdir(exist_ok=True)
        text = "\n".join([*self.excludes(), *(_literal(p) for p in too_large)]) + "\n"
        path = info / "exclude"
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")

    def _too_large(self) -> list[str]:
        """Changed or new files over the size limit (left out of the snapshot)."""
        self._write_excludes(())
        listed = self._git("ls-files", "-z", "--others", "--modified", "--exclude-standard")
        large: list[str] = []
        for name in filter(None, listed.decode("utf-8", "surrogateescape").split("\0")):
            try:
                size = (self.work_tree / name).lstat().st_size
            except OSError:
                continue
            if size > MAX_SNAPSHOT_FILE_BYTES:
                large.append(name)
        return large

    def _overlay(self, overlays: Mapping[str, bytes]) -> None:
        lines: list[str] = []
        for path, data in sorted(overlays.items()):
            blob = self._git("hash-object", "-w", "--stdin", data=data).decode().strip()
            lines.append(f"{REGULAR_MODE} {blob}\t{path}\n")
        if lines:
            self._git("update-index", "--add", "--index-info", data="".join(lines).encode())

    def take(self, overlays: Mapping[str, bytes] | None = None) -> str:
        """Snapshot the workspace now; the tree id. `SnapshotError` when git fails."""
        self._ensure()
        with _Locked(self.git_dir / LOCK_NAME):
            large = self._too_large()
            self._write_excludes(large)
            self._git("add", "--all", "--ignore-errors", "--", ".")
            if large:
                self._git("rm", "--cached", "--quiet", "--ignore-unmatch", "--", *large)
            self._overlay(overlays or {})
            return self._git("write-tree").decode().strip()

    def blob(self, tree: str, path: str) -> bytes | None:
        """The bytes of `path` in snapshot tree `tree` (None: not in it)."""
        try:
            return self._git("cat-file", "blob", f"{tree}:{path}")
        except SnapshotError:
            return None

    def blob_id(self, data: bytes) -> str:
        """The id git gives a file of these bytes (what a patch's `index` line names)."""
        return self._git("hash-object", "--stdin", data=data).decode().strip()

    def diff(self, before: str, after: str) -> str:
        """The unified diff from tree `before` to tree `after` ('' when equal)."""
        if before == after:
            return ""
        out = self._git(
            "diff", "--no-color", "--no-ext-diff", "--no-renames", "--no-textconv", before, after
        )
        return out.decode("utf-8", "replace")


def _fallback_dir(preferred: Path) -> Path:
    """The store in the user's state folder used instead of `preferred` (one per path)."""
    key = hashlib.sha256(os.fsencode(os.path.realpath(preferred))).hexdigest()[:32]
    return state_dir() / FALLBACK_DIR / key


class _Locked:
    """An exclusive `flock` on a file for the duration of a `with` block."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.fd = -1

    def __enter__(self) -> _Locked:
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc: object) -> None:
        fcntl.flock(self.fd, fcntl.LOCK_UN)
        os.close(self.fd)
