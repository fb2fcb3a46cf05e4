"""Locate data shipped with the package: tree-sitter queries and the demo workspace.

In a wheel they live inside the package (`cairn/grammars`, `cairn/examples`);
in an editable install or a source checkout they are at the repository root.
"""

from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent
_REPO_ROOT = _PACKAGE_DIR.parent.parent


def _first_existing(name: str) -> Path:
    for candidate in (_PACKAGE_DIR / name, _REPO_ROOT / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"cairn data folder {name!r} is missing from the installation")


def grammars_dir() -> Path:
    """Folder holding `<language>-tags.scm` query files."""
    return _first_existing("grammars")


def examples_dir() -> Path:
    """Folder holding the bundled example workspaces (used by `cairn demo`)."""
    return _first_existing("examples")
