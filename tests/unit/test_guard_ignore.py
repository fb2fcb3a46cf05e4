"""IgnoreRules: .gitignore semantics with and without git, and the always-ignored folders."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from cairn.files.ignore import IgnoreRules

FIXTURES = Path(__file__).resolve().parents[1] / "workspaces"


def write(root: Path, relative: str, text: str = "x\n") -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        check=True,
        capture_output=True,
    )


def names(rules: IgnoreRules) -> list[str]:
    return [path.relative_to(rules.root).as_posix() for path in rules.files()]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    write(root, ".gitignore", "build/\n*.log\n/top.txt\n")
    write(root, "main.py")
    write(root, "top.txt")
    write(root, "docs/top.txt")
    write(root, "build/out.js")
    write(root, "app.log")
    write(root, "pkg/.gitignore", "*.txt\n!keep.txt\n")
    write(root, "pkg/notes.txt")
    write(root, "pkg/keep.txt")
    write(root, "pkg/mod.py")
    write(root, "notes.txt")
    write(root, "build/.gitignore", "!out.js\n")
    for folder in ("node_modules/lib", ".venv/bin", "__pycache__", ".cairn", "src/__pycache__"):
        write(root, f"{folder}/junk.txt")
    return root


EXPECTED = [
    ".gitignore",
    "docs/top.txt",
    "main.py",
    "notes.txt",
    "pkg/.gitignore",
    "pkg/keep.txt",
    "pkg/mod.py",
]


def test_without_git_nested_gitignores_apply_relative_to_their_folder(tree: Path) -> None:
    rules = IgnoreRules(tree, use_git=False)
    assert not rules.in_git
    assert names(rules) == EXPECTED
    assert rules.is_ignored(tree / "pkg/notes.txt")
    assert not rules.is_ignored(tree / "notes.txt")
    assert not rules.is_ignored(Path("pkg/keep.txt"))
    assert rules.is_ignored(tree / "top.txt")
    assert not rules.is_ignored(tree / "docs/top.txt")
    assert rules.is_ignored(tree / "app.log")
    assert rules.is_ignored(tree / "build")
    # A negation cannot re-include a file inside an ignored folder (as in git).
    assert rules.is_ignored(tree / "build/out.js")
    assert rules.is_ignored(tree / "node_modules/lib/junk.txt")
    assert rules.is_ignored(tree / "src/__pycache__/junk.txt")
    assert not rules.is_ignored(tree.parent / "elsewhere.txt")


def test_files_are_sorted_absolute_and_cached_until_refresh(tree: Path) -> None:
    rules = IgnoreRules.for_folder(tree)
    first = rules.files()
    assert first == sorted(first)
    assert all(path.is_absolute() for path in first)
    write(tree, "zz_new.py")
    assert rules.files() == first
    rules.refresh()
    assert rules.files() == [*first, tree / "zz_new.py"]


def test_git_mode_lists_what_git_lists(tree: Path) -> None:
    git(tree, "init", "-q")
    rules = IgnoreRules.for_folder(tree)
    assert rules.in_git
    assert names(rules) == EXPECTED
    # git never applies ignore rules to tracked files: force-add an ignored one.
    git(tree, "add", "-f", "app.log")
    rules.refresh()
    assert "app.log" in names(rules)
    assert not rules.is_ignored(tree / "app.log")
    assert rules.is_ignored(tree / "other.log")
    assert rules.is_ignored(tree / ".git/config")


def test_git_subfolder_obeys_gitignores_above_it(tmp_path: Path) -> None:
    write(tmp_path, ".gitignore", "*.secret\nproj/generated/\n")
    root = tmp_path / "proj"
    write(root, "a.py")
    write(root, "b.secret")
    write(root, "generated/c.py")
    git(tmp_path, "init", "-q")
    rules = IgnoreRules.for_folder(root)
    assert rules.in_git
    assert names(rules) == ["a.py"]
    assert rules.is_ignored(root / "new.secret")
    assert rules.is_ignored(root / "generated/d.py")


def test_symlinks_out_of_the_folder_are_not_listed(tmp_path: Path) -> None:
    for name in ("hostile", "outside"):
        shutil.copytree(FIXTURES / name, tmp_path / name, symlinks=True)
    rules = IgnoreRules.for_folder(tmp_path / "hostile")
    listed = names(rules)
    assert "escape.txt" not in listed
    assert "etc_hostname" not in listed
    assert "scratch.tmp" not in listed
    assert not any(name.startswith("ignored/") for name in listed)
    assert {"app.py", "big_module.py", "README.md"} <= set(listed)


def test_git_info_exclude_applies(tmp_path: Path) -> None:
    write(tmp_path, "a.py")
    write(tmp_path, "local.notes")
    git(tmp_path, "init", "-q")
    write(tmp_path, ".git/info/exclude", "*.notes\n")
    rules = IgnoreRules.for_folder(tmp_path)
    assert names(rules) == ["a.py"]
    assert rules.is_ignored(tmp_path / "other.notes")
    assert not rules.is_ignored(tmp_path / "b.py")


@pytest.mark.parametrize("use_git", [False, True])
def test_links_inside_are_kept_linked_folders_not_followed(tmp_path: Path, use_git: bool) -> None:
    write(tmp_path, "pkg/a.py")
    (tmp_path / "alias.py").symlink_to("pkg/a.py")
    (tmp_path / "pkg_link").symlink_to("pkg", target_is_directory=True)
    (tmp_path / "dangling.py").symlink_to("missing.py")
    if use_git:
        git(tmp_path, "init", "-q")
    rules = IgnoreRules(tmp_path, use_git=use_git)
    assert rules.in_git == use_git
    assert names(rules) == ["alias.py", "pkg/a.py"]
