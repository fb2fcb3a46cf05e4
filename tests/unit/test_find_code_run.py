"""`find_code` end to end: a scripted `cairn run` asks for a symbol and gets its file."""

from __future__ import annotations

import json
from pathlib import Path

from cairn.context.sources.mode import MODE_TOOLS
from tests.unit.test_agent_support import call, reply, write_script
from tests.unit.test_cli_run import cairn

PARSER = """\
class Parser:
    def parse(self, text):
        return self._split_header(text)

    def _split_header(self, text):
        head, _, rest = text.partition("\\n")
        return head, rest
"""


def test_find_code_is_read_only_and_offered_in_every_mode() -> None:
    assert all("find_code" in tools for tools in MODE_TOOLS.values())


def test_find_code_through_cairn_run(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "parser.py").write_text(PARSER)
    (tmp_path / "pkg" / "other.py").write_text("def helper():\n    return 1\n")
    model = write_script(
        tmp_path,
        [
            reply("", call("find_code", query="Parser._split_header drops the header")),
            reply("Found it."),
        ],
    )
    done = cairn(tmp_path, "run", "--workspace", str(tmp_path), "--model", model, "find it")
    assert done.returncode == 0, done.stderr
    assert "✓ find_code" in done.stderr
    traces = list((tmp_path / ".cairn" / "traces").glob("*/messages.jsonl"))
    [messages] = traces
    results = [
        json.loads(line)
        for line in messages.read_text().splitlines()
        if '"tool"' in line and "find_code" in line
    ]
    text = json.dumps(results)
    assert "1. pkg/parser.py" in text
    assert "_split_header: lines 5-7" in text
