"""The where-to-look ranking on a fixture repository, and its block in the first call."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cairn.commands.context_dry_run import build_dry_run
from cairn.context.sources.repomap import WHERE_REF, where_block
from cairn.errors import SettingsError
from cairn.repomap.map import RepoMap
from cairn.repomap.where import WHERE_TITLE

HUB = """\
def helper(value):
    return value


def name(value):
    return helper(value)


class Config:
    def get(self, key):
        return helper(key)
"""
RARE = """\
from pkg.hub import helper


class Parser:
    def parse(self, text):
        return helper(text)

    def _split_header(self, text):
        head, _, rest = text.partition("\\n")
        return head, rest
"""
USER = """\
from pkg.hub import helper, name, Config


def run():
    return helper(name(Config().get("x")))
"""
MOD = """\
def first():
    return 1


def second():
    value = first()
    return value / 0
"""


class Files:
    def __init__(self, root: Path) -> None:
        self.root = root

    def files(self) -> list[Path]:
        return sorted(p for p in self.root.rglob("*") if p.is_file() and ".cairn" not in p.parts)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    for rel, text in {
        "pkg/__init__.py": "",
        "pkg/hub.py": HUB,
        "pkg/rare.py": RARE,
        "pkg/mod.py": MOD,
        "app/one.py": USER,
        "app/two.py": USER,
        "app/three.py": USER,
        "tests/test_rare.py": "from pkg.rare import Parser\n\n\ndef test_split_header():\n"
        "    Parser()._split_header('a')\n",
    }.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def _where(root: Path, message: str) -> list[str]:
    return [c.rel for c in RepoMap(root, Files(root)).where_to_look([], message)]


def test_a_rare_mentioned_name_ranks_its_file_over_the_hub(repo: Path) -> None:
    order = _where(repo, "Parser._split_header drops the name when the header is empty")
    assert order[0] == "pkg/rare.py"
    assert order.index("pkg/rare.py") < order.index("pkg/hub.py")
    assert order.index("pkg/rare.py") < order.index("tests/test_rare.py")


def test_a_traceback_line_puts_its_file_and_symbol_first(repo: Path) -> None:
    message = (
        "Crash:\n  /venv/lib/python3.12/site-packages/pkg/mod.py:7: ZeroDivisionError\n"
        "when calling helper"
    )
    ranked = RepoMap(repo, Files(repo)).where_to_look([], message)
    assert ranked[0].rel == "pkg/mod.py"
    assert ranked[0].symbols[0] == "second"
    assert "traceback line 7 (`second`)" in ranked[0].reason


def test_same_tree_and_message_give_the_same_block(repo: Path) -> None:
    message = "Parser._split_header fails; see pkg/mod.py:3"
    blocks = [
        where_block(RepoMap(repo, Files(repo)).where_to_look([], message), 1000, len)
        for _ in range(2)
    ]
    assert blocks[0] == blocks[1]
    assert blocks[0].startswith("1. ")


def test_the_map_follows_the_where_to_look_order(repo: Path) -> None:
    repo_map = RepoMap(repo, Files(repo))
    ranked = repo_map.where_to_look([], "Parser._split_header is wrong")
    text = repo_map.render([], set(), 2000, len, [(c.rel, c.symbols) for c in ranked])
    first_file = text.splitlines()[0]
    assert first_file == "pkg/rare.py:"


def test_the_first_call_shows_the_block_with_its_reasons(repo: Path) -> None:
    built = build_dry_run(repo, [], "Parser._split_header drops the header", None, "gpt-4.1")
    where = [b for b in built.blocks if b.source == "repomap" and b.ref == WHERE_REF]
    assert len(where) == 1 and where[0].included
    assert WHERE_TITLE in where[0].text
    assert "1. pkg/rare.py — defines `Parser`, `_split_header`" in where[0].text
    manifest = json.loads(built.manifest.model_dump_json())
    [line] = [b for b in manifest["blocks"] if b["ref"] == WHERE_REF]
    assert line["included"]
    assert line["reason"].startswith("where to look: pkg/rare.py (defines `Parser`")


def test_the_where_to_look_table_reaches_the_ranking(repo: Path) -> None:
    # Source files weighed 0 leave the test that names the symbol first.
    (repo / "cairn.toml").write_text("[where_to_look.roles]\nsource = 0.0\n")
    built = build_dry_run(repo, [], "Parser._split_header drops the header", None, "gpt-4.1")
    [where] = [b for b in built.blocks if b.source == "repomap" and b.ref == WHERE_REF]
    assert "1. tests/test_rare.py" in where.text
    assert "pkg/rare.py" not in where.text


def test_a_bad_where_to_look_weight_names_its_key(repo: Path) -> None:
    (repo / "cairn.toml").write_text("[where_to_look]\nlexical = -1\n")
    with pytest.raises(SettingsError, match=r"where_to_look\.lexical"):
        build_dry_run(repo, [], "Parser._split_header", None, "gpt-4.1")
