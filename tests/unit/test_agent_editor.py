"""The engine's editor side: call sites, session allowlists, tool-call events, history, folders."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cairn.agent.api import (
    Approval,
    ApprovalRequest,
    CallSite,
    CommandRequest,
    CommandRun,
)
from cairn.agent.engine import Engine
from cairn.errors import InvalidRequestError
from cairn.llm import reset_scripts
from cairn.models.messages import TextPart, ToolCallPart, ToolResultPart
from cairn.settings import Settings
from tests.unit.test_agent_support import Recorder, call, make_engine, reply, write_script

COMMAND = "touch made.txt"


def editor_engine(
    root: Path, lines: list[dict[str, Any]], allowed: list[str] | None = None, **callbacks: Any
) -> Engine:
    """An engine on `root` with the scripted `lines` and the editor callbacks given."""
    settings = Settings(model=write_script(root, lines), allowed_commands=allowed or [])
    return Engine([root], settings, **callbacks)


async def test_always_is_kept_for_the_session_and_survives_a_new_engine(tmp_path: Path) -> None:
    asked: list[ApprovalRequest] = []

    async def approver(request: ApprovalRequest) -> Approval:
        asked.append(request)
        return "always"

    lines = [
        reply("", call("run_command", command=COMMAND)),
        reply("ran it"),
        reply("", call("run_command", command=COMMAND)),
        reply("again"),
    ]
    engine = editor_engine(tmp_path, lines, approver=approver)
    first = await engine.turn("make it")
    await engine.turn("once more", session_id=first.session_id)
    assert [r.command for r in asked] == [COMMAND]
    [request] = asked
    assert request.site.session_id == first.session_id and request.site.call_id
    assert engine.session_meta(first.session_id).allowed_commands == [COMMAND]
    engine.close()

    async def never(request: ApprovalRequest) -> Approval:
        raise AssertionError("asked again")

    lines = [reply("", call("run_command", command=COMMAND)), reply("third")]
    reset_scripts()
    reopened = editor_engine(tmp_path, lines, approver=never)
    result = await reopened.turn("and again", session_id=first.session_id)
    assert result.finish_reason == "stop"
    reopened.close()


async def test_tool_call_events_carry_the_recorded_parts_and_the_edits(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("x = 1\n")
    recorder = Recorder()
    lines = [
        reply(
            "",
            call("read_file", path="app.py"),
            call("edit_file", path="app.py", old="x = 1", new="x = 2"),
        ),
        reply("", call("edit_file", path="new.txt", new="fresh\n")),
        reply("done"),
    ]
    engine = make_engine(tmp_path, lines, recorder)
    result = await engine.turn("change it")
    starts = [e for e in recorder.tool_calls if e.result is None]
    ends = [e for e in recorder.tool_calls if e.result is not None]
    assert [e.call.name for e in starts] == ["read_file", "edit_file", "edit_file"]
    assert [e.call.call_id for e in starts] == [e.call.call_id for e in ends]
    assert all(e.session_id == result.session_id and e.turn_id == result.turn_id for e in ends)
    read, edit, create = ends
    assert read.edits == () and read.result is not None and read.result.ok
    assert [(e.path.name, e.before, e.after) for e in edit.edits] == [
        ("app.py", "x = 1\n", "x = 2\n")
    ]
    assert [(e.path.name, e.before, e.after) for e in create.edits] == [
        ("new.txt", None, "fresh\n")
    ]
    recorded = engine.messages(result.session_id)
    calls = [p for m in recorded for p in m.parts if isinstance(p, ToolCallPart)]
    results = [p for m in recorded for p in m.parts if isinstance(p, ToolResultPart)]
    assert [c.call_id for c in calls] == [e.call.call_id for e in starts]
    assert [r.output for r in results] == [e.result.output for e in ends if e.result]
    assert recorded[0].role == "user" and isinstance(recorded[0].parts[0], TextPart)
    engine.close()


async def test_the_editor_reads_writes_and_runs_with_the_call_site(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("on disk = 1\n")
    sites: list[tuple[str, CallSite]] = []
    written: dict[Path, str] = {}

    async def read_text(site: CallSite, path: Path) -> str | None:
        sites.append(("read", site))
        return written.get(path, "in the editor = 1\n")

    async def apply_edit(site: CallSite, path: Path, text: str) -> bool:
        sites.append(("write", site))
        written[path] = text
        return True

    async def run_command(request: CommandRequest) -> CommandRun:
        sites.append(("run", request.site))
        return CommandRun(output="ok\n", exit_code=0)

    lines = [
        reply("", call("edit_file", path="app.py", old="in the editor = 1", new="edited = 2")),
        reply("", call("run_command", command="pytest")),
        reply("done"),
    ]
    engine = editor_engine(
        tmp_path,
        lines,
        ["pytest"],
        read_text=read_text,
        apply_edit=apply_edit,
        run_command=run_command,
    )
    result = await engine.turn("edit through the editor")
    assert result.finish_reason == "stop"
    assert written == {tmp_path / "app.py": "edited = 2\n"}
    assert (tmp_path / "app.py").read_text() == "on disk = 1\n"
    assert [kind for kind, _ in sites] == ["read", "read", "write", "run"]
    assert {site.session_id for _, site in sites} == {result.session_id}
    edit_calls = {site.call_id for kind, site in sites if kind != "run"}
    run_calls = {site.call_id for kind, site in sites if kind == "run"}
    assert len(edit_calls) == 1 and len(run_calls) == 1 and edit_calls != run_calls
    engine.close()


def test_set_folders_keeps_the_root_and_adds_folders(tmp_path: Path) -> None:
    root, extra = tmp_path / "root", tmp_path / "extra"
    root.mkdir()
    extra.mkdir()
    (extra / "lib.py").write_text("def helper(): ...\n")
    engine: Engine = make_engine(root, [])
    engine.set_folders([root, extra, extra])
    assert engine.workspace.folders == [root.resolve(), extra.resolve()]
    assert engine.workspace.resolve("lib.py") == (extra / "lib.py").resolve()
    with pytest.raises(InvalidRequestError, match="must stay"):
        engine.set_folders([extra])
    assert engine.workspace.folders == [root.resolve(), extra.resolve()]
    engine.close()


async def test_explore_branches_read_through_the_editor_as_the_parent_session(
    tmp_path: Path,
) -> None:
    (tmp_path / "app.py").write_text("on disk\n")
    sites: list[CallSite] = []

    async def read_text(site: CallSite, path: Path) -> str | None:
        sites.append(site)
        return "in the editor\n"

    lines = [
        reply("", call("explore", branches=["look"])),
        reply("", call("read_file", path="app.py"), agent="0"),
        reply("The editor says: in the editor.", agent="0"),
        reply("done"),
    ]
    engine = editor_engine(tmp_path, lines, read_text=read_text)
    result = await engine.turn("explore it")
    assert result.finish_reason == "stop"
    assert [site.session_id for site in sites] == [result.session_id]
    branch = next(
        p
        for m in engine.messages(result.session_id)
        for p in m.parts
        if isinstance(p, ToolResultPart) and p.name == "explore"
    )
    assert "in the editor" in branch.output
    engine.close()
