"""File changes outside the agent (`Engine.files_changed`) and open buffers reach the context."""

from __future__ import annotations

import subprocess
from pathlib import Path

from cairn.agent.engine import Engine
from cairn.agent.scope.inputs import TurnInputs
from cairn.files.buffers import TextChange
from cairn.models.events import TurnEvent
from cairn.models.manifest import Source
from cairn.models.messages import ToolResultPart
from tests.unit.test_agent_support import Recorder, call, make_engine, reply

NEW_FILES = 20
LIB_HELPERS = 300
# Small enough that the map cannot show every helper of `lib.py` (and large enough for
# the system block beside the built-in tools' schemas, find_code's included).
SMALL_WINDOW = 8_200


def block_text(engine: Engine, source: Source, references: list[str] | None = None) -> str:
    """The text of the next context's `source` blocks (a dry run with `references`)."""
    inputs = TurnInputs(
        model=str(engine.settings.model),
        mode="build",
        user_message="look",
        references=tuple(references or []),
    )
    built = engine.contexts.build(engine.scope(engine.session(), inputs))
    return "\n".join(block.text for block in built.blocks if block.source == source)


def listed(engine: Engine) -> set[str]:
    return {engine.workspace.relative(path) for path in engine.builder.ignore_rules().files()}


def test_a_file_created_after_start_reaches_dir_references_after_files_changed(
    tmp_path: Path,
) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "old.py").write_text("def old():\n    return 1\n")
    engine = make_engine(tmp_path, [])
    assert "old.py" in block_text(engine, "reference", ["src"])
    (tmp_path / "src" / "fresh.py").write_text("def fresh():\n    return 2\n")
    assert "fresh.py" not in block_text(engine, "reference", ["src"])  # the listing is cached

    engine.files_changed([tmp_path / "src" / "fresh.py"])
    listing = block_text(engine, "reference", ["src"])
    assert "fresh.py" in listing and "old.py" in listing
    engine.close()


class CreatingRecorder(Recorder):
    """Creates a file (and reports it) when the first tool call ends, as a user would mid-turn."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path
        self.engine: Engine | None = None

    def on_turn_event(self, event: TurnEvent) -> None:
        super().on_turn_event(event)
        if event.kind == "toolEnd" and not self.path.exists():
            self.path.write_text("def made_by_the_user():\n    return 3\n")
            assert self.engine is not None
            self.engine.files_changed([self.path])


async def test_a_file_created_during_a_turn_is_globbed_by_the_next_step(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("def app():\n    return 0\n")
    recorder = CreatingRecorder(tmp_path / "later.py")
    engine = make_engine(
        tmp_path,
        [
            reply("", call("glob", pattern="*.py")),
            reply("", call("glob", pattern="*.py")),
            reply("Found it."),
        ],
        recorder,
    )
    recorder.engine = engine
    result = await engine.turn("list the python files")
    assert result.finish_reason == "stop"
    outputs = [
        part.output
        for message in engine.store.open(result.session_id).messages()
        for part in message.parts
        if isinstance(part, ToolResultPart)
    ]
    assert len(outputs) == 2
    assert "later.py" not in outputs[0] and "app.py" in outputs[0]
    assert "later.py" in outputs[1]
    engine.close()


def test_an_edited_or_new_agents_md_reaches_the_rules_and_the_profile(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("# Rules\nKeep it simple.\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text("def mod():\n    return 1\n")
    engine = make_engine(tmp_path, [])
    assert "Keep it simple." in block_text(engine, "rules")
    assert [r.path for r in engine.project_profile().rules_files] == ["AGENTS.md"]

    (tmp_path / "AGENTS.md").write_text("# Rules\nUse tabs.\n")
    engine.files_changed([tmp_path / "AGENTS.md"])
    rules = block_text(engine, "rules")
    assert "Use tabs." in rules and "Keep it simple." not in rules

    (tmp_path / "pkg" / "AGENTS.md").write_text("# Package rules\nNo globals.\n")
    engine.files_changed([tmp_path / "pkg" / "AGENTS.md"])
    assert "No globals." in block_text(engine, "rules", ["pkg/mod.py"])
    profile = engine.project_profile()
    assert [r.path for r in profile.rules_files] == ["AGENTS.md", "pkg/AGENTS.md"]
    engine.close()


def test_a_deleted_file_leaves_the_listing_and_the_repository_map(tmp_path: Path) -> None:
    (tmp_path / "main.py").write_text("from helpers import tidy_up_things\n\ntidy_up_things()\n")
    (tmp_path / "helpers.py").write_text("def tidy_up_things():\n    return None\n")
    engine = make_engine(tmp_path, [])
    assert "tidy_up_things" in block_text(engine, "repomap")
    assert "helpers.py" in listed(engine)

    (tmp_path / "helpers.py").unlink()
    engine.files_changed([tmp_path / "helpers.py"])
    assert "def tidy_up_things" not in block_text(engine, "repomap")
    assert "helpers.py" not in listed(engine)
    engine.close()


def test_events_are_coalesced_into_one_listing_refresh(tmp_path: Path) -> None:
    (tmp_path / "base.py").write_text("def base():\n    return 0\n")
    engine = make_engine(tmp_path, [])
    block_text(engine, "repomap")
    before = engine.files.listing_refreshes
    created = [tmp_path / f"new_{n}.py" for n in range(NEW_FILES)]
    for path in created:
        path.write_text(f"def new_{path.stem}():\n    return 1\n")
        engine.files_changed([path])
    engine.files_changed(created)  # editors may report a file twice
    block_text(engine, "repomap")
    assert engine.files.listing_refreshes == before + 1
    assert {f"new_{n}.py" for n in range(NEW_FILES)} <= listed(engine)

    # A content change of a listed file needs no listing: the map re-reads changed stamps.
    (tmp_path / "base.py").write_text("def base_renamed_entirely():\n    return 0\n")
    engine.files_changed([tmp_path / "base.py"])
    assert "base_renamed_entirely" in block_text(engine, "repomap")
    assert engine.files.listing_refreshes == before + 1
    engine.close()


def test_unsaved_buffers_reach_the_repository_map_and_closing_restores_the_disk(
    tmp_path: Path,
) -> None:
    # Open buffers are files in play: the map never outlines them (their text is in the
    # context), it ranks the definitions they use. Too many helpers to show them all.
    lib = "".join(
        f"def helper_{n:03d}(value):\n    return value + {n}\n\n" for n in range(LIB_HELPERS)
    )
    (tmp_path / "lib.py").write_text(lib)
    path = tmp_path / "main.py"
    path.write_text("def main():\n    return 0\n")
    engine = make_engine(tmp_path, [], context_window=SMALL_WINDOW)
    repomap = block_text(engine, "repomap")
    assert "helper_000" in repomap and "helper_299" not in repomap

    workspace = engine.workspace
    uses = "from lib import helper_{n}\n\ndef main():\n    return helper_{n}(1)\n"
    workspace.open_buffer(path, uses.format(n=299), version=1)
    repomap = block_text(engine, "repomap")
    assert "helper_299" in repomap

    workspace.change_buffer(path, [TextChange(uses.format(n=150))], 2)
    repomap = block_text(engine, "repomap")
    assert "helper_150" in repomap and "helper_299" not in repomap

    workspace.close_buffer(path)
    repomap = block_text(engine, "repomap")
    assert "helper_150" not in repomap and "helper_299" not in repomap
    engine.close()


def test_in_git_new_files_are_listed_and_ignored_ones_cost_no_listing(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("build/\n")
    (tmp_path / "app.py").write_text("def app():\n    return 0\n")
    engine = make_engine(tmp_path, [])
    assert engine.builder.ignore_rules().in_git
    block_text(engine, "repomap")
    before = engine.files.listing_refreshes

    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "out.py").write_text("def generated():\n    return 1\n")
    engine.files_changed([tmp_path / "build", tmp_path / "build" / "out.py"])
    block_text(engine, "repomap")
    assert engine.files.listing_refreshes == before
    assert "build/out.py" not in listed(engine)

    (tmp_path / "new.py").write_text("def new():\n    return 2\n")
    engine.files_changed([tmp_path / "new.py"])
    assert "def new" in block_text(engine, "repomap")
    assert engine.files.listing_refreshes == before + 1
    assert "new.py" in listed(engine)
    engine.close()


def test_a_listing_refreshed_by_someone_else_is_not_trusted_stale(tmp_path: Path) -> None:
    path = tmp_path / "flaky.py"
    path.write_text("def flaky():\n    return 0\n")
    engine = make_engine(tmp_path, [])
    engine.files_changed([path])  # a content change: the listing is looked at, not refreshed
    block_text(engine, "repomap")
    path.unlink()
    engine.builder.ignore_rules().refresh()  # as a tool does after a command
    assert "flaky.py" not in listed(engine)

    path.write_text("def flaky():\n    return 1\n")
    engine.files_changed([path])
    block_text(engine, "repomap")
    assert "flaky.py" in listed(engine)
    engine.close()
