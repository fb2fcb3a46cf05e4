"""Which files of a workspace folder the agent may see: `.gitignore` rules and fixed exclusions.

`IgnoreRules.for_folder(root)` answers two questions for one workspace folder:
`files()` (every non-ignored file, sorted absolute paths, cached until
`refresh()`) and `is_ignored(path)`.

Inside a git work tree the file list comes from
`git ls-files -co --exclude-standard -z` (tracked plus untracked-not-ignored
files, exactly what git itself considers part of the project); outside git, or
when git fails, the folder is walked and filtered with `pathspec.GitIgnoreSpec`
built from every `.gitignore` found (a nested `.gitignore` applies relative to
its own folder, deeper files override shallower ones, and a file inside an
ignored directory cannot be re-included, as in git). `is_ignored` uses the same
pathspec rules in both modes (in git mode also the repository's
`info/exclude` and the `.gitignore` files above `root`); a file git lists is
never ignored (git does not apply ignore rules to tracked files).

Whatever the rules say, `ALWAYS_IGNORED_DIRS` (`.git`, `.cairn`,
`node_modules`, `.venv`, `__pycache__`) are never shown.

Only regular files are listed: a symlink loop, a dangling link, a link out
of the folder, a FIFO, socket or device, and a folder that cannot be read
are left out without failing the listing, each recorded in `skipped`
(folder-relative path → reason) for whoever wants to say why.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

import pathspec

from cairn.files import git
from cairn.files.reading import kind_name, try_resolve

# Directory names never shown to the agent, wherever they appear in a path.
ALWAYS_IGNORED_DIRS: frozenset[str] = frozenset(
    {".git", ".cairn", "node_modules", ".venv", "__pycache__"}
)
GITIGNORE_NAME = ".gitignore"
# A git call that takes longer than this falls back to walking the folder.
GIT_TIMEOUT_SECONDS = 15.0


def has_always_ignored_part(relative: str) -> bool:
    """True when any component of a POSIX relative path is an always-ignored directory name."""
    return any(part in ALWAYS_IGNORED_DIRS for part in relative.split("/"))


@dataclass(frozen=True, slots=True)
class _AboveSpec:
    """Rules from above root (`info/exclude`, a parent's `.gitignore`).

    They see a root-relative path with `prefix` (root's path below their own
    folder) prepended; an empty prefix means they sit at root's level.
    """

    prefix: str
    spec: pathspec.GitIgnoreSpec

    def decide(self, relative: str) -> bool | None:
        """True: ignored, False: re-included by a negation, None: these rules are silent."""
        path = f"{self.prefix}/{relative}" if self.prefix else relative
        return self.spec.check_file(path).include


def run_git(root: Path, *args: str) -> bytes | None:
    """stdout of `git -C root args` (run safely: `cairn.files.git`), or None when git is
    missing, fails or times out."""
    return git.run_git(root, *args, timeout=GIT_TIMEOUT_SECONDS)


def _git_dirs(root: Path) -> tuple[Path, Path] | None:
    """(work tree top level, git directory) of the repository holding `root`, or None."""
    out = run_git(root, "rev-parse", "--show-toplevel", "--absolute-git-dir")
    if out is None:
        return None
    lines = out.decode("utf-8", errors="replace").splitlines()
    if len(lines) != 2 or not all(line.strip() for line in lines):
        return None
    top = try_resolve(Path(lines[0]))
    return (top, Path(lines[1])) if top is not None else None


def _read_lines(gitignore: Path) -> list[str] | None:
    try:
        return gitignore.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None


@dataclass
class _RuleSet:
    """All ignore rules of one folder: rules from above root, then `.gitignore` files by folder.

    `by_base` maps a root-relative folder ("" for root) to its `.gitignore`, so
    a question consults only the files on the path to the entry.
    """

    above: list[_AboveSpec] = field(default_factory=list)
    by_base: dict[str, pathspec.GitIgnoreSpec] = field(default_factory=dict)

    def decide(self, entry: str) -> bool:
        """The last verdict of the rules that speak about `entry` (deeper files win)."""
        decision = False
        for scoped in self.above:
            verdict = scoped.decide(entry)
            if verdict is not None:
                decision = verdict
        parts = entry.rstrip("/").split("/")
        for depth in range(len(parts)):
            base = "/".join(parts[:depth])
            spec = self.by_base.get(base)
            if spec is None:
                continue
            verdict = spec.check_file(entry[len(base) + 1 :] if base else entry).include
            if verdict is not None:
                decision = verdict
        return decision

    def ignored(self, relative: str, *, is_dir: bool) -> bool:
        """Git's answer for a root-relative path: an ignored parent folder hides everything in it."""
        if has_always_ignored_part(relative):
            return True
        parts = relative.split("/")
        for depth in range(1, len(parts)):
            if self.decide("/".join(parts[:depth]) + "/"):
                return True
        return self.decide(relative + "/" if is_dir else relative)

    def child_ignored(self, relative: str, *, is_dir: bool) -> bool:
        """`ignored` for an entry whose parent folders are known to be kept (during a walk)."""
        if relative.rpartition("/")[2] in ALWAYS_IGNORED_DIRS:
            return True
        return self.decide(relative + "/" if is_dir else relative)


class IgnoreRules:
    """Ignore rules and the non-ignored file list of one workspace folder."""

    def __init__(self, root: Path, *, use_git: bool = True) -> None:
        self.root = root.resolve()
        self._use_git = use_git
        self._git_top: Path | None = None
        self._git_dir: Path | None = None
        self._git_files: frozenset[str] | None = None
        self._walked: list[str] | None = None
        self._rules = _RuleSet()
        self._files: list[Path] | None = None
        self._names: list[str] | None = None
        # Entries left out of the listing because they cannot be listed safely: rel → reason.
        self.skipped: dict[str, str] = {}
        # Counts refreshes, so a cache of the listing can tell it is out of date.
        self.generation = 0
        self.refresh()

    @classmethod
    def for_folder(cls, root: Path) -> IgnoreRules:
        """Rules for `root`, using git when `root` is inside a git work tree."""
        return cls(root)

    @property
    def git_dir(self) -> Path | None:
        """The git directory of the repository holding root (None outside git)."""
        return self._git_dir

    @property
    def in_git(self) -> bool:
        """True when the file list comes from git."""
        return self._git_files is not None

    # -- loading ---------------------------------------------------------------
    def refresh(self) -> None:
        """Forget the cached file list and reload every `.gitignore`.

        The new state is built aside and swapped in at the end, so a reader on
        another thread sees either the old rules or the new ones.
        """
        dirs = _git_dirs(self.root) if self._use_git else None
        top, git_dir = dirs if dirs is not None else (None, None)
        git_files = self._list_git_files() if top is not None else None
        rules = _RuleSet(above=self._ancestor_specs(top, git_dir))
        walked: list[str] | None = None
        skipped: dict[str, str] = {}
        if git_files is not None:
            self._load_git_gitignores(git_files, rules)
        else:
            walked = self._walk(rules, skipped)
        self._git_top, self._git_dir = top, git_dir
        self._git_files, self._walked, self._rules = git_files, walked, rules
        self._files = self._names = None
        self.skipped = skipped
        self.generation += 1

    def _list_git_files(self) -> frozenset[str] | None:
        out = run_git(self.root, "ls-files", "-co", "--exclude-standard", "-z")
        if out is None:
            return None
        names = (raw.decode("utf-8", errors="surrogateescape") for raw in out.split(b"\0"))
        return frozenset(name for name in names if name and not has_always_ignored_part(name))

    def _ancestor_specs(self, top: Path | None, git_dir: Path | None) -> list[_AboveSpec]:
        """Rules from above `root` that apply too, lowest precedence first.

        The repository's `info/exclude`, then the `.gitignore` files between the
        git top level and `root` (exclusive).
        """
        if top is None or not self.root.is_relative_to(top):
            return []
        below = self.root.relative_to(top).parts
        specs: list[_AboveSpec] = []
        sources = [(git_dir / "info" / "exclude", 0)] if git_dir is not None else []
        sources += [
            (top.joinpath(*below[:depth]) / GITIGNORE_NAME, depth) for depth in range(len(below))
        ]
        for path, depth in sources:
            lines = _read_lines(path)
            if lines is None:
                continue
            spec = pathspec.GitIgnoreSpec.from_lines(lines)
            prefix = "/".join(below[depth:])
            specs.append(_AboveSpec(prefix, spec))
        return specs

    def _load_git_gitignores(self, names: frozenset[str], rules: _RuleSet) -> None:
        """Load the `.gitignore` files git lists, shallow ones first."""
        bases = sorted(
            (rel.rpartition("/")[0] for rel in names if rel.rpartition("/")[2] == GITIGNORE_NAME),
            key=lambda base: (base.count("/") if base else -1, base),
        )
        for base in bases:
            self._add_spec(base, rules)

    def _walk(self, rules: _RuleSet, skipped: dict[str, str]) -> list[str]:
        """Walk root once: load each folder's `.gitignore` before judging its entries.

        Returns the kept regular files (and symlinks to files inside root); ignored
        folders are not entered, symlinked folders are not followed. What cannot be
        listed safely goes to `skipped` with the reason.
        """
        names: list[str] = []
        stack: list[str] = [""]
        while stack:
            base = stack.pop()
            try:
                with os.scandir(self.root / base if base else self.root) as scan:
                    entries = list(scan)
            except OSError as error:
                skipped[base or "."] = error.strerror or type(error).__name__
                continue
            if any(entry.name == GITIGNORE_NAME for entry in entries):
                self._add_spec(base, rules)
            for entry in entries:
                rel = f"{base}/{entry.name}" if base else entry.name
                try:
                    is_dir = entry.is_dir(follow_symlinks=False)
                    if rules.child_ignored(rel, is_dir=is_dir):
                        continue
                    if is_dir:
                        stack.append(rel)
                        continue
                    problem = self._unlistable(Path(entry.path), entry.stat(follow_symlinks=False))
                except OSError as error:
                    problem = error.strerror or type(error).__name__
                if problem is None:
                    names.append(rel)
                else:
                    skipped[rel] = problem
        return names

    def _unlistable(self, path: Path, info: os.stat_result) -> str | None:
        """Why the entry (its `lstat`) is not listed, or None for a regular file to list."""
        if stat.S_ISLNK(info.st_mode):
            return self._link_problem(path)
        if not stat.S_ISREG(info.st_mode):
            return f"{kind_name(info.st_mode)}, not a regular file"
        return None

    def _link_problem(self, link: Path) -> str | None:
        """None when a symlink points at a regular file inside root, else why not."""
        target = try_resolve(link)
        if target is None:
            return "symlink loop"
        if not target.is_relative_to(self.root):
            return "symlink out of the folder"
        try:
            mode = os.stat(target).st_mode
        except OSError:
            return "dangling symlink"
        if not stat.S_ISREG(mode):
            return f"symlink to {kind_name(mode)}"
        return None

    def _add_spec(self, base: str, rules: _RuleSet) -> None:
        folder = self.root / base if base else self.root
        lines = _read_lines(folder / GITIGNORE_NAME)
        if lines is not None:
            rules.by_base[base] = pathspec.GitIgnoreSpec.from_lines(lines)

    # -- questions -------------------------------------------------------------
    def relative(self, path: Path) -> str | None:
        """POSIX path relative to root, or None when `path` is not under root."""
        absolute = path if path.is_absolute() else self.root / path
        absolute = Path(os.path.normpath(absolute))
        if absolute == self.root:
            return ""
        if not absolute.is_relative_to(self.root):
            return None
        return absolute.relative_to(self.root).as_posix()

    def is_ignored(self, path: Path) -> bool:
        """True when `path` (absolute, or relative to root) is ignored.

        Paths outside the folder are not this folder's business: False.
        """
        relative = self.relative(path)
        if relative is None or relative == "":
            return False
        if has_always_ignored_part(relative):
            return True
        if self._git_files is not None and relative in self._git_files:
            return False
        absolute = self.root / relative
        return self._rules.ignored(relative, is_dir=absolute.is_dir())

    def files(self) -> list[Path]:
        """Every non-ignored regular file under root (absolute paths, sorted, cached).

        Symlinks are kept only when they point at a file inside the folder.
        """
        if self._files is None:
            root = self.root
            self._files = [root / name for name in self.relative_files()]
        return list(self._files)

    def relative_files(self) -> list[str]:
        """`files()` as root-relative POSIX paths (sorted, cached; no `Path` made)."""
        if self._names is None:
            if self._git_files is not None:
                self._names = self._existing(self._git_files)
            else:
                self._names = sorted(self._walked or ())
        return list(self._names)

    def _existing(self, names: frozenset[str]) -> list[str]:
        """The listed names that are regular files now (git lists deleted tracked files too)."""
        kept: list[str] = []
        skipped: dict[str, str] = {}
        prefix = os.path.join(self.root, "")
        for name in sorted(names):
            full = prefix + name
            try:
                info = os.lstat(full)
                problem = None if stat.S_ISREG(info.st_mode) else self._unlistable(Path(full), info)
            except FileNotFoundError:
                continue  # deleted since git listed it
            except OSError as error:
                problem = error.strerror or type(error).__name__
            if problem is None:
                kept.append(name)
            else:
                skipped[name] = problem
        self.skipped = skipped
        return kept
