"""`cairn context` through the read-only engine: a real call's sources, and nothing recorded."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cairn.agent.engine import Engine
from cairn.agent.read_only import DRY_RUN_SESSION, ReadOnlyEngine
from cairn.commands.context_dry_run import format_table, next_context
from cairn.files.workspace import path_to_uri
from cairn.models.messages import Message, TextPart
from cairn.settings import Settings
from cairn.trace import TraceStore

FIXTURE = Path(__file__).resolve().parents[1] / "workspaces" / "context_small"
MAP_CACHE = "cache/repomap/"
# A dry run needs a model (no call is made, so the script need not exist).
MODEL = "scripted/script.jsonl"
SCRIPTED = Settings(model=MODEL)
# Small enough that app/engine.py does not fit whole and becomes an outline.
SMALL = {"model": MODEL, "context_window": 6_000, "max_output_tokens": 500, "safety_margin": 100}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    target = tmp_path / "ws"
    shutil.copytree(FIXTURE, target)
    return target


def files_under(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()
    }


def test_an_open_buffer_is_in_play_with_its_unsaved_text(root: Path) -> None:
    engine = ReadOnlyEngine([root], SCRIPTED)
    path = root / "app" / "engine.py"
    engine.workspace.open_buffer(path, "def unsaved_helper():\n    return 42\n", version=3)
    built = next_context(engine, [], "look at the engine", None, None)
    [buffer] = [b for b in built.blocks if b.source == "buffer"]
    assert buffer.ref == "app/engine.py" and buffer.included
    assert "unsaved_helper" in buffer.text
    assert any(
        line.split()[:3] == ["history", "buffer", "app/engine.py"]
        for line in format_table(built).split("\n")
    )


async def test_the_dry_run_offers_the_tools_of_a_real_call(root: Path) -> None:
    settings = Settings.model_validate({"model": MODEL, "mode": "plan"})
    dry = next_context(ReadOnlyEngine([root], settings), [], "plan it", None, None)
    real = Engine([root], settings)
    try:
        manifest = await real.context_manifest(message="plan it")
    finally:
        real.close()
    # The same tool schemas: the same budget left for the input.
    assert dry.stats.tool_schema_tokens > 0
    assert dry.manifest.available_input == manifest.available_input
    mode = next(b for b in dry.blocks if b.source == "mode")
    assert "goal, explore" in mode.text and "edit_file" not in mode.text


def test_the_dry_run_writes_only_the_repository_map_cache(root: Path) -> None:
    store = TraceStore(root / ".cairn")
    trace = store.create(title="t")
    trace.append_message(Message(id="m1", role="user", parts=[TextPart(text="first ask")]))
    session_id = trace.id
    trace.close()
    session_dir = root / ".cairn" / "traces" / session_id
    recorded = files_under(session_dir)

    engine = ReadOnlyEngine([root], Settings.model_validate(SMALL))
    for session in (None, session_id):
        built = next_context(engine, [Path("app/engine.py")], "fix it", session, None)
        buffer = next(b for b in built.blocks if b.source == "reference")
        assert buffer.reason is not None and "outline" in buffer.reason
        assert buffer.artifact_id is None  # a real call would store the full text
    assert built.manifest.session_id == session_id
    assert files_under(session_dir) == recorded
    written = [
        f
        for f in files_under(root / ".cairn")
        if not f.startswith(("traces/", MAP_CACHE)) and f != ".gitignore"
    ]
    assert written == []  # no profile.json, no new session
    assert any(f.startswith(MAP_CACHE) for f in files_under(root / ".cairn"))
    assert sorted(p.name for p in (root / ".cairn" / "traces").iterdir()) == [session_id]


async def test_a_writing_engine_stores_what_the_dry_run_does_not(root: Path) -> None:
    """The peer of the test above: the same build in a real session keeps the full text."""
    engine = Engine([root], Settings.model_validate(SMALL))
    try:
        manifest = await engine.context_manifest(
            message="fix it", uri=path_to_uri(root / "app" / "engine.py")
        )
        buffer = next(b for b in manifest.blocks if b.source == "buffer")
        [artifact] = engine.session().trace.artifact_ids()
        assert buffer.reason is not None and f"full text in artifact {artifact}" in buffer.reason
    finally:
        engine.close()


def test_without_a_session_the_build_is_a_new_sessions(root: Path) -> None:
    built = next_context(ReadOnlyEngine([root], SCRIPTED), [], "hello", None, None)
    assert built.manifest.session_id == DRY_RUN_SESSION
    assert [b.source for b in built.blocks if b.source == "history"] == []
    # The plan the first call of a new session gets: the message is its mission.
    [plan] = [b for b in built.blocks if b.source == "plan"]
    assert "hello" in plan.text
    assert [f for f in files_under(root / ".cairn") if not f.startswith(MAP_CACHE)] == [
        ".gitignore"
    ]


def test_the_second_dry_run_reads_the_map_index_instead_of_rescanning(root: Path) -> None:
    next_context(ReadOnlyEngine([root], SCRIPTED), [], "hello", None, None)
    second = ReadOnlyEngine([root], SCRIPTED)
    repomap = second.parts.repomap
    assert repomap is not None
    next_context(second, [], "hello", None, None)
    assert repomap.scanned_last_refresh == []
