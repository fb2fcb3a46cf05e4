"""Project rules: root AGENTS.md plus nearer ones on the path of the files in play, nearest last."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cairn.context.priorities import PRIORITY_RULES
from cairn.context.rules import rules_blocks
from cairn.files.ignore import IgnoreRules
from cairn.files.rules import MAX_RULES_FILE_BYTES, find_rules_files, hash_rules_files
from cairn.files.text import content_hash
from cairn.files.workspace import Workspace

FIXTURES = Path(__file__).resolve().parents[1] / "workspaces"


def count(text: str) -> int:
    return len(text.split())


@pytest.fixture
def root(tmp_path: Path) -> Path:
    target = tmp_path / "rules_nested"
    shutil.copytree(FIXTURES / "rules_nested", target, symlinks=True)
    return target


@pytest.fixture
def workspace(root: Path) -> Workspace:
    return Workspace([root])


def refs(blocks: list) -> list[str | None]:
    return [block.ref for block in blocks]


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ([], ["AGENTS.md"]),
        (["main.py"], ["AGENTS.md"]),
        (["pkg/mod.py"], ["AGENTS.md", "pkg/AGENTS.md"]),
        (["pkg/sub/deep.py"], ["AGENTS.md", "pkg/AGENTS.md", "pkg/sub/AGENTS.md"]),
        (["pkg/sub"], ["AGENTS.md", "pkg/AGENTS.md", "pkg/sub/AGENTS.md"]),
        (["other/thing.py"], ["AGENTS.md", "other/AGENTS.md"]),
    ],
)
def test_rules_follow_the_path_of_each_file_in_play(
    workspace: Workspace, root: Path, files: list[str], expected: list[str]
) -> None:
    blocks = rules_blocks(workspace, [root / name for name in files], count)
    assert refs(blocks) == expected
    for block in blocks:
        assert block.source == "rules"
        assert block.priority == PRIORITY_RULES
        assert block.included
        assert block.text == (root / str(block.ref)).read_text()
        assert block.version == content_hash(block.text)
        assert block.tokens == count(block.text)


def test_several_files_are_deduplicated_and_independent_of_order(
    workspace: Workspace, root: Path
) -> None:
    files = [root / "pkg/sub/deep.py", root / "pkg/mod.py", root / "pkg/sub/__init__.py"]
    forward = rules_blocks(workspace, files, count)
    backward = rules_blocks(workspace, list(reversed(files)), count)
    assert refs(forward) == ["AGENTS.md", "pkg/AGENTS.md", "pkg/sub/AGENTS.md"]
    assert forward == backward
    text = "\n".join(block.text for block in forward)
    assert "RULE-OTHER-04" not in text
    assert text.index("RULE-ROOT-01") < text.index("RULE-PKG-02") < text.index("RULE-SUB-03")


def test_off_path_rules_are_never_included(workspace: Workspace, root: Path) -> None:
    blocks = rules_blocks(workspace, [root / "pkg/sub/deep.py", root / "main.py"], count)
    assert "other/AGENTS.md" not in refs(blocks)
    assert all("RULE-OTHER-04" not in block.text for block in blocks)


def test_editor_text_of_a_rules_file_wins(workspace: Workspace, root: Path) -> None:
    workspace.open_buffer(root / "pkg/AGENTS.md", "# unsaved rules\n")
    blocks = rules_blocks(workspace, [root / "pkg/mod.py"], count)
    assert blocks[1].text == "# unsaved rules\n"
    assert blocks[1].version == content_hash("# unsaved rules\n")


def test_rules_link_escaping_the_workspace_is_refused_without_content(
    tmp_path: Path, root: Path
) -> None:
    outside = tmp_path / "elsewhere.md"
    outside.write_text("LEAKED-RULES-TEXT\n")
    (root / "pkg/AGENTS.md").unlink()
    (root / "pkg/AGENTS.md").symlink_to(outside)
    blocks = rules_blocks(Workspace([root]), [root / "pkg/mod.py"], count)
    refused = blocks[1]
    assert not refused.included
    assert refused.text == ""
    assert refused.tokens == 0
    assert "outside the workspace" in str(refused.reason)
    assert all("LEAKED-RULES-TEXT" not in block.text for block in blocks)


def test_oversized_rules_file_is_refused(workspace: Workspace, root: Path) -> None:
    (root / "pkg/AGENTS.md").write_text("x" * (MAX_RULES_FILE_BYTES + 1))
    blocks = rules_blocks(workspace, [root / "pkg/mod.py"], count)
    assert not blocks[1].included
    assert "too large" in str(blocks[1].reason)
    assert blocks[0].included


def test_multi_root_uses_each_folders_own_chain(tmp_path: Path, root: Path) -> None:
    second = tmp_path / "second"
    (second / "lib").mkdir(parents=True)
    (second / "AGENTS.md").write_text("second root\n")
    (second / "lib/AGENTS.md").write_text("second lib\n")
    (second / "lib/x.py").write_text("x = 1\n")
    workspace = Workspace([root, second])
    blocks = rules_blocks(workspace, [second / "lib/x.py", root / "pkg/mod.py"], count)
    assert refs(blocks) == [
        "AGENTS.md",
        "pkg/AGENTS.md",
        "second/AGENTS.md",
        "second/lib/AGENTS.md",
    ]


def test_find_and_hash_rules_files(workspace: Workspace, root: Path) -> None:
    found = find_rules_files(workspace, IgnoreRules.for_folder(root))
    names = [path.relative_to(root).as_posix() for path in found]
    assert names == ["AGENTS.md", "other/AGENTS.md", "pkg/AGENTS.md", "pkg/sub/AGENTS.md"]
    records = hash_rules_files(root, found)
    assert [record.path for record in records] == names
    assert records[0].hash == content_hash((root / "AGENTS.md").read_text())
    (root / "other/AGENTS.md").write_text("changed\n")
    assert hash_rules_files(root, found)[1].hash != records[1].hash


def test_a_folder_without_agents_md_has_its_claude_md_as_rules(
    workspace: Workspace, root: Path
) -> None:
    (root / "pkg/sub/AGENTS.md").unlink()
    (root / "pkg/sub/CLAUDE.md").write_text("Use tabs in pkg/sub.\n")
    (root / "pkg/CLAUDE.md").write_text("Never shown: pkg has an AGENTS.md.\n")
    blocks = rules_blocks(workspace, [root / "pkg/sub/deep.py"], count)
    assert refs(blocks) == ["AGENTS.md", "pkg/AGENTS.md", "pkg/sub/CLAUDE.md"]
    assert blocks[-1].text == "Use tabs in pkg/sub.\n"
    found = find_rules_files(workspace, IgnoreRules.for_folder(root))
    names = [path.relative_to(root).as_posix() for path in found]
    assert names == ["AGENTS.md", "other/AGENTS.md", "pkg/AGENTS.md", "pkg/sub/CLAUDE.md"]
