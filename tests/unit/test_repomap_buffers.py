"""Open buffers in the map: edits never re-parse a whole TypeScript file, whole-file parses
of other languages are incremental, and the map equals a fresh one of the same text."""

from __future__ import annotations

import shutil
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from cairn.code.incremental import ParsedDocument, changed_span
from cairn.code.languages import new_parser
from cairn.repomap.map import RepoMap

WORKSPACES = Path(__file__).resolve().parents[1] / "workspaces"
BUDGET = 2000
EDITS = 5


def count(text: str) -> int:
    return (len(text) + 3) // 4


class Files:
    def __init__(self, root: Path) -> None:
        self.root = root

    def files(self) -> list[Path]:
        return sorted(path for path in self.root.rglob("*") if path.is_file())


def _typescript_project(root: Path) -> Path:
    """A large TypeScript module (not in play) that a small one in play uses."""
    (root / "src").mkdir(parents=True)
    body = "".join(
        f"export const helper{i} = (value: number): number => value + {i}\n\n" for i in range(2000)
    )
    (root / "src" / "big.ts").write_text(
        body + "export class Store {\n  get(key: string): number {\n    return 1\n  }\n}\n"
    )
    (root / "src" / "app.ts").write_text(
        'import { Store, helper7 } from "./big"\n\n'
        "export const run = () => new Store().get('a') + helper7(1)\n"
    )
    return root


def _fresh(root: Path, play: list[Path], mentioned: set[str]) -> str:
    return RepoMap(root, Files(root)).render(play, mentioned, BUDGET, count)


def test_typescript_buffer_edits_parse_only_the_parts_shown(tmp_path: Path) -> None:
    root = _typescript_project(tmp_path / "ws")
    big = root / "src" / "big.ts"
    play, mentioned = [root / "src" / "app.ts"], {"Store", "helper7"}
    repomap = RepoMap(root, Files(root))
    text = big.read_text()
    for step in range(EDITS):
        text = text.removesuffix("}\n") + f"  put{step}(): void {{\n    return\n  }}\n}}\n"
        repomap.update_buffer(big, text)
        rendered = repomap.render(play, mentioned | {f"put{step}"}, BUDGET, count)
        assert f"put{step}()" in rendered
        big.write_text(text)
        assert rendered == _fresh(root, play, mentioned | {f"put{step}"})
    assert repomap.buffer_parses == {"full": 0, "incremental": 0}


def test_whole_file_parses_of_a_buffer_are_incremental(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    shutil.copytree(WORKSPACES / "go_project", root)
    greet = root / "greet" / "greet.go"
    play, mentioned = [root / "main.go"], {"Hello"}
    repomap = RepoMap(root, Files(root))
    text = greet.read_text()
    for step in range(EDITS):
        text += f'\n// Hello{step} is another greeting.\nfunc Hello{step}() string {{\n\treturn Hello("x")\n}}\n'
        repomap.update_buffer(greet, text)
        rendered = repomap.render(play, mentioned | {f"Hello{step}"}, BUDGET, count)
        assert f"func Hello{step}()" in rendered
        greet.write_text(text)
        assert rendered == _fresh(root, play, mentioned | {f"Hello{step}"})
    assert repomap.buffer_parses == {"full": 1, "incremental": EDITS - 1}
    repomap.update_buffer(greet, None)
    assert repomap.render(play, mentioned, BUDGET, count) == _fresh(root, play, mentioned)


def test_a_buffer_with_a_syntax_error_is_parsed_afresh(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    shutil.copytree(WORKSPACES / "go_project", root)
    greet = root / "greet" / "greet.go"
    play, mentioned = [root / "main.go"], {"Hello"}
    repomap = RepoMap(root, Files(root))
    broken = greet.read_text() + "\nfunc Broken( {\n"
    repomap.update_buffer(greet, broken)
    repomap.render(play, mentioned, BUDGET, count)
    repomap.update_buffer(greet, broken + "\n")
    rendered = repomap.render(play, mentioned, BUDGET, count)
    greet.write_text(broken + "\n")
    assert rendered == _fresh(root, play, mentioned)
    assert repomap.buffer_parses == {"full": 2, "incremental": 1}


SOURCE = "package main\n\nfunc a() int {\n\treturn 1\n}\n\ntype T struct{ x int }\n"


@settings(max_examples=60, deadline=None)
@given(
    edits=st.lists(
        st.tuples(
            st.floats(min_value=0, max_value=1),
            st.integers(min_value=0, max_value=12),
            st.sampled_from(["", "x", "\n", "func b() {}\n", "// é😀\n", "}", "var v = 2\n"]),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_replace_text_gives_the_tree_of_a_fresh_parse(edits: list[tuple[float, int, str]]) -> None:
    document = ParsedDocument(SOURCE, "main.go")
    text = SOURCE
    for at, length, new in edits:
        start = int(at * len(text))
        text = text[:start] + new + text[start + length :]
        document.replace_text(text)
    assert document.text == text
    fresh = new_parser("go").parse(text.encode("utf-8"))
    if not fresh.root_node.has_error:
        assert str(document.tree.root_node) == str(fresh.root_node)
    assert document.full_parses == 1


def test_changed_span_is_the_one_range_that_differs() -> None:
    assert changed_span(b"abcdef", b"abXYef") == (2, 4, 4)
    assert changed_span(b"aaa", b"aa") == (2, 3, 2)
    assert changed_span(b"same", b"same") == (4, 4, 4)
    assert changed_span(b"", b"new") == (0, 0, 3)
