"""Package managers, entry points and test suites, detected from a project's manifests.

One small detector per ecosystem reads the manifests of one project folder
(`pyproject.toml`, `package.json`, `go.mod`, `Cargo.toml`, `pom.xml`,
`build.gradle`, `Makefile`, ...) and reports what it found; `detect_all`
runs every detector over the root and each sub-project folder. A sub-project's
suites are named `<tool> (<folder>)` and run with `cd <folder> && <command>`.
Malformed manifests are read as empty: detection never fails. A Python
project without any manifest but with test files (`test_*.py` / `*_test.py`
in the folder or in `tests/` / `test/`) still gets a suite: pytest when it is
importable here, else the standard library's unittest (`plain_python_suite`).
"""

from __future__ import annotations

import bisect
import importlib.util
import itertools
import json
import os
import re
import shutil
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cairn.files.reading import read_text_bounded
from cairn.profile.node_entries import node_entry

# Manifests larger than this are not parsed.
MANIFEST_MAX_BYTES = 1024 * 1024
# Folders whose files never count as entry points (fixtures, vendored code).
NON_ENTRY_DIRS: frozenset[str] = frozenset(
    {"test", "tests", "testdata", "fixtures", "examples", "vendor", "third_party"}
)
PYTHON_MANIFESTS: tuple[str, ...] = ("pyproject.toml", "setup.py", "setup.cfg", "Pipfile")
# Lock files that name the Python package manager, checked in this order.
PYTHON_LOCKS: tuple[tuple[str, str], ...] = (
    ("uv.lock", "uv"),
    ("poetry.lock", "poetry"),
    ("pdm.lock", "pdm"),
    ("Pipfile.lock", "pipenv"),
    ("Pipfile", "pipenv"),
)
# Folders a manifest-less Python project keeps its tests in (besides the folder itself).
PLAIN_TEST_DIRS: tuple[str, ...] = ("tests", "test")
_PLAIN_TEST_FILE = re.compile(r"^(?:test_\w*|\w+_test)\.py$")
# How each Python package manager runs a tool inside the project's environment.
PYTHON_RUNNERS: dict[str, str] = {
    "uv": "uv run ",
    "poetry": "poetry run ",
    "pdm": "pdm run ",
    "pipenv": "pipenv run ",
    "pip": "",
}
# Lock files that name the Node package manager, checked in this order.
NODE_LOCKS: tuple[tuple[str, str], ...] = (
    ("pnpm-lock.yaml", "pnpm"),
    ("yarn.lock", "yarn"),
    ("bun.lockb", "bun"),
    ("bun.lock", "bun"),
    ("package-lock.json", "npm"),
)
NODE_TEST_COMMANDS: dict[str, str] = {
    "npm": "npm test",
    "yarn": "yarn test",
    "pnpm": "pnpm test",
    "bun": "bun run test",
}
# The test script `npm init` writes, which runs no tests.
NPM_PLACEHOLDER_TEST = "no test specified"
_MAKE_TEST_TARGET = re.compile(r"^test\s*:", re.MULTILINE)
_REQUIREMENTS = re.compile(r"^requirements.*\.txt$")


@dataclass(frozen=True)
class FolderView:
    """The non-ignored files of a folder as relative POSIX paths, indexed by folder."""

    folder: Path
    files: list[str]
    file_set: frozenset[str]
    dirs: frozenset[str]
    children: dict[str, list[str]]

    @classmethod
    def from_files(cls, folder: Path, files: Iterable[Path]) -> FolderView:
        # String slicing instead of Path.relative_to: this runs once per file.
        prefix = str(folder) + os.sep
        rels = sorted(
            text[len(prefix) :].replace(os.sep, "/")
            for text in map(str, files)
            if text.startswith(prefix)
        )
        dirs: set[str] = set()
        children: dict[str, list[str]] = {}
        for rel in rels:
            parent, _, name = rel.rpartition("/")
            children.setdefault(parent, []).append(name)
            while parent and parent not in dirs:
                dirs.add(parent)
                parent = parent.rpartition("/")[0]
        return cls(folder, rels, frozenset(rels), frozenset(dirs), children)

    def files_in(self, base: str) -> list[str]:
        """Names of the files directly inside `base` ("" for the root)."""
        return list(self.children.get(base, ()))

    def under(self, base: str) -> list[str]:
        """Files anywhere below `base`, relative to `base` (a slice of the sorted list)."""
        if not base:
            return list(self.files)
        prefix = f"{base}/"
        found: list[str] = []
        for rel in itertools.islice(self.files, bisect.bisect_left(self.files, prefix), None):
            if not rel.startswith(prefix):
                break
            found.append(rel[len(prefix) :])
        return found

    def read(self, rel: str) -> str | None:
        """A manifest's text; None when missing, not a regular file or too large (never blocks)."""
        try:
            return read_text_bounded(self.folder / rel, MANIFEST_MAX_BYTES)
        except OSError:
            return None


@dataclass
class Finding:
    """What one detector found in one project folder (paths relative to that folder)."""

    managers: list[str] = field(default_factory=list)
    suites: dict[str, str] = field(default_factory=dict)
    entries: list[str] = field(default_factory=list)
    manifests: list[str] = field(default_factory=list)


@dataclass
class Findings:
    """Everything the detectors found, merged over the root and sub-projects."""

    package_managers: list[str] = field(default_factory=list)
    test_suites: dict[str, str] = field(default_factory=dict)
    entry_points: list[str] = field(default_factory=list)
    manifests: list[str] = field(default_factory=list)
    project_dirs: list[str] = field(default_factory=list)


def _toml(text: str | None) -> dict[str, Any]:
    if text is None:
        return {}
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return {}


def _json(text: str | None) -> dict[str, Any]:
    if text is None:
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return {}
    return data if isinstance(data, dict) else {}


def _table(data: dict[str, Any], *keys: str) -> dict[str, Any]:
    for key in keys:
        value = data.get(key)
        if not isinstance(value, dict):
            return {}
        data = value
    return data


def _entry_files(view: FolderView, base: str, name: str) -> list[str]:
    """Files called `name` below `base` (not in fixtures or vendored code), shallow first."""
    hits = [
        rel
        for rel in view.under(base)
        if rel.rpartition("/")[2] == name and not NON_ENTRY_DIRS.intersection(rel.split("/")[:-1])
    ]
    return sorted(hits, key=lambda rel: (rel.count("/"), rel))


def detect_python(view: FolderView, base: str) -> Finding | None:
    names = set(view.files_in(base))
    manifests = [name for name in PYTHON_MANIFESTS if name in names]
    manifests += sorted(name for name in names if _REQUIREMENTS.match(name))
    if not manifests:
        return plain_python_suite(view, base)
    prefix = f"{base}/" if base else ""
    pyproject = _toml(view.read(f"{prefix}pyproject.toml")) if "pyproject.toml" in names else {}
    manager = next((tool for lock, tool in PYTHON_LOCKS if lock in names), None)
    if manager is None:
        manager = "poetry" if _table(pyproject, "tool", "poetry") else "pip"
    finding = Finding(managers=[manager], manifests=manifests)
    scripts = {
        **_table(pyproject, "tool", "poetry", "scripts"),
        **_table(pyproject, "project", "scripts"),
        **_table(pyproject, "project", "gui-scripts"),
    }
    finding.entries.extend(f"{name} = {target}" for name, target in scripts.items())
    finding.entries.extend(_entry_files(view, base, "__main__.py"))
    if "manage.py" in names:
        finding.entries.append("manage.py")
    if _uses_pytest(view, base, names, pyproject):
        finding.suites["pytest"] = f"{PYTHON_RUNNERS[manager]}pytest"
    return finding


def python_command() -> str:
    """The interpreter's name on PATH (`python`, else `python3`)."""
    return "python" if shutil.which("python") else "python3"


def plain_test_dir(view: FolderView, base: str) -> str | None:
    """Where a manifest-less project's test files are: "" (the folder), a test folder, or None."""
    if any(_PLAIN_TEST_FILE.match(name) for name in view.files_in(base)):
        return ""
    prefix = f"{base}/" if base else ""
    for folder in PLAIN_TEST_DIRS:
        if any(_PLAIN_TEST_FILE.match(name) for name in view.files_in(prefix + folder)):
            return folder
    return None


def plain_suite(python: str, folder: str, package: bool, has_pytest: bool) -> tuple[str, str]:
    """The (name, command) of a manifest-less project's suite with tests in `folder`
    ("" for the project folder; `package`: it has an `__init__.py`)."""
    if has_pytest:
        return "pytest", f"{python} -m pytest"
    if not folder:
        return "unittest", f"{python} -m unittest"
    top = " -t ." if package else ""
    return "unittest", f"{python} -m unittest discover -s {folder}{top}"


def plain_python_suite(view: FolderView, base: str) -> Finding | None:
    """The suite of a Python project with test files and no manifest (see the docstring)."""
    folder = plain_test_dir(view, base)
    if folder is None:
        return None
    prefix = f"{base}/" if base else ""
    package = bool(folder) and "__init__.py" in view.files_in(prefix + folder)
    has_pytest = importlib.util.find_spec("pytest") is not None
    name, command = plain_suite(python_command(), folder, package, has_pytest)
    return Finding(suites={name: command})


def _uses_pytest(view: FolderView, base: str, names: set[str], pyproject: dict[str, Any]) -> bool:
    prefix = f"{base}/" if base else ""
    if _table(pyproject, "tool", "pytest") or {"pytest.ini", "conftest.py"} & names:
        return True
    if "tox.ini" in names and "[pytest]" in (view.read(f"{prefix}tox.ini") or ""):
        return True
    if "setup.cfg" in names and "[tool:pytest]" in (view.read(f"{prefix}setup.cfg") or ""):
        return True
    return any(
        rel.endswith(".py") and rel.split("/")[0] in {"tests", "test"} for rel in view.under(base)
    )


def detect_node(view: FolderView, base: str) -> Finding | None:
    names = set(view.files_in(base))
    if "package.json" not in names:
        return None
    prefix = f"{base}/" if base else ""
    package = _json(view.read(f"{prefix}package.json"))
    declared = str(package.get("packageManager", "")).partition("@")[0]
    manager = declared if declared in NODE_TEST_COMMANDS else None
    if manager is None:
        manager = next((tool for lock, tool in NODE_LOCKS if lock in names), "npm")
    finding = Finding(managers=[manager], manifests=["package.json"])
    bins = package.get("bin")
    if isinstance(bins, str):
        finding.entries.append(
            f"{package.get('name', 'bin')} = {node_entry(view.file_set, base, bins)}"
        )
    elif isinstance(bins, dict):
        finding.entries.extend(
            f"{name} = {node_entry(view.file_set, base, str(target))}"
            for name, target in bins.items()
        )
    main = package.get("main")
    if isinstance(main, str):
        finding.entries.append(node_entry(view.file_set, base, main))
    test = _table(package, "scripts").get("test")
    if isinstance(test, str) and test.strip() and NPM_PLACEHOLDER_TEST not in test:
        finding.suites[manager] = NODE_TEST_COMMANDS[manager]
    return finding


def detect_go(view: FolderView, base: str) -> Finding | None:
    if "go.mod" not in view.files_in(base):
        return None
    finding = Finding(managers=["go"], manifests=["go.mod"])
    finding.entries.extend(_entry_files(view, base, "main.go"))
    if any(rel.endswith("_test.go") for rel in view.under(base)):
        finding.suites["go"] = "go test ./..."
    return finding


def detect_rust(view: FolderView, base: str) -> Finding | None:
    if "Cargo.toml" not in view.files_in(base):
        return None
    finding = Finding(managers=["cargo"], manifests=["Cargo.toml"], suites={"cargo": "cargo test"})
    finding.entries.extend(
        rel
        for rel in view.under(base)
        if rel == "src/main.rs" or (rel.startswith("src/bin/") and rel.endswith(".rs"))
    )
    return finding


def detect_jvm(view: FolderView, base: str) -> Finding | None:
    names = set(view.files_in(base))
    finding = Finding()
    if "pom.xml" in names:
        finding.managers.append("maven")
        finding.manifests.append("pom.xml")
        finding.suites["maven"] = "./mvnw test" if "mvnw" in names else "mvn test"
    gradle = [name for name in ("build.gradle", "build.gradle.kts") if name in names]
    if gradle:
        finding.managers.append("gradle")
        finding.manifests.extend(gradle)
        finding.suites["gradle"] = "./gradlew test" if "gradlew" in names else "gradle test"
    return finding if finding.managers else None


def detect_make(view: FolderView, base: str) -> Finding | None:
    if "Makefile" not in view.files_in(base):
        return None
    prefix = f"{base}/" if base else ""
    if not _MAKE_TEST_TARGET.search(view.read(f"{prefix}Makefile") or ""):
        return None
    return Finding(suites={"make": "make test"}, manifests=["Makefile"])


DETECTORS: tuple[Callable[[FolderView, str], Finding | None], ...] = (
    detect_python,
    detect_node,
    detect_go,
    detect_rust,
    detect_jvm,
    detect_make,
)


def detect_all(view: FolderView, project_dirs: list[str]) -> Findings:
    """Run every detector on every project folder and merge what they found."""
    merged = Findings()
    for base in project_dirs:
        prefix = f"{base}/" if base else ""
        for detector in DETECTORS:
            found = detector(view, base)
            if found is None:
                continue
            if base and base not in merged.project_dirs:
                merged.project_dirs.append(base)
            merged.package_managers.extend(found.managers)
            merged.manifests.extend(prefix + name for name in found.manifests)
            merged.entry_points.extend(
                entry if " = " in entry else prefix + entry for entry in found.entries
            )
            for name, command in found.suites.items():
                key = f"{name} ({base})" if base else name
                merged.test_suites[key] = f"cd {base} && {command}" if base else command
    merged.package_managers = list(dict.fromkeys(merged.package_managers))
    merged.entry_points = list(dict.fromkeys(merged.entry_points))
    merged.manifests = list(dict.fromkeys(merged.manifests))
    return merged
