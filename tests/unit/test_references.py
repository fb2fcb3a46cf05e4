"""@file / @dir references: contents for files, a tree for folders, and refusals that leak nothing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cairn.context.builder import ContextBuilder, GatherRequest
from cairn.context.priorities import PRIORITY_REFERENCE
from cairn.context.references import (
    RELEVANT_FILES_MAX,
    TREE_MAX_DEPTH,
    TREE_MAX_ENTRIES,
    block_kind,
    reference_blocks,
)
from cairn.files.ignore import IgnoreRules
from cairn.files.text import content_hash
from cairn.files.workspace import Workspace
from cairn.models.manifest import ContextBlock
from cairn.settings import Settings

FIXTURES = Path(__file__).resolve().parents[1] / "workspaces"
# Bigger than the guard's size limit: generated per session, never committed.
BIG_LOG_BYTES = 2 * 1024 * 1024
LOG_LINE = "2026-11-29 12:00:00 INFO request served in 12 ms\n"
# Every string that only occurs inside files the agent must not see.
FORBIDDEN = (
    "HOSTILE-ENV-SECRET",
    "HOSTILE-DB-SECRET",
    "HOSTILE-LOCAL-SECRET",
    "HOSTILE-RSA-SECRET",
    "HOSTILE-PEM-SECRET",
    "HOSTILE-IGNORED-CONTENT",
    "HOSTILE-TMP-CONTENT",
    "HOSTILE-OUTSIDE-SECRET",
    "IHDR",
)


def count(text: str) -> int:
    return len(text.split())


@pytest.fixture(scope="session")
def hostile_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The hostile fixture (and its sibling `outside`) copied out of git, plus a 2 MB log."""
    base = tmp_path_factory.mktemp("references")
    for name in ("hostile", "outside"):
        shutil.copytree(FIXTURES / name, base / name, symlinks=True)
    root = base / "hostile"
    (root / "server.log").write_text(LOG_LINE * (BIG_LOG_BYTES // len(LOG_LINE) + 1))
    return root


@pytest.fixture
def workspace(hostile_root: Path) -> Workspace:
    return Workspace([hostile_root])


@pytest.fixture(scope="session")
def ignore(hostile_root: Path) -> IgnoreRules:
    return IgnoreRules.for_folder(hostile_root)


def everything(blocks: list[ContextBlock]) -> str:
    return "\n".join(f"{b.text}\n{b.reason}\n{b.ref}\n{b.version}" for b in blocks)


HOSTILE_REFS = {
    "@.env": "secret file",
    "@config/.env.local": "secret file",
    "@id_rsa": "secret file",
    "@server.pem": "secret file",
    "@env_link.txt": "secret file",
    "@escape.txt": "outside the workspace",
    "@etc_hostname": "outside the workspace",
    "@../outside/token.txt": "outside the workspace",
    "@ignored/data.txt": "ignored",
    "@ignored": "ignored",
    "@scratch.tmp": "ignored",
    "@logo.png": "binary file",
    "@missing.py": "not found",
}


def test_every_hostile_reference_is_refused_and_nothing_leaks(
    workspace: Workspace, ignore: IgnoreRules
) -> None:
    blocks = reference_blocks(workspace, list(HOSTILE_REFS), ignore=ignore, count=count)
    assert len(blocks) == len(HOSTILE_REFS)
    for block, (ref, words) in zip(blocks, HOSTILE_REFS.items(), strict=True):
        assert block.source == "reference"
        assert block.ref == ref.removeprefix("@")
        assert not block.included
        assert block.text == ""
        assert block.tokens == 0
        assert block.reason is not None
        assert block.reason.startswith(f"{block.ref}: ")
        assert words in block.reason
    dump = everything(blocks)
    for secret in FORBIDDEN:
        assert secret not in dump


def test_a_refused_link_keeps_the_name_written_and_says_where_it_leads(
    workspace: Workspace, ignore: IgnoreRules
) -> None:
    link = workspace.root / "env_link.txt"
    for written in ("@env_link.txt", str(link), link.as_uri()):  # CLI, ACP, editor
        (block,) = reference_blocks(workspace, [written], ignore=ignore, count=count)
        assert (block.ref, block.target, block.included) == ("env_link.txt", ".env", False)
        assert block.reason is not None and "secret file" in block.reason
    for name in ("@.env", "@escape.txt"):  # no link, or one out of the workspace
        (block,) = reference_blocks(workspace, [name], ignore=ignore, count=count)
        assert block.ref == name[1:] and block.target is None


def test_file_reference_carries_the_whole_text(workspace: Workspace, ignore: IgnoreRules) -> None:
    root = workspace.root
    blocks = reference_blocks(
        workspace, ["@app.py", "README.md", "@big_module.py"], ignore=ignore, count=count
    )
    assert [b.ref for b in blocks] == ["app.py", "README.md", "big_module.py"]
    assert [b.kind for b in blocks] == ["code", "text", "code"]
    for block in blocks:
        text = (root / str(block.ref)).read_text()
        assert block.included
        assert block.text == text
        assert block.version == content_hash(text)
        assert block.tokens == count(text)
        assert block.priority == PRIORITY_REFERENCE


def test_editor_text_wins_and_duplicates_collapse(
    workspace: Workspace, ignore: IgnoreRules
) -> None:
    workspace.open_buffer(workspace.root / "app.py", "UNSAVED = True\n")
    blocks = reference_blocks(
        workspace,
        ["@app.py", "app.py", str(workspace.root / "app.py")],
        ignore=ignore,
        count=count,
    )
    assert len(blocks) == 1
    assert blocks[0].text == "UNSAVED = True\n"
    assert blocks[0].version == content_hash("UNSAVED = True\n")


def test_small_logs_are_log_blocks(tmp_path: Path) -> None:
    (tmp_path / "build.log").write_text("ERROR: failed\n")
    (tmp_path / "run.log.1").write_text("old\n")
    blocks = reference_blocks(
        Workspace([tmp_path]), ["@build.log", "@run.log.1"], ignore=None, count=count
    )
    assert [b.kind for b in blocks] == ["log", "log"]
    assert block_kind(Path("notes.txt")) == "text"
    assert block_kind(Path("lib.rs")) == "code"


def test_directory_reference_lists_tree_and_relevant_files_without_contents(
    workspace: Workspace, ignore: IgnoreRules
) -> None:
    (block,) = reference_blocks(workspace, ["@."], ignore=ignore, count=count)
    assert block.included
    assert block.kind == "text"
    assert block.ref == "."
    tree, _, relevant = block.text.partition("Relevant files")
    for name in ("app.py", "big_module.py", "README.md", "logo.png", "config/"):
        assert f"\n  {name}" in tree
    for hidden in ("ignored/", "data.txt", "scratch.tmp", "escape.txt", "etc_hostname"):
        assert hidden not in tree
    listed = [line[2:].split(" (")[0] for line in relevant.splitlines() if line.startswith("- ")]
    assert listed[:2] == ["README.md", "app.py"]
    assert set(listed) <= {"README.md", "app.py", "big_module.py", ".env.example", ".gitignore"}
    for not_relevant in (".env", "id_rsa", "server.pem", "logo.png", "server.log"):
        assert not_relevant not in listed
    assert "def greet" not in block.text
    assert "class Shape" not in block.text
    for secret in FORBIDDEN:
        assert secret not in block.text


def test_directory_listing_is_depth_and_size_limited(tmp_path: Path) -> None:
    deep = tmp_path / "src" / "/".join(f"d{level}" for level in range(TREE_MAX_DEPTH + 2))
    deep.mkdir(parents=True)
    (deep / "leaf.py").write_text("x = 1\n")
    (deep.parent / "mid.py").write_text("y = 2\n")
    many = tmp_path / "src" / "many"
    many.mkdir()
    for index in range(TREE_MAX_ENTRIES + 20):
        (many / f"f{index:04d}.txt").write_text("z\n")
    workspace = Workspace([tmp_path])
    (block,) = reference_blocks(workspace, ["@src"], ignore=None, count=count)
    assert f"d{TREE_MAX_DEPTH - 1}/ (2 files)" in block.text
    assert "leaf.py" not in block.text.partition("Relevant files")[0]
    assert "more entries" in block.text
    relevant = [line for line in block.text.splitlines() if line.startswith("- ")]
    assert len(relevant) == RELEVANT_FILES_MAX


def test_open_buffers_rank_first_among_relevant_files(tmp_path: Path) -> None:
    for name in ("a.txt", "b.txt", "main.py"):
        (tmp_path / name).write_text("text\n")
    workspace = Workspace([tmp_path])
    workspace.open_buffer(tmp_path / "b.txt", "text\n")
    (block,) = reference_blocks(workspace, ["@."], ignore=None, count=count)
    relevant = [line for line in block.text.splitlines() if line.startswith("- ")]
    assert relevant[0].startswith("- b.txt")
    assert relevant[1].startswith("- main.py")


def test_rules_fixture_subfolder_listing(tmp_path: Path) -> None:
    root = tmp_path / "rules_nested"
    shutil.copytree(FIXTURES / "rules_nested", root)
    workspace = Workspace([root])
    (block,) = reference_blocks(
        workspace, ["@pkg"], ignore=IgnoreRules.for_folder(root), count=count
    )
    assert block.ref == "pkg"
    lines = block.text.splitlines()
    assert lines[1:7] == [
        "pkg/",
        "  sub/",
        "    AGENTS.md",
        "    __init__.py",
        "    deep.py",
        "  AGENTS.md",
    ]
    assert "other" not in block.text
    assert "RULE-PKG-02" not in block.text


def test_nothing_refused_reaches_the_built_context(workspace: Workspace) -> None:
    """Through the real builder: the model's messages and the manifest hold no refused content."""
    builder = ContextBuilder(workspace, Settings(context_window=200_000))
    built = builder.build(
        GatherRequest(
            session_id="s1",
            model="scripted/none",
            user_message="look at these",
            references=(*HOSTILE_REFS, "@app.py", "@."),
        )
    )
    sent = json.dumps(built.messages) + built.manifest.model_dump_json()
    for secret in FORBIDDEN:
        assert secret not in sent
    assert "def greet" in sent
    refused = {b.ref for b in built.manifest.blocks if b.source == "reference" and not b.included}
    assert refused == {ref.removeprefix("@") for ref in HOSTILE_REFS}


def test_second_workspace_folder_uses_its_own_gitignore(tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    (second / ".gitignore").write_text("*.secret-notes\n")
    (second / "plan.secret-notes").write_text("SECOND-FOLDER-IGNORED\n")
    (second / "ok.py").write_text("OK = 1\n")
    workspace = Workspace([first, second])
    blocks = reference_blocks(
        workspace,
        [str(second / "plan.secret-notes"), str(second / "ok.py")],
        ignore=IgnoreRules.for_folder(first),
        count=count,
    )
    assert not blocks[0].included
    assert "ignored" in str(blocks[0].reason)
    assert "SECOND-FOLDER-IGNORED" not in everything(blocks)
    assert blocks[1].included
    assert blocks[1].ref == "second/ok.py"
