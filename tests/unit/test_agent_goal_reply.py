"""The `goal` tool's reply starts with what the call changed (shown on activity lines)."""

from __future__ import annotations

import io
from pathlib import Path

from cairn.agent.engine import Engine
from cairn.commands.run import TerminalListener
from cairn.models.messages import ToolResultPart
from cairn.settings import Settings
from tests.unit.test_agent_support import call, reply, write_script


async def test_goal_calls_report_the_change_not_the_first_goal(tmp_path: Path) -> None:
    model = write_script(
        tmp_path,
        [
            reply("", call("goal", add="read the code, fix the bug")),
            reply("", call("goal", focus="2")),
            reply("", call("goal", add="write a test, patch it")),
            reply("", call("goal", focus="2.2")),
            reply("", call("goal", done="patched the sign\nand checked the callers")),
            reply("", call("goal", abandon="not needed after all")),
            reply("Planned."),
        ],
    )
    err = io.StringIO()
    terminal = TerminalListener(out=io.StringIO(), err=err)
    settings = Settings.model_validate({"model": model, "allowed_commands": []})
    engine = Engine([tmp_path], settings, listener=terminal)
    result = await engine.turn("plan it")
    assert result.finish_reason == "stop"
    assert [line for line in err.getvalue().splitlines() if "goal:" in line] == [
        "  ✓ goal: added 1, 2",
        "  ✓ goal: focus 2",
        "  ✓ goal: added 2.1, 2.2",
        "  ✓ goal: focus 2.2",
        "  ✓ goal: done 2.2: patched the sign (focus 2)",
        "  ✓ goal: abandoned 2: not needed after all",
    ]
    # The model still gets the whole plan below the summary line.
    outputs = [
        part.output
        for message in engine.store.open(result.session_id).messages()
        for part in message.parts
        if isinstance(part, ToolResultPart)
    ]
    rendered = engine.goal_tree(result.session_id).rendered
    assert outputs[-1] == f"abandoned 2: not needed after all\n{rendered}"
    engine.close()
