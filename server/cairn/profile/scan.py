"""Scanning a workspace folder into a `ProjectProfile` (pure reading, no writing).

`scan_profile(folder, ignore, secrets)` looks only at non-ignored regular
files (`IgnoreRules.files()`: symlink loops, FIFOs and devices are never
listed) that are not secret (`secrets`, the built-in rules by default), and
reads each manifest bounded by `MANIFEST_MAX_BYTES`:

- languages by bytes (`profile_languages`), largest first;
- package managers, entry points and test suites (with the command that runs
  them) from the manifests of the root and of sub-projects up to
  `MANIFEST_MAX_DEPTH` folders deep (not inside test, example or vendored
  folders) — see `profile_detect`;
- important paths: README, rules files, manifests, source roots, top-level
  Python packages, test folders, CI configuration;
- rules files (`AGENTS.md`) with their content hashes, and git HEAD — the two
  facts whose change triggers a refresh;
- the test commands the rules files tell the agent to run (in code spans or
  fenced blocks), as test suites named after the file, run in its folder —
  so the default allowlist lets the agent run what `AGENTS.md` asks for.
"""

from __future__ import annotations

import os
from pathlib import Path

from cairn.files.commands import markdown_test_commands
from cairn.files.ignore import IgnoreRules, run_git
from cairn.files.languages import language_of
from cairn.files.reading import read_text_bounded, try_resolve
from cairn.files.rules import hash_rules_files, rules_files_in_folder
from cairn.files.secrets import DEFAULT_SECRET_PATHS, SecretPaths
from cairn.models.profile import ProjectProfile
from cairn.profile.detect import Findings, FolderView, detect_all

# Sub-projects deeper than this many folders are not looked for.
MANIFEST_MAX_DEPTH = 2
# Folder names whose manifests describe fixtures, examples or vendored code, not the project.
NON_PROJECT_DIRS: frozenset[str] = frozenset(
    {
        "test",
        "tests",
        "testdata",
        "fixtures",
        "examples",
        "example",
        "vendor",
        "third_party",
        "docs",
    }
)
# Folders holding a project's sources, when present next to a manifest.
SOURCE_ROOT_NAMES: tuple[str, ...] = ("src", "lib", "app", "cmd", "pkg", "internal")
# Folders holding tests, when present (at most `MANIFEST_MAX_DEPTH` deep).
TEST_DIR_NAMES: frozenset[str] = frozenset({"tests", "test", "spec", "__tests__"})
# Continuous integration configuration: folders (trailing slash) and files at the root.
CI_PATHS: tuple[str, ...] = (
    ".github/workflows/",
    ".gitlab-ci.yml",
    ".circleci/",
    "Jenkinsfile",
    "azure-pipelines.yml",
    ".travis.yml",
    "bitbucket-pipelines.yml",
)
README_STEM = "readme"
SYMBOLIC_REF_PREFIX = "ref: "
PYTHON_PACKAGE_MARKER = "__init__.py"
# Bounds of the git files read to notice a HEAD change (a ref holds one line).
GIT_REF_MAX_BYTES = 64 * 1024
PACKED_REFS_MAX_BYTES = 64 * 1024 * 1024


def git_head(folder: Path) -> str | None:
    """The commit checked out in `folder`'s git work tree, or None (no git, no commit)."""
    out = run_git(folder, "rev-parse", "--verify", "--quiet", "HEAD")
    if out is None:
        return None
    head = out.decode("ascii", errors="replace").strip()
    return head or None


def _git_text(path: Path, max_bytes: int = GIT_REF_MAX_BYTES) -> str:
    """A small file of the git directory (a regular file, bounded; `OSError` otherwise)."""
    return read_text_bounded(path, max_bytes)


def read_git_head(git_dir: Path) -> str | None:
    """HEAD's commit read straight from the git directory (no subprocess; None if unknown).

    Cheap enough to run before every use of the profile; only used to notice
    that HEAD moved; the profile itself records `git_head()`.
    """
    try:
        head = _git_text(git_dir / "HEAD").strip()
        if not head.startswith(SYMBOLIC_REF_PREFIX):
            return head or None
        ref = head.removeprefix(SYMBOLIC_REF_PREFIX).strip()
        common = git_dir
        if (git_dir / "commondir").is_file():
            common = git_dir / _git_text(git_dir / "commondir").strip()
        for base in (git_dir, common):
            if (base / ref).is_file():
                return _git_text(base / ref).strip() or None
        packed = common / "packed-refs"
        if packed.is_file():
            for line in _git_text(packed, PACKED_REFS_MAX_BYTES).splitlines():
                sha, _, name = line.partition(" ")
                if name == ref:
                    return sha
    except OSError:
        return None
    return None


def language_bytes(view: FolderView) -> dict[str, int]:
    """Bytes per programming language, largest first (ties by name)."""
    totals: dict[str, int] = {}
    for rel in view.files:
        language = language_of(rel)
        if language is None:
            continue
        try:
            size = os.stat(os.path.join(view.folder, rel)).st_size
        except OSError:
            continue
        totals[language] = totals.get(language, 0) + size
    return dict(sorted(totals.items(), key=lambda item: (-item[1], item[0])))


def project_dirs(view: FolderView) -> list[str]:
    """The root ("") and sub-folders that may hold a sub-project's manifest, shallow first."""
    dirs = [
        rel
        for rel in view.dirs
        if rel.count("/") < MANIFEST_MAX_DEPTH
        and not any(part in NON_PROJECT_DIRS for part in rel.split("/"))
    ]
    return ["", *sorted(dirs, key=lambda rel: (rel.count("/"), rel))]


def _python_package_roots(view: FolderView) -> list[str]:
    """Top-level Python packages (a folder with `__init__.py` whose parent has none), shallow."""
    roots: list[str] = []
    for rel in sorted(view.dirs, key=lambda item: (item.count("/"), item)):
        parent = rel.rpartition("/")[0]
        if (
            rel.count("/") <= MANIFEST_MAX_DEPTH
            and f"{rel}/{PYTHON_PACKAGE_MARKER}" in view.file_set
            and f"{parent}/{PYTHON_PACKAGE_MARKER}".lstrip("/") not in view.file_set
            and not NON_PROJECT_DIRS.intersection(rel.split("/"))
        ):
            roots.append(rel)
    return roots


def _important_paths(view: FolderView, findings: Findings, rules: list[str]) -> list[str]:
    paths: list[str] = [
        name for name in sorted(view.files_in("")) if Path(name).stem.lower() == README_STEM
    ]
    paths.extend(rules)
    paths.extend(findings.manifests)
    for base in ["", *findings.project_dirs]:
        prefix = f"{base}/" if base else ""
        paths.extend(
            f"{prefix}{name}/" for name in SOURCE_ROOT_NAMES if f"{prefix}{name}" in view.dirs
        )
    paths.extend(f"{rel}/" for rel in _python_package_roots(view))
    for rel in sorted(view.dirs):
        depth = rel.count("/")
        if depth < MANIFEST_MAX_DEPTH and rel.rpartition("/")[2] in TEST_DIR_NAMES:
            paths.append(f"{rel}/")
    for ci in CI_PATHS:
        present = ci.rstrip("/") in view.dirs if ci.endswith("/") else ci in view.file_set
        if present:
            paths.append(ci)
    return list(dict.fromkeys(paths))


def rules_test_suites(view: FolderView, rules: list[str], known: dict[str, str]) -> dict[str, str]:
    """`{"<rules file>": command}` for each test command a rules file names (not already
    a detected suite's command); "<rules file> (2)" and so on for its further ones."""
    found: dict[str, str] = {}
    taken = set(known.values())
    for rel in rules:
        folder = rel.rpartition("/")[0]
        for command in markdown_test_commands(view.read(rel) or ""):
            full = f"cd {folder} && {command}" if folder else command
            if full in taken:
                continue
            taken.add(full)
            count = sum(1 for key in found if key == rel or key.startswith(f"{rel} ("))
            found[rel if count == 0 else f"{rel} ({count + 1})"] = full
    return found


def scan_profile(
    folder: Path, ignore: IgnoreRules, secrets: SecretPaths = DEFAULT_SECRET_PATHS
) -> ProjectProfile:
    """A fresh profile of `folder` (see the module docstring)."""
    folder = try_resolve(folder) or folder
    root = ignore.root
    files = [path for path in ignore.files() if not secrets.is_secret(path.relative_to(root))]
    view = FolderView.from_files(folder, files)
    by_bytes = language_bytes(view)
    findings = detect_all(view, project_dirs(view))
    rules_paths = rules_files_in_folder(folder, ignore)
    rules = hash_rules_files(folder, rules_paths)
    return ProjectProfile(
        languages=list(by_bytes),
        language_bytes=by_bytes,
        package_managers=findings.package_managers,
        test_suites={
            **findings.test_suites,
            **rules_test_suites(view, [r.path for r in rules], findings.test_suites),
        },
        entry_points=findings.entry_points,
        important_paths=_important_paths(view, findings, [record.path for record in rules]),
        rules_files=rules,
        git_head=git_head(folder),
    )
