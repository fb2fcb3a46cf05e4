"""One paste never freezes a context build (issue 26, item 7): 1 MB single-line inputs per source.

A long line without `.`, `!`, `?` or a newline (a base64 blob, a JWT, a data
URI) once made the open-questions pattern quadratic: a 60 KB paste took a
minute. Each source — the user message, an open buffer, a tool's output, an
MCP tool's result, AGENTS.md — gets a 1 MB single line of such text (and of
unmatched backtick runs, which made the inline-code pattern quadratic; a
source file of unclosed `/*` made the repository map's comment blanking
quadratic), and a context build must finish: the guard is a generous wall clock
(pytest-timeout), not a timing assertion.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cairn.agent.read_only import ReadOnlyEngine
from cairn.commands.context_dry_run import next_context
from cairn.compaction.ledger import open_questions
from cairn.context.mentions import mentions
from cairn.errors import BudgetError
from cairn.models.messages import Message, TextPart, ToolCallPart, ToolResultPart
from cairn.repomap.jsnames import JS_NOISE
from cairn.repomap.tags import NOISE_PATTERNS, blank_noise, scan
from cairn.settings import Settings
from cairn.trace import TraceStore

FIXTURE = Path(__file__).resolve().parents[1] / "workspaces" / "context_small"
ONE_MB = 1024 * 1024
# Seconds: a linear build of these inputs takes a few; the quadratic one took hours.
BUILD_GUARD_S = 240
MCP_TOOL = "mcp__docs__search"


def blob(size: int = ONE_MB) -> str:
    """A single line without a sentence end (base64-like), ending with a question."""
    return ("QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo" * (size // 35 + 1))[:size] + " is that ok?"


def backtick_runs(size: int = ONE_MB) -> str:
    """A single line of backtick runs of growing length, none closed."""
    parts: list[str] = []
    width, total = 1, 0
    while total < size:
        parts.append("`" * width + "a")
        total += width + 1
        width += 1
    return "".join(parts)


def test_a_long_line_is_scanned_once_by_the_text_patterns() -> None:
    assert open_questions([Message(id="m", role="user", parts=[TextPart(text=blob())])])
    assert mentions(backtick_runs() + " @app/engine.py") == ["app/engine.py"]


@pytest.mark.timeout(BUILD_GUARD_S)
def test_a_file_of_unclosed_block_comments_is_scanned_once() -> None:
    data = b"let a = 1 /* " * (ONE_MB // 13) + b"\n// tail"
    assert scan(data, "javascript") is not None and scan(data, "typescript") is not None
    # C, Go, Rust, Java: their comments are blanked by the same linear scan.
    assert blank_noise(NOISE_PATTERNS["c"], data).endswith(b"\n ")


@pytest.mark.parametrize(
    "data", [b"*//\n x", b"a /* b */ c // d */ e\nf /* g", b"/*/ x */ // y", b"//*/", b"x */ /* y"]
)
def test_linear_comment_blanking_matches_the_plain_pattern(data: bytes) -> None:
    for noise in (JS_NOISE, NOISE_PATTERNS["c"]):
        assert blank_noise(noise, data) == noise.sub(b" ", data)


@pytest.mark.timeout(BUILD_GUARD_S)
def test_a_context_build_handles_one_megabyte_lines_from_every_source(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    shutil.copytree(FIXTURE, root)
    (root / "AGENTS.md").write_text(blob() + backtick_runs() + "\n", encoding="utf-8")
    store = TraceStore(root / ".cairn")
    trace = store.create(title="hostile")
    calls = [
        ToolCallPart(call_id="c1", name="run_command", arguments={"command": "cat blob"}),
        ToolCallPart(call_id="c2", name=MCP_TOOL, arguments={"q": "x"}),
    ]
    results = [
        ToolResultPart(call_id="c1", name="run_command", output=blob()),
        ToolResultPart(call_id="c2", name=MCP_TOOL, output=backtick_runs()),
    ]
    trace.append_message(Message(id="m1", role="user", parts=[TextPart(text=blob())]))
    trace.append_message(Message(id="m2", role="assistant", parts=list(calls)))
    trace.append_message(Message(id="m3", role="tool", parts=list(results)))
    session_id = trace.id
    trace.close()
    engine = ReadOnlyEngine([root], Settings(model="scripted/script.jsonl"))
    engine.workspace.open_buffer(root / "app" / "engine.py", blob(), version=1)
    built = next_context(engine, [], "go on", session_id, None)
    assert built.blocks  # the build finished and selected something
    # A 1 MB message of its own is refused for its size, at once, naming the cure.
    with pytest.raises(BudgetError, match="shorten the message"):
        next_context(engine, [], blob() + backtick_runs(), session_id, None)
