"""Hostile input: the largest single-line input per source that adds ≤ 100 ms to a context build.

Each source — the user message, an open buffer, a tool's output, an MCP
tool's result, AGENTS.md — gets one line without a sentence end or newline
(base64-like, the paste that made the open-questions pattern quadratic)
followed by unclosed backtick runs, at doubling sizes from 1 KB; a build is
`next_context` of the read-only engine (what `cairn context` runs) on a copy
of `tests/workspaces/context_small` with the scripted model, the median of
`--repeats` runs. A user message over the model's window is refused for its
size (a `BudgetError`, itself timed). What is reported is the time an input
adds to the same build with a one-character input (the baseline, shown): per
source, the largest size that adds at most `BUDGET_MS`, and the added time at
each size.

Run: `.venv/bin/python -m bench.hostile_input [--repeats N] [--max-kb K] [--write]`.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from bench.harness.paths import ROOT
from bench.harness.records import Figure
from bench.harness.writer import record, this_run
from cairn.agent.read_only import ReadOnlyEngine
from cairn.commands.context_dry_run import next_context
from cairn.errors import BudgetError
from cairn.models.messages import Message, TextPart, ToolCallPart, ToolResultPart
from cairn.settings import Settings
from cairn.trace import TraceStore

FIXTURE = ROOT / "tests" / "workspaces" / "context_small"
BUDGET_MS = 100.0
START_BYTES = 1024
# The input of the baseline build each size is compared with.
BASELINE_CHARS = 1
MCP_TOOL = "mcp__docs__search"
SOURCES = ("user message", "buffer", "tool output", "MCP result", "AGENTS.md")


def hostile(size: int) -> str:
    """`size` characters: a base64-like run, then backtick runs of growing width."""
    half = size // 2
    line = ("QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo" * (half // 35 + 1))[:half]
    parts, width, total = [line], 1, half
    while total < size:
        parts.append("`" * width + "a")
        total += width + 1
        width += 1
    return "".join(parts)[:size]


def _engine(root: Path, source: str, text: str) -> tuple[ReadOnlyEngine, str | None, str]:
    """The engine, the session and the message of a build with `text` in `source`."""
    if source == "AGENTS.md":
        (root / "AGENTS.md").write_text(text + "\n", encoding="utf-8")
    session_id: str | None = None
    if source in ("tool output", "MCP result"):
        name = "run_command" if source == "tool output" else MCP_TOOL
        trace = TraceStore(root / ".cairn").create(title="bench")
        trace.append_message(Message(id="m1", role="user", parts=[TextPart(text="look")]))
        call = ToolCallPart(call_id="c1", name=name, arguments={})
        trace.append_message(Message(id="m2", role="assistant", parts=[call]))
        result = ToolResultPart(call_id="c1", name=name, output=text)
        trace.append_message(Message(id="m3", role="tool", parts=[result]))
        session_id = trace.id
        trace.close()
    engine = ReadOnlyEngine([root], Settings(model="scripted/script.jsonl"))
    if source == "buffer":
        engine.workspace.open_buffer(root / "app" / "engine.py", text, version=1)
    return engine, session_id, text if source == "user message" else "go on"


def build_ms(source: str, size: int, repeats: int) -> tuple[float, str]:
    """Median milliseconds of a build with a `size`-character line in `source`, and its outcome."""
    times: list[float] = []
    outcome = "built"
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as folder:
            root = Path(folder) / "ws"
            shutil.copytree(FIXTURE, root)
            engine, session_id, message = _engine(root, source, hostile(size))
            started = time.perf_counter()
            try:
                next_context(engine, [], message, session_id, None)
            except BudgetError:
                outcome = "refused (size)"
            times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times), outcome


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--max-kb", type=int, default=4096)
    parser.add_argument("--write", action="store_true", help="record the run in bench/history")
    args = parser.parse_args()
    lines: list[str] = []
    figures: list[Figure] = []
    build_ms(SOURCES[0], BASELINE_CHARS, 1)  # imports, grammars: not part of any build
    lines.append(f"## Hostile input (≤ {BUDGET_MS:.0f} ms added to a context build)\n")
    lines.append("| source | baseline build | largest line within budget | added ms by size |")
    lines.append("| --- | --- | --- | --- |")
    print("\n".join(lines), flush=True)
    for source in SOURCES:
        baseline, _ = build_ms(source, BASELINE_CHARS, args.repeats)
        size, largest, shown = START_BYTES, 0, []
        while size <= args.max_kb * 1024:
            ms, outcome = build_ms(source, size, args.repeats)
            added = ms - baseline
            note = "" if outcome == "built" else f" {outcome}"
            shown.append(f"{size // 1024} KB: {added:+.0f}{note}")
            if added <= BUDGET_MS:
                largest = size
            size *= 2
        best = f"{largest // 1024} KB" if largest else f"< {START_BYTES // 1024} KB"
        row = f"| {source} | {baseline:.0f} ms | {best} | {'; '.join(shown)} |"
        print(row, flush=True)
        lines.append(row)
        name = f"{source}: largest single line adding ≤ {BUDGET_MS:.0f} ms to a build"
        figures.append(Figure(name, largest / 1024, "KB"))
    if args.write:
        record(this_run("hostile_input", figures, "\n".join(lines) + "\n"))


if __name__ == "__main__":
    main()
