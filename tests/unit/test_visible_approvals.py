"""What the user is asked is what runs (issue 26, item 5): hidden characters are shown, never acted on.

A command with a carriage return and an erase-line sequence once displayed
as ``Run `pytest -q`?`` on a terminal while `touch X` ran. Through a pty,
`cairn run` must show the `\\r` and `\\x1b` as text, and the ACP permission
title and tool output echoed to the terminal must carry no raw escape.
"""

from __future__ import annotations

import io
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

from cairn.acp.client import permission_call, permission_options
from cairn.agent.api import ApprovalRequest, CallSite
from cairn.commands.run import TerminalListener
from cairn.files.visible import KEEP_LINES, visible
from cairn.models.events import TurnEvent
from tests.unit.test_agent_support import call, reply, write_script

SPOOF = "touch X # \r\x1b[2KRun `pytest -q"
PROMPT_END = b"[N]o "
PTY_TIMEOUT_S = 120.0


def _read_until(fd: int, needle: bytes, deadline: float) -> bytes:
    seen = b""
    while needle not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # the child closed the pty
            break
        if not chunk:
            break
        seen += chunk
    return seen


def test_the_terminal_prompt_shows_hidden_characters_and_runs_what_it_showed(
    tmp_path: Path,
) -> None:
    model = write_script(tmp_path, [reply("", call("run_command", command=SPOOF)), reply("ok")])
    primary, secondary = pty.openpty()
    child = subprocess.Popen(
        [sys.executable, "-m", "cairn", "run", "-w", str(tmp_path), "--model", model, "go"],
        cwd=tmp_path,
        stdin=secondary,
        stdout=secondary,
        stderr=secondary,
        env={**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")},
    )
    os.close(secondary)
    try:
        deadline = time.monotonic() + PTY_TIMEOUT_S
        shown = _read_until(primary, PROMPT_END, deadline)
        assert PROMPT_END in shown, shown
        prompt = shown[shown.index(b"Run `") :]
        # Every byte of the command is on screen: no raw CR or ESC that could hide a part.
        assert b"\r\x1b" not in prompt and b"\x1b" not in prompt
        assert b"Run `touch X # \\r\\x1b[2KRun `pytest -q`?" in prompt
        os.write(primary, b"y\n")
        rest = _read_until(primary, b"turn stop", deadline)
        assert b"turn stop" in rest, rest
        assert b"\x1b[2K" not in rest  # the echoed tool line shows it as text too
    finally:
        if child.poll() is None:
            child.kill()
        child.wait(timeout=PTY_TIMEOUT_S)
        os.close(primary)
    assert (tmp_path / "X").exists()  # what ran is the command that was shown


def test_visible_escapes_controls_bidi_and_zero_width() -> None:
    assert visible(SPOOF) == "touch X # \\r\\x1b[2KRun `pytest -q"
    assert visible("rm -rf \u202e/ fdp\u200b\ufeff\x9b") == "rm -rf \\u202e/ fdp\\u200b\\ufeff\\x9b"
    assert visible("a\tb\nc\x07", KEEP_LINES) == "a\tb\nc\\x07"
    assert visible("plain `pytest -q` é 日本") == "plain `pytest -q` é 日本"


def test_the_acp_permission_shows_the_command_visibly() -> None:
    site = CallSite(session_id="s", call_id="c")
    request = ApprovalRequest(site=site, command=SPOOF)
    title = permission_call(request)["title"]
    assert "\x1b" not in title and "\r" not in title and "\\x1b[2K" in title
    assert all("\x1b" not in option["name"] for option in permission_options(SPOOF))


def test_tool_output_echoed_to_the_terminal_carries_no_escape() -> None:
    err = io.StringIO()
    out = io.StringIO()
    listener = TerminalListener(out=out, err=err)
    hostile = "\x1b]0;owned\x07\x1b]52;c;ZXZpbA==\x07\x1b[31mred"
    listener.on_turn_event(
        TurnEvent(
            session_id="s", turn_id="t", kind="toolEnd", tool="run_command", ok=True, text=hostile
        )
    )
    listener.on_turn_event(TurnEvent(session_id="s", turn_id="t", kind="text", text=hostile + "\n"))
    assert "\x1b" not in err.getvalue() and "\x07" not in err.getvalue()
    assert "\x1b" not in out.getvalue() and "\\x1b]52;" in out.getvalue()
