"""cairn/restore on the whole-turn patches of snapshot trees: changes a command made, binaries."""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn.agent.api import Approval, ApprovalRequest
from cairn.agent.engine import Engine
from cairn.errors import CairnError
from cairn.settings import Settings
from tests.unit.test_agent_support import call, reply, write_script

# Bytes that are not text (git diffs them as "Binary files … differ").
LOGO_BEFORE = b"\x89PNG\x00\x01\x02before"
LOGO_AFTER = b"\x89PNG\x00\x03\x04after!"


async def _yes(request: ApprovalRequest) -> Approval:
    return "once"


def _engine(root: Path, command: str) -> Engine:
    lines = [reply("", call("run_command", command=command)), reply("done")]
    settings = Settings.model_validate({"model": write_script(root, lines), "allowed_commands": []})
    return Engine([root], settings, approver=_yes)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "logo.png").write_bytes(LOGO_BEFORE)
    (tmp_path / "notes.txt").write_text("keep\nold\n")
    (tmp_path / "after.bin").write_bytes(LOGO_AFTER)
    return tmp_path


async def test_a_commands_text_and_binary_changes_are_restored(project: Path) -> None:
    command = (
        "cp after.bin logo.png && sed -i 's/old/new/' notes.txt && "
        "printf '\\000made' > made.bin && rm after.bin"
    )
    engine = _engine(project, command)
    try:
        result = await engine.turn("change the logo")
        restored = await engine.restore(result.session_id, result.turn_id)
        assert sorted(restored.restored_files) == ["after.bin", "logo.png", "made.bin", "notes.txt"]
        assert (project / "logo.png").read_bytes() == LOGO_BEFORE
        assert (project / "after.bin").read_bytes() == LOGO_AFTER
        assert (project / "notes.txt").read_text() == "keep\nold\n"
        assert not (project / "made.bin").exists()
    finally:
        engine.close()


async def test_a_binary_changed_since_the_turn_stops_the_restore(project: Path) -> None:
    engine = _engine(project, "cp after.bin logo.png && sed -i 's/old/new/' notes.txt")
    try:
        result = await engine.turn("change the logo")
        (project / "logo.png").write_bytes(b"\x00the user's own logo")
        with pytest.raises(CairnError, match=r"logo\.png: changed since"):
            await engine.restore(result.session_id, result.turn_id)
        assert (project / "notes.txt").read_text() == "keep\nnew\n"  # nothing was written
        meta = engine.session(result.session_id).meta()
        assert not meta.turns[0].reverted
    finally:
        engine.close()
