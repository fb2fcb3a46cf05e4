"""The one output shortener: head, error lines and tail, the exact read_file hint, both paths."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from cairn.agent.tools import ToolContext, default_registry
from cairn.agent.tools.base import MAX_INLINE_OUTPUT_CHARS, OUTPUT_EXCERPT
from cairn.context.blocks import chat_candidate
from cairn.context.degrade import DegradeContext, degrade
from cairn.context.excerpt import ExcerptShape, excerpt, fitting_excerpt
from cairn.trace import Trace
from tests.unit.conftest import tool_context

REGISTRY = default_registry()
HINT = re.compile(r'read_file\("artifact:([\w-]+)", start_line=(\d+), end_line=(\d+)\)')
SCRIPT = "import sys\nfor i in range(6000):\n    print(f'step {i} ok')\n"
SCRIPT += "    if i == 3000:\n        print('Traceback (most recent call last):')\n"
SCRIPT += "        print('ValueError: the middle broke')\n"


def words(text: str) -> int:
    return len(text.split())


@pytest.fixture
def ctx(tmp_path: Path, trace: Trace) -> ToolContext:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "noisy.py").write_text(SCRIPT)
    return tool_context(root, trace, allowed_commands=["python3 noisy.py"])


async def call(ctx: ToolContext, name: str, **args: Any) -> Any:
    return await REGISTRY.run(name, args, ctx)


async def test_a_long_command_output_keeps_the_error_lines_from_its_middle(
    ctx: ToolContext,
) -> None:
    outcome = await call(ctx, "run_command", command="python3 noisy.py")
    assert outcome.ok
    shown = outcome.output
    assert len(shown) < MAX_INLINE_OUTPUT_CHARS
    assert "3002: Traceback (most recent call last):" in shown
    assert "3003: ValueError: the middle broke" in shown
    assert "step 2000 ok" not in shown
    assert "step 0 ok" in shown and "step 5999 ok" in shown
    assert "characters omitted" in shown


async def test_the_hint_names_the_artifact_and_exactly_the_lines_left_out(
    ctx: ToolContext, trace: Trace
) -> None:
    outcome = await call(ctx, "run_command", command="python3 noisy.py")
    match = HINT.search(outcome.output)
    assert match is not None, outcome.output
    artifact_id, start, end = match[1], int(match[2]), int(match[3])
    assert artifact_id == outcome.artifact_id
    full = trace.read_artifact(artifact_id).decode().splitlines()
    shown = outcome.output.splitlines()
    assert shown[shown.index(full[start - 2]) + 1].startswith("[... ")  # the last head line
    assert full[end] in shown  # the first tail line
    assert full[start - 1] not in shown and full[end - 1] not in shown
    continued = await call(
        ctx, "read_file", path=f"artifact:{artifact_id}", start_line=start, end_line=start + 2
    )
    assert [line.split("\t", 1)[1] for line in continued.output.splitlines()[:3]] == full[
        start - 1 : start + 2
    ]


async def test_one_very_long_line_is_cut_and_the_artifact_keeps_it_whole(
    ctx: ToolContext, trace: Trace
) -> None:
    minified = "var a=1;" * 10_000
    (ctx.workspace.root / "min.js").write_text(minified + "\n")
    ctx.allowed_commands.append("cat min.js")
    outcome = await call(ctx, "run_command", command="cat min.js")
    assert len(outcome.output) < MAX_INLINE_OUTPUT_CHARS
    assert "[line cut: " in outcome.output
    assert f'read_file("artifact:{outcome.artifact_id}", start_line=1, end_line=1)' in (
        outcome.output
    )
    assert trace.read_artifact(outcome.artifact_id).decode().startswith(minified)


def test_the_excerpt_shrinks_until_it_fits_and_names_what_it_dropped() -> None:
    lines = [f"line {i}" for i in range(1_000)]
    text = "\n".join(lines)
    shown = fitting_excerpt(text, 600, len, OUTPUT_EXCERPT, artifact_id="log-1")
    assert shown is not None and len(shown) <= 600
    match = HINT.search(shown)
    assert match is not None
    start, end = int(match[2]), int(match[3])
    head = shown.splitlines()[: start - 1]
    assert head == lines[: start - 1]
    assert shown.splitlines()[-(1_000 - end) :] == lines[end:]


def test_nothing_to_leave_out_is_no_excerpt() -> None:
    assert excerpt(["a", "b"], [], ExcerptShape(1, 1, 1)) is None
    assert fitting_excerpt("x" * 5_000 + "\n" + "y" * 5_000, 10, len, ExcerptShape(4, 4, 4)) is None


def test_history_excerpts_hint_a_line_range_only_into_an_exact_copy() -> None:
    rows = [f"row {i} fine" for i in range(400)]
    rows[200] = "error: at row 200"
    output = "\n".join(rows) + "\n"
    messages = [{"role": "tool", "tool_call_id": "c1", "content": output}]
    stored: list[str] = []

    def store(text: str, kind: str) -> str:
        stored.append(text)
        return "log-exact"

    reused = chat_candidate("history", 55, messages, count=words, seq=1.0, artifacts={0: "log-raw"})
    smaller = degrade(reused, 300, DegradeContext(words, store_artifact=store))
    assert smaller is not None and smaller.messages is not None
    content = smaller.messages[0]["content"]
    assert "artifact log-raw" in content and HINT.search(content) is None and stored == []

    fresh = chat_candidate("history", 55, messages, count=words, seq=1.0)
    smaller = degrade(fresh, 300, DegradeContext(words, store_artifact=store))
    assert smaller is not None and smaller.messages is not None
    match = HINT.search(smaller.messages[0]["content"])
    assert match is not None and match[1] == "log-exact" and stored == [output]
    assert "201: error: at row 200" in smaller.messages[0]["content"]
