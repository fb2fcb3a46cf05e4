"""Large inputs are shrunk, not refused or cut blindly: files over the read limit are
excerpted by streaming, logs keep their error lines (with context) wherever they come
from, and command output keeps its middle's errors."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from cairn.agent.tools import ToolContext, default_registry
from cairn.agent.tools.base import MAX_INLINE_OUTPUT_CHARS, OUTPUT_EXCERPT
from cairn.agent.tools.run_command import MAX_CAPTURE_BYTES
from cairn.context.excerpt import (
    ExcerptShape,
    TextLines,
    excerpt_of,
    fitting_excerpt,
    is_error_line,
)
from cairn.context.references import reference_blocks
from cairn.files.reading import MAX_FILE_BYTES, read_sample_bounded
from cairn.files.sampling import SampleShape
from cairn.files.workspace import Workspace
from cairn.trace import Trace
from tests.unit.conftest import tool_context
from tests.unit.test_agent_support import call as model_call
from tests.unit.test_agent_support import make_engine, reply

REGISTRY = default_registry()
TRACEBACK = [
    "Traceback (most recent call last):",
    '  File "app/worker.py", line 88, in run',
    "    result = compute(job)",
    "ZeroDivisionError: division by zero",
]


def log_text(total_bytes: int) -> str:
    """A log of about `total_bytes`, with a traceback in its middle."""
    line = "2026-12-01 10:00:00 INFO worker handled job {i:08d} in 12 ms"
    count = total_bytes // (len(line) + 1) + 1
    lines = [line.format(i=i) for i in range(count)]
    lines[count // 2 : count // 2] = TRACEBACK
    return "\n".join(lines) + "\n"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    return folder


GENERATOR = "gen.py"
COMMAND = f"{sys.executable} {GENERATOR}"


@pytest.fixture
def ctx(root: Path, trace: Trace) -> ToolContext:
    return tool_context(root, trace, allowed_commands=[COMMAND])


async def run_script(ctx: ToolContext, root: Path, script: str) -> Any:
    (root / GENERATOR).write_text(script)
    return await call(ctx, "run_command", command=COMMAND)


async def call(ctx: ToolContext, name: str, **args: Any) -> Any:
    return await REGISTRY.run(name, args, ctx)


def test_a_reference_to_a_log_over_the_read_limit_is_excerpted_by_streaming(root: Path) -> None:
    text = log_text(2 * MAX_FILE_BYTES)
    (root / "server.log").write_text(text)
    (block,) = reference_blocks(Workspace([root]), ["@server.log"], ignore=None, count=len)
    assert block.included and block.kind == "log"
    total = len(text.splitlines())
    shown = 40 + len(TRACEBACK) + 2 * 2 + 60  # head, the error lines with context, tail
    assert block.reason == (
        f"excerpt: {shown} of {total} lines (head, error lines, tail);"
        ' read_file("server.log", start_line, end_line) shows any range'
    )
    assert len(block.text) < 50_000
    for line in TRACEBACK:
        assert line in block.text
    assert "job 00000000" in block.text and text.splitlines()[-1] in block.text
    assert 'read_file("server.log", start_line=' in block.text


async def test_every_manifest_of_a_turn_says_a_streamed_reference_is_an_excerpt(
    root: Path,
) -> None:
    (root / "server.log").write_text(log_text(2 * MAX_FILE_BYTES))
    engine = make_engine(root, [reply("", model_call("read_file", path=GENERATOR)), reply("Seen.")])
    (root / GENERATOR).write_text("print(1)\n")
    try:
        dry = await engine.context_manifest(None, "what failed in @server.log?")
        result = await engine.turn("what failed in @server.log?")
        manifests = engine.session(result.session_id).trace.manifests()
        assert len(manifests) == 2  # attached at the first call, read from history later
        for manifest in [dry, *manifests]:
            (block,) = [b for b in manifest.blocks if b.ref == "server.log"]
            assert block.included and block.reason is not None
            assert block.reason.startswith("excerpt: ")
            assert block.reason.endswith(
                '(head, error lines, tail); read_file("server.log", start_line, end_line)'
                " shows any range"
            )
    finally:
        engine.close()


def test_a_binary_file_over_the_read_limit_stays_refused(root: Path) -> None:
    (root / "blob.bin").write_bytes(b"\0\1\2" * MAX_FILE_BYTES)
    (block,) = reference_blocks(Workspace([root]), ["@blob.bin"], ignore=None, count=len)
    assert not block.included and block.reason is not None and "binary" in block.reason


async def test_read_file_streams_a_file_over_the_read_limit(ctx: ToolContext, root: Path) -> None:
    text = log_text(2 * MAX_FILE_BYTES)
    (root / "big.log").write_text(text)
    whole = await call(ctx, "read_file", path="big.log")
    assert whole.ok and len(whole.output) <= MAX_INLINE_OUTPUT_CHARS * 2
    assert TRACEBACK[-1] in whole.output and TRACEBACK[1] in whole.output
    lines = text.splitlines()
    middle = lines.index(TRACEBACK[0])
    part = await call(ctx, "read_file", path="big.log", start_line=middle + 1, end_line=middle + 4)
    assert part.ok
    assert [row.split("\t", 1)[1] for row in part.output.splitlines()[:4]] == TRACEBACK
    assert f"of {len(lines)}]" in part.output


async def test_read_file_of_a_long_log_shows_its_error_lines(ctx: ToolContext, root: Path) -> None:
    (root / "run.txt").write_text(log_text(MAX_FILE_BYTES // 4))
    outcome = await call(ctx, "read_file", path="run.txt")
    assert outcome.ok and len(outcome.output) <= MAX_INLINE_OUTPUT_CHARS
    for line in TRACEBACK:
        assert line in outcome.output


async def test_run_command_output_keeps_error_lines_and_their_context(
    ctx: ToolContext, root: Path
) -> None:
    script = (
        "import sys\n"
        "for i in range(4000): print(f'tests/test_m.py::test_{i} PASSED' + ' ' * 60 + '[ 50%]')\n"
        "print('Traceback (most recent call last):')\n"
        "print('  File \"pkg/mod.py\", line 12, in f')\n"
        "print('ValueError: bad input')\n"
        "for i in range(4000): print(f'tests/test_n.py::test_{i} PASSED' + ' ' * 60 + '[ 90%]')\n"
    )
    outcome = await run_script(ctx, root, script)
    assert outcome.ok and len(outcome.output) <= MAX_INLINE_OUTPUT_CHARS + 500
    assert "ValueError: bad input" in outcome.output
    assert 'File "pkg/mod.py", line 12, in f' in outcome.output


async def test_run_command_output_past_the_capture_limit_keeps_its_end(
    ctx: ToolContext, root: Path
) -> None:
    lines = MAX_CAPTURE_BYTES // 100 + 5_000
    script = (
        "import sys\n"
        f"sys.stdout.write(('x' * 99 + chr(10)) * {lines})\n"
        "print('FAILED tests/test_z.py::test_last - AssertionError')\n"
        "print('=== 1 failed, 10 passed ===')\n"
    )
    outcome = await run_script(ctx, root, script)
    assert outcome.ok
    assert "=== 1 failed, 10 passed ===" in outcome.output
    assert "FAILED tests/test_z.py::test_last" in outcome.output


def test_error_lines_outlast_head_and_tail_when_an_excerpt_shrinks() -> None:
    lines = [f"step {i} " + "." * 150 for i in range(3_000)]
    errors = [f"src/m{i}.c:{i}:1: error: expected ';'" for i in range(40)]
    for offset, error in enumerate(errors):
        lines[1_000 + offset * 40] = error
    text = "\n".join(lines)
    shown = fitting_excerpt(text, MAX_INLINE_OUTPUT_CHARS, len, OUTPUT_EXCERPT)
    assert shown is not None and len(shown) <= MAX_INLINE_OUTPUT_CHARS
    for error in errors:
        assert error in shown


def test_a_streamed_sample_renders_the_same_excerpt_as_the_whole_text(tmp_path: Path) -> None:
    text = log_text(300_000) + "trailing line without newline"
    path = tmp_path / "x.log"
    path.write_text(text)
    shape = ExcerptShape(20, 30, 40)
    sample = read_sample_bounded(
        path, SampleShape(20, 30, 40, shape.context, 10_000), is_error_line
    )
    ref = "x.log"
    assert excerpt_of(sample.sample, shape, ref=ref) == excerpt_of(
        TextLines(text.splitlines()), shape, ref=ref
    )


def test_a_streamed_excerpt_follows_the_file_when_it_changes(root: Path) -> None:
    path = root / "grow.log"
    path.write_text(log_text(2 * MAX_FILE_BYTES))
    workspace = Workspace([root])
    (first,) = reference_blocks(workspace, ["@grow.log"], ignore=None, count=len)
    with path.open("a") as log:
        log.write("2026-12-01 11:00:00 FATAL disk full on /var\n")
    (second,) = reference_blocks(workspace, ["@grow.log"], ignore=None, count=len)
    assert "disk full" not in first.text and "disk full" in second.text
