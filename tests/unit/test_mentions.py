"""`@path` mentions parsed by the server: which are references, and what every client gets."""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn.agent.engine import Engine
from cairn.context.mentions import mentioned_references, mentions, merged, turn_references
from cairn.files.workspace import Workspace
from cairn.models.manifest import Manifest
from cairn.models.messages import FilePart
from cairn.settings import Settings
from tests.unit.test_agent_support import make_engine, reply


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "app.py").write_text("def run():\n    return 1\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "guide.md").write_text("# Guide\n")
    (tmp_path / ".env").write_text("TOKEN=abc\n")
    (tmp_path / "AGENTS.md").write_text("# Rules\n")
    return tmp_path


def references(manifest: Manifest) -> dict[str, tuple[bool, str | None]]:
    return {b.ref or "": (b.included, b.reason) for b in manifest.blocks if b.source == "reference"}


def engine_on(root: Path) -> Engine:
    return make_engine(root, [reply("ok")])


# -- the parsing rule -----------------------------------------------------------------


def test_mentions_end_at_sentence_punctuation_and_brackets() -> None:
    text = 'fix @pkg/app.py. Then see (@docs/) and @"my notes.txt", please: @a.py!'
    assert mentions(text) == ["pkg/app.py", "docs/", "my notes.txt", "a.py"]


def test_emails_handles_and_code_are_not_mentions() -> None:
    text = (
        "mail alice@example.com or bob@host:path, x@2x.png is an image\n"
        "```python\n@decorator\ndef f(): ...\n```\n"
        "inline `@property` and ``@a.py`` then\n~~~\n@inside.py\n~~~\nbut @real.py"
    )
    assert mentions(text) == ["real.py"]


def test_an_unclosed_fence_hides_the_rest_of_the_message() -> None:
    assert mentions("see @a.py\n```\n@b.py is code") == ["a.py"]


def test_prose_mentions_are_kept_only_when_meant_as_paths(root: Path) -> None:
    workspace = Workspace([root])
    text = (
        "@dataclass and @pytest.fixture and @alice and @types/node are prose; "
        "@pkg/app.py and @docs exist; @pkg/aap.py is a typo; @pkg/gone has an existing "
        "folder; @missing/ is a folder; @.env is a secret"
    )
    assert mentioned_references(workspace, text) == [
        "pkg/app.py",
        "docs",
        "pkg/aap.py",
        "pkg/gone",
        "missing/",
        ".env",
    ]


def test_explicit_references_and_mentions_merge_by_path(root: Path) -> None:
    workspace = Workspace([root])
    explicit = [str(root / "pkg" / "app.py")]
    merged_refs = turn_references(
        workspace, "see @pkg/app.py and @./pkg/app.py and @docs", explicit
    )
    assert merged_refs == (str(root / "pkg" / "app.py"), "docs")
    assert merged(workspace, [["@x.py", "x.py"], ["x.py"]]) == ("@x.py",)


# -- every client: the engine resolves them ----------------------------------------------


async def test_a_mention_in_the_message_is_a_reference_with_the_same_guard(root: Path) -> None:
    engine = engine_on(root)
    try:
        manifest = await engine.context_manifest(
            message="fix @pkg/app.py, read @docs/ and @.env; see @pkg/aap.py; mail a@b.com"
        )
    finally:
        engine.close()
    refs = references(manifest)
    assert refs["pkg/app.py"] == (True, None)
    assert refs["docs"][0] is True  # the directory listing
    included, reason = refs[".env"]
    assert not included and reason is not None and "secret" in reason
    included, reason = refs["pkg/aap.py"]
    assert not included and reason is not None and "not found" in reason
    assert set(refs) == {"pkg/app.py", "docs", ".env", "pkg/aap.py"}


async def test_code_and_prose_in_the_message_refuse_nothing(root: Path) -> None:
    engine = engine_on(root)
    try:
        manifest = await engine.context_manifest(
            message="Why does `@cache` fail?\n```py\n@dataclass\nclass A: ...\n```\n@alice says hi"
        )
    finally:
        engine.close()
    assert references(manifest) == {}


async def test_the_manifest_request_takes_references(root: Path) -> None:
    engine = engine_on(root)
    try:
        manifest = await engine.context_manifest(references=["docs/guide.md", "@pkg/app.py"])
    finally:
        engine.close()
    assert references(manifest) == {"docs/guide.md": (True, None), "pkg/app.py": (True, None)}


async def test_a_turn_records_and_shows_what_its_message_mentions(root: Path) -> None:
    engine = make_engine(root, [reply("done")])
    try:
        result = await engine.turn("explain @pkg/app.py")
        trace = engine.store.open(result.session_id)
        [manifest] = trace.manifests()
        [user] = [m for m in trace.messages() if m.role == "user"]
    finally:
        engine.close()
    assert references(manifest) == {"pkg/app.py": (True, None)}
    files = [p.path for p in user.parts if isinstance(p, FilePart)]
    assert files == ["pkg/app.py"]


async def test_a_referenced_file_twice_or_refused_twice_is_one_block(root: Path) -> None:
    engine = Engine([root], Settings.model_validate({"model": "scripted/none.jsonl"}))
    try:
        manifest = await engine.context_manifest(
            message="@.env @.env", references=[".env", str(root / "pkg" / "app.py")]
        )
    finally:
        engine.close()
    refs = [b.ref or "" for b in manifest.blocks if b.source == "reference"]
    assert sorted(refs) == [".env", "pkg/app.py"]  # one block each
