"""`cairn/restore` undoes only the restored turns' own changes (issue 26 item 6): a
concurrent session's or the user's edit of another file during the turn is never touched,
and a hunk of the turn's own that no longer applies stops it with nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn.agent.api import ToolCallEvent
from cairn.errors import CairnError
from tests.unit.test_agent_support import Recorder, call, make_engine, reply

ORIGINAL_A = "alpha\nbeta\ngamma\n"
ORIGINAL_B = "one\ntwo\n"
CONCURRENT_B = "one\ntwo\nthree (another session)\n"


class ConcurrentWriter(Recorder):
    """Writes b.txt right after the turn's edit_file call ended, as another session would."""

    def __init__(self, root: Path) -> None:
        super().__init__()
        self.root = root

    def on_tool_call(self, event: ToolCallEvent) -> None:
        super().on_tool_call(event)
        if event.call.name == "edit_file" and event.result is not None:
            (self.root / "b.txt").write_text(CONCURRENT_B)


def _turn_script() -> list[dict[str, object]]:
    return [
        reply("", call("edit_file", path="a.txt", old="beta", new="BETA")),
        reply("", call("run_command", command="touch c.txt")),
        reply("Done."),
    ]


async def _one_turn(root: Path) -> tuple[object, str, str]:
    (root / "a.txt").write_text(ORIGINAL_A)
    (root / "b.txt").write_text(ORIGINAL_B)
    writer = ConcurrentWriter(root)
    engine = make_engine(root, _turn_script(), writer, allowed_commands=["touch"])
    result = await engine.turn("change a and make c")
    assert result.changed_files == ["a.txt"]
    assert (root / "b.txt").read_text() == CONCURRENT_B
    assert (root / "c.txt").exists()
    [turn] = engine.session(result.session_id).meta().turns
    return engine, result.session_id, turn.id


async def test_restore_leaves_a_concurrent_edit_of_another_file_alone(tmp_path: Path) -> None:
    engine, session_id, turn_id = await _one_turn(tmp_path)
    try:
        restored = await engine.restore(session_id, turn_id)  # type: ignore[attr-defined]
        assert restored.restored_files == ["a.txt", "c.txt"]
        assert (tmp_path / "a.txt").read_text() == ORIGINAL_A
        assert not (tmp_path / "c.txt").exists(), "the turn's command made it: undone"
        assert (tmp_path / "b.txt").read_text() == CONCURRENT_B, "not the turn's: untouched"
    finally:
        engine.close()  # type: ignore[attr-defined]


async def test_a_later_conflicting_edit_of_the_same_file_refuses_and_writes_nothing(
    tmp_path: Path,
) -> None:
    engine, session_id, turn_id = await _one_turn(tmp_path)
    try:
        (tmp_path / "a.txt").write_text("alpha\nBETA, then the user's\ngamma\n")
        with pytest.raises(CairnError, match=r"a\.txt: changed since.*nothing was changed"):
            await engine.restore(session_id, turn_id)  # type: ignore[attr-defined]
        assert (tmp_path / "a.txt").read_text() == "alpha\nBETA, then the user's\ngamma\n"
        assert (tmp_path / "c.txt").exists()
        assert (tmp_path / "b.txt").read_text() == CONCURRENT_B
        turns = engine.session(session_id).meta().turns  # type: ignore[attr-defined]
        assert not any(t.reverted for t in turns)
    finally:
        engine.close()  # type: ignore[attr-defined]


async def test_a_user_edit_elsewhere_in_the_same_file_is_kept(tmp_path: Path) -> None:
    engine, session_id, turn_id = await _one_turn(tmp_path)
    try:
        (tmp_path / "a.txt").write_text("alpha\nBETA\ngamma\ndelta (the user's)\n")
        await engine.restore(session_id, turn_id)  # type: ignore[attr-defined]
        assert (tmp_path / "a.txt").read_text() == "alpha\nbeta\ngamma\ndelta (the user's)\n"
    finally:
        engine.close()  # type: ignore[attr-defined]
