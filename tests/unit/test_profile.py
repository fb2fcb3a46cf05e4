"""scan_profile: languages, package managers, entry points, test suites and paths of real fixtures."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cairn.files.ignore import IgnoreRules
from cairn.files.text import content_hash
from cairn.models.profile import ProjectProfile
from cairn.profile.detect import plain_suite, python_command
from cairn.profile.store import scan_profile

FIXTURES = Path(__file__).resolve().parents[1] / "workspaces"


def copy_fixture(name: str, tmp_path: Path) -> Path:
    """A copy outside any git repository, so results do not depend on the checkout."""
    target = tmp_path / name
    shutil.copytree(FIXTURES / name, target, symlinks=True)
    return target


def scan(root: Path) -> ProjectProfile:
    return scan_profile(root, IgnoreRules.for_folder(root))


def write(root: Path, relative: str, text: str = "x\n") -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_python_project(tmp_path: Path) -> None:
    root = copy_fixture("py_project", tmp_path)
    profile = scan(root)
    python_bytes = sum(path.stat().st_size for path in root.rglob("*.py"))
    assert profile.languages == ["python"]
    assert profile.language_bytes == {"python": python_bytes}
    assert profile.package_managers == ["uv"]
    assert profile.test_suites == {"pytest": "uv run pytest"}
    assert profile.entry_points == ["pyapp = pyapp.cli:main", "src/pyapp/__main__.py"]
    assert profile.important_paths == [
        "README.md",
        "AGENTS.md",
        "pyproject.toml",
        "src/",
        "src/pyapp/",
        "tests/",
        ".github/workflows/",
    ]
    assert [(r.path, r.hash) for r in profile.rules_files] == [
        ("AGENTS.md", content_hash((root / "AGENTS.md").read_text()))
    ]
    assert profile.git_head is None


def test_node_project_ignores_node_modules(tmp_path: Path) -> None:
    root = copy_fixture("node_project", tmp_path)
    write(root, "node_modules/big/index.js", "x = 1;\n" * 1000)
    profile = scan(root)
    js_bytes = sum(
        path.stat().st_size
        for folder in ("src", "bin", "test")
        for path in (root / folder).rglob("*.js")
    )
    assert profile.languages == ["javascript"]
    assert profile.language_bytes == {"javascript": js_bytes}
    assert profile.package_managers == ["npm"]
    assert profile.test_suites == {"npm": "npm test"}
    assert profile.entry_points == ["nodeapp = bin/cli.js", "src/index.js"]
    assert profile.important_paths == ["README.md", "package.json", "src/", "test/"]
    assert profile.rules_files == []


def test_go_project(tmp_path: Path) -> None:
    root = copy_fixture("go_project", tmp_path)
    profile = scan(root)
    assert profile.languages[0] == "go"
    assert profile.package_managers == ["go"]
    assert profile.test_suites == {"go": "go test ./...", "make": "make test"}
    assert profile.entry_points == ["main.go", "cmd/greeter/main.go"]
    assert profile.important_paths == ["README.md", "go.mod", "Makefile", "cmd/"]


def test_languages_are_sorted_by_bytes(tmp_path: Path) -> None:
    write(tmp_path, "a.py", "x" * 10)
    write(tmp_path, "b.ts", "y" * 300)
    write(tmp_path, "c.go", "z" * 200)
    write(tmp_path, "data.json", "{}" * 1000)
    profile = scan(tmp_path)
    assert profile.languages == ["typescript", "go", "python"]
    assert profile.language_bytes == {"typescript": 300, "go": 200, "python": 10}


def test_sub_projects_lock_files_and_other_ecosystems(tmp_path: Path) -> None:
    write(
        tmp_path,
        "pyproject.toml",
        '[tool.poetry]\nname = "x"\n[tool.poetry.scripts]\nx = "x:main"\n',
    )
    write(tmp_path, "frontend/package.json", json.dumps({"scripts": {"test": "vitest"}}))
    write(tmp_path, "frontend/pnpm-lock.yaml", "lockfileVersion: '9.0'\n")
    write(tmp_path, "engine/Cargo.toml", '[package]\nname = "engine"\n')
    write(tmp_path, "engine/src/main.rs", "fn main() {}\n")
    write(tmp_path, "svc/pom.xml", "<project/>\n")
    write(tmp_path, "app/build.gradle.kts", "plugins {}\n")
    write(tmp_path, "app/gradlew", "#!/bin/sh\n")
    write(tmp_path, "tests/fixtures/demo/package.json", json.dumps({"scripts": {"test": "jest"}}))
    profile = scan(tmp_path)
    assert profile.package_managers == ["poetry", "gradle", "cargo", "pnpm", "maven"]
    assert profile.test_suites == {
        "gradle (app)": "cd app && ./gradlew test",
        "cargo (engine)": "cd engine && cargo test",
        "pnpm (frontend)": "cd frontend && pnpm test",
        "maven (svc)": "cd svc && mvn test",
    }
    assert profile.entry_points == ["x = x:main", "engine/src/main.rs"]
    assert "frontend/package.json" in profile.important_paths


def test_placeholder_and_malformed_manifests_yield_nothing_false(tmp_path: Path) -> None:
    write(
        tmp_path,
        "package.json",
        json.dumps({"scripts": {"test": 'echo "Error: no test specified" && exit 1'}}),
    )
    write(tmp_path, "pyproject.toml", "this is [not toml\n")
    profile = scan(tmp_path)
    assert profile.package_managers == ["pip", "npm"]
    assert profile.test_suites == {}
    assert profile.entry_points == []


@pytest.mark.parametrize(
    ("config", "command"),
    [
        ("pytest.ini", "pytest"),
        ("conftest.py", "pytest"),
        ("tests/test_x.py", "pytest"),
    ],
)
def test_pytest_is_found_from_config_or_test_folder(
    tmp_path: Path, config: str, command: str
) -> None:
    write(tmp_path, "requirements.txt", "requests\n")
    write(tmp_path, config)
    assert scan(tmp_path).test_suites == {"pytest": command}


@pytest.mark.parametrize("layout", ["tests/test_intervals.py", "test_intervals.py"])
def test_a_plain_project_with_test_files_gets_a_suite(tmp_path: Path, layout: str) -> None:
    write(tmp_path, "intervals.py", "def merge(xs):\n    return xs\n")
    write(tmp_path, layout, "import unittest\n")
    # pytest is importable here (it runs this test), so it is the runner.
    assert scan(tmp_path).test_suites == {"pytest": f"{python_command()} -m pytest"}


def test_a_plain_project_without_test_files_gets_none(tmp_path: Path) -> None:
    write(tmp_path, "intervals.py")
    write(tmp_path, "tests/helpers.py")
    assert scan(tmp_path).test_suites == {}


@pytest.mark.parametrize(
    ("folder", "package", "command"),
    [
        ("", False, "python3 -m unittest"),
        ("tests", False, "python3 -m unittest discover -s tests"),
        ("tests", True, "python3 -m unittest discover -s tests -t ."),
    ],
)
def test_without_pytest_a_plain_project_runs_unittest(
    folder: str, package: bool, command: str
) -> None:
    assert plain_suite("python3", folder, package, has_pytest=False) == ("unittest", command)
    assert plain_suite("python3", folder, package, has_pytest=True) == (
        "pytest",
        "python3 -m pytest",
    )


def test_a_built_node_entry_names_its_source_or_says_it_is_build_output(tmp_path: Path) -> None:
    root = tmp_path / "pkg"
    write(
        root,
        "package.json",
        json.dumps(
            {
                "name": "kit",
                "main": "./distribution/index.js",
                "bin": {"kit": "./distribution/cli.js", "gone": "./build/gone.js"},
            }
        ),
    )
    write(root, "source/index.ts", "export const a = 1;\n")
    write(root, "source/cli.ts", "console.log(1);\n")
    profile = scan(root)
    assert profile.entry_points == [
        "kit = source/cli.ts (built to distribution/cli.js)",
        "gone = build/gone.js (build output, not in the project)",
        "source/index.ts (built to distribution/index.js)",
    ]


def test_a_node_entry_in_the_project_is_shown_as_it_is(tmp_path: Path) -> None:
    root = tmp_path / "pkg"
    write(root, "package.json", json.dumps({"name": "kit", "main": "lib/index.js"}))
    write(root, "lib/index.js", "module.exports = 1;\n")
    write(root, "src/index.ts", "export = 1;\n")
    assert scan(root).entry_points == ["lib/index.js"]
