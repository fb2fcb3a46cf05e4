"""Whole-turn patches: every workspace change between the turn's start snapshot and its end."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from cairn.agent.api import Approval, ApprovalRequest
from cairn.agent.engine import Engine
from cairn.agent.sessions.snapshot import dirty_hash
from cairn.models.session import Turn
from cairn.settings import Settings
from tests.unit.test_agent_support import call, make_engine, reply, write_script


def git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(root), "-c", "user.email=t@e", "-c", "user.name=t", *args],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "README.md").write_text("# Project\n\nold line\n")
    (tmp_path / "app.py").write_text("x = 1\n")
    return tmp_path


async def _turn(
    root: Path,
    lines: list[dict[str, object]],
    engine: Engine | None = None,
    **settings: Any,
) -> Turn:
    own = engine is None
    options: dict[str, Any] = {"model": write_script(root, lines), "allowed_commands": []}
    engine = engine or Engine(
        [root], Settings.model_validate({**options, **settings}), approver=_yes
    )
    try:
        result = await engine.turn("change things")
        return engine.store.open(result.session_id).meta().turns[-1]
    finally:
        if own:
            engine.close()


async def _yes(request: ApprovalRequest) -> Approval:
    return "once"


def _patch(root: Path, turn: Turn) -> str:
    from cairn.trace import TraceStore

    [meta] = TraceStore(root / ".cairn").list()
    assert turn.patch_artifact_id is not None, "the turn has no patch"
    return TraceStore(root / ".cairn").open(meta.id).read_artifact(turn.patch_artifact_id).decode()


@pytest.mark.parametrize("in_git", [True, False], ids=["git", "no-git"])
async def test_a_run_command_that_writes_a_file_is_in_the_turn_patch(
    project: Path, in_git: bool
) -> None:
    if in_git:
        git(project, "init", "-q")
        git(project, "add", ".")
        git(project, "commit", "-q", "-m", "start")
    command = "sed -i 's/old line/new line/' README.md && printf 'made\\n' > made.txt"
    turn = await _turn(
        project,
        [
            reply("", call("run_command", command=command)),
            reply("", call("edit_file", path="app.py", old="x = 1", new="x = 2")),
            reply("done"),
        ],
    )
    patch = _patch(project, turn)
    assert turn.start_tree is not None
    assert "diff --git a/README.md b/README.md" in patch
    assert "-old line" in patch and "+new line" in patch
    assert "diff --git a/made.txt b/made.txt" in patch and "new file mode" in patch
    assert "+made" in patch
    assert "-x = 1" in patch and "+x = 2" in patch
    assert ".cairn" not in patch
    # The patch is a standard unified diff: reversed, it restores the start.
    subprocess.run(
        ["patch", "-R", "-p1", "-s", "-d", str(project)], input=patch, text=True, check=True
    )
    assert (project / "README.md").read_text() == "# Project\n\nold line\n"
    assert (project / "app.py").read_text() == "x = 1\n"
    assert not (project / "made.txt").exists()


async def test_secret_and_ignored_files_stay_out_of_the_patch(project: Path) -> None:
    (project / ".gitignore").write_text("build/\n")
    command = "mkdir -p build && echo out > build/x && echo KEY=1 > .env && echo y > notes.txt"
    turn = await _turn(project, [reply("", call("run_command", command=command)), reply("ok")])
    patch = _patch(project, turn)
    assert "notes.txt" in patch
    assert ".env" not in patch and "build/x" not in patch


async def test_the_users_secret_paths_and_exemptions_apply_to_the_patch(project: Path) -> None:
    command = (
        "mkdir -p conf tests/fixtures && echo token=1 > conf/prod.ini"
        " && echo fixture > tests/fixtures/server.key && echo y > notes.txt"
    )
    turn = await _turn(
        project,
        [reply("", call("run_command", command=command)), reply("ok")],
        secret_paths=["conf/*.ini"],
        secret_path_exemptions=["tests/fixtures/*.key"],
    )
    patch = _patch(project, turn)
    assert "notes.txt" in patch
    assert "conf/prod.ini" not in patch and "token=1" not in patch
    assert "diff --git a/tests/fixtures/server.key" in patch


async def test_a_turn_that_changes_nothing_has_no_patch(project: Path) -> None:
    turn = await _turn(project, [reply("", call("read_file", path="app.py")), reply("ok")])
    assert turn.start_tree is not None
    assert turn.patch_artifact_id is None


async def test_the_users_change_during_the_turn_is_in_the_patch(project: Path) -> None:
    engine = make_engine(project, [reply("", call("list_dir")), reply("ok")])

    async def edit_between(*args: Any, **kwargs: Any) -> Any:
        (project / "app.py").write_text("x = 'edited by the user'\n")
        return await inner(*args, **kwargs)

    inner = engine.runtime.complete
    engine.runtime.complete = edit_between  # type: ignore[method-assign]
    try:
        turn = await _turn(project, [], engine)
    finally:
        engine.close()
    patch = _patch(project, turn)
    assert "+x = 'edited by the user'" in patch


def test_the_dirty_hash_covers_untracked_files(project: Path) -> None:
    git(project, "init", "-q")
    git(project, "add", ".")
    git(project, "commit", "-q", "-m", "start")
    clean = dirty_hash(project)
    (project / "new.txt").write_text("one\n")
    with_new = dirty_hash(project)
    (project / "new.txt").write_text("two\n")
    changed = dirty_hash(project)
    assert None not in (clean, with_new, changed)
    assert len({clean, with_new, changed}) == 3
    (project / "new.txt").unlink()
    assert dirty_hash(project) == clean
