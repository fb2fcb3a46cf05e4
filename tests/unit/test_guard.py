"""guard_path: every hostile path in the `hostile` fixture is refused with its reason."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cairn.errors import PathRefusedError
from cairn.files.guard import (
    MAX_FILE_BYTES,
    PathRefusal,
    guard_path,
    is_binary,
    is_secret,
    read_text_guarded,
)
from cairn.files.ignore import IgnoreRules
from cairn.files.workspace import Workspace

FIXTURES = Path(__file__).resolve().parents[1] / "workspaces"
# Bigger than MAX_FILE_BYTES: generated per session, never committed.
BIG_LOG_BYTES = 2 * 1024 * 1024


def copy_hostile(target: Path) -> Path:
    """Copy `hostile` and its sibling `outside` (the symlink target) out of any git repo."""
    for name in ("hostile", "outside"):
        shutil.copytree(FIXTURES / name, target / name, symlinks=True)
    return target / "hostile"


@pytest.fixture(scope="session")
def hostile_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = copy_hostile(tmp_path_factory.mktemp("guard"))
    line = "2026-11-29 12:00:00 INFO request served in 12 ms\n"
    (root / "server.log").write_text(line * (BIG_LOG_BYTES // len(line) + 1))
    return root


@pytest.fixture
def workspace(hostile_root: Path) -> Workspace:
    return Workspace([hostile_root])


@pytest.fixture(scope="session")
def ignore(hostile_root: Path) -> IgnoreRules:
    return IgnoreRules.for_folder(hostile_root)


@pytest.mark.parametrize(
    ("ref", "reason", "words"),
    [
        (".env", "secret", "secret file"),
        ("config/.env.local", "secret", "secret file"),
        ("id_rsa", "secret", "secret file"),
        ("server.pem", "secret", "secret file"),
        ("env_link.txt", "secret", "secret file"),
        ("escape.txt", "outside", "outside the workspace"),
        ("etc_hostname", "outside", "outside the workspace"),
        ("../outside/token.txt", "outside", "outside the workspace"),
        ("/etc/passwd", "outside", "outside the workspace"),
        ("ignored/data.txt", "ignored", "ignored"),
        ("scratch.tmp", "ignored", "ignored"),
        ("ignored", "ignored", "ignored"),
        ("logo.png", "binary", "binary file"),
        ("missing.py", "not_found", "not found"),
        ("config", "directory", "is a directory"),
        ("server.log", "too_large", "too large"),
    ],
)
def test_hostile_reference_is_refused_naming_path_and_reason(
    workspace: Workspace, ignore: IgnoreRules, ref: str, reason: str, words: str
) -> None:
    with pytest.raises(PathRefusal) as caught:
        guard_path(workspace, ref, ignore=ignore, allow_dir=ref == "ignored")
    assert caught.value.reason == reason
    assert isinstance(caught.value, PathRefusedError)
    message = str(caught.value)
    assert message.startswith(f"{ref}: ")
    assert words in message


def test_harmless_files_pass_and_resolve_inside(workspace: Workspace, ignore: IgnoreRules) -> None:
    root = workspace.root
    assert guard_path(workspace, "app.py", ignore=ignore) == root / "app.py"
    assert guard_path(workspace, str(root / "big_module.py"), ignore=ignore) == (
        root / "big_module.py"
    )
    assert guard_path(workspace, (root / "README.md").as_uri(), ignore=ignore) == root / "README.md"
    assert guard_path(workspace, ".env.example", ignore=ignore) == root / ".env.example"
    assert guard_path(workspace, "config", ignore=ignore, allow_dir=True) == root / "config"


def test_always_ignored_folders_are_refused_without_gitignore_rules(tmp_path: Path) -> None:
    for folder in ("node_modules/pkg", ".venv/lib", "__pycache__", ".git", ".cairn"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "file.txt").write_text("data\n")
    workspace = Workspace([tmp_path])
    for folder in ("node_modules/pkg", ".venv/lib", "__pycache__", ".git", ".cairn"):
        with pytest.raises(PathRefusal) as caught:
            guard_path(workspace, f"{folder}/file.txt")
        assert caught.value.reason == "ignored"


def test_secret_folders_and_exempt_templates() -> None:
    assert is_secret(Path(".ssh/config"))
    assert is_secret(Path("deploy/ID_RSA.pub"))
    assert is_secret(Path("keys/client.P12"))
    assert is_secret(Path(".npmrc"))
    assert not is_secret(Path(".env.example"))
    assert not is_secret(Path("environment.py"))
    assert not is_secret(Path("keyboard.py"))


def test_max_bytes_is_the_callers_limit(workspace: Workspace, ignore: IgnoreRules) -> None:
    size = (workspace.root / "app.py").stat().st_size
    assert (
        guard_path(workspace, "app.py", ignore=ignore, max_bytes=size) == workspace.root / "app.py"
    )
    with pytest.raises(PathRefusal) as caught:
        guard_path(workspace, "app.py", ignore=ignore, max_bytes=size - 1)
    assert caught.value.reason == "too_large"
    assert MAX_FILE_BYTES < BIG_LOG_BYTES


def test_editor_text_wins_and_unsaved_buffers_count_as_existing(tmp_path: Path) -> None:
    (tmp_path / "mod.py").write_text("on disk\n")
    workspace = Workspace([tmp_path])
    workspace.open_buffer(tmp_path / "mod.py", "in the editor\n")
    workspace.open_buffer(tmp_path / "new.py", "never saved\n")
    assert read_text_guarded(workspace, "mod.py") == "in the editor\n"
    assert read_text_guarded(workspace, "new.py") == "never saved\n"
    workspace.open_buffer(tmp_path / "huge.py", "x" * 100)
    with pytest.raises(PathRefusal) as caught:
        read_text_guarded(workspace, "huge.py", max_bytes=99)
    assert caught.value.reason == "too_large"


def test_read_text_guarded_refuses_secrets(workspace: Workspace) -> None:
    with pytest.raises(PathRefusedError, match="secret file"):
        read_text_guarded(workspace, ".env")


def test_is_binary_heuristics(tmp_path: Path) -> None:
    assert is_binary(b"abc\0def")
    assert is_binary(bytes(range(1, 32)) * 10)
    assert not is_binary(b"")
    assert not is_binary("plain text, ünïcode ✓\n".encode())
    assert not is_binary("café au lait\n".encode("latin-1"))
    # A multi-byte character cut by the sniff window is still text.
    text = ("a" * 8191 + "é").encode()
    assert not is_binary(text)
    (tmp_path / "pic.bin").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR")
    assert is_binary(tmp_path / "pic.bin")


def test_is_binary_counts_high_bytes_only_when_not_utf8() -> None:
    assert is_binary(bytes(range(0x80, 0x100)) * 4)
    assert not is_binary(("ключ значение\n" * 50).encode())


def test_is_secret_follows_an_absolute_symlink_to_its_target(workspace: Workspace) -> None:
    assert is_secret(workspace.root / "env_link.txt")
    assert not is_secret(workspace.root / "escape.txt")
    assert not is_secret(workspace.root / "app.py")


def test_empty_reference_is_refused_with_a_readable_message(workspace: Workspace) -> None:
    with pytest.raises(PathRefusal, match=r"^\(empty path\): not found$"):
        guard_path(workspace, "  ")
