"""Benchmark: open editor tabs against the turn's own work, main's policy vs the in-play one.

    .venv/bin/python -m bench.open_tabs [--tabs 30 60] [--calls 6] [--repeats 5] [--no-write]

Corpus: pydantic's sources as installed in this venv (real modules, 1-120 KB),
copied to a scratch folder. The editor has N of them open as tabs (N = 30, 60:
the first N of 2 KB or more by path); the last one opened is the active file.
A turn then reads other modules, one `read_file` per call, so call k has the
turn's first k-1 results in its history.

Both policies go through the same `ContextBuilder` in the same run, gpt-4o's
window (128k), default settings:
- before (main up to issue 12): every open tab is in play, shown whole at
  `PRIORITY_BUFFER` (above recent history);
- after: the active file whole, at most `open_tabs_max` (8) other tabs as
  outlines at `PRIORITY_LOW_RELEVANCE`, below the turn's own history.

Reported per N: buffer tokens per call (median), how many of the turn's
read results were sent whole / shrunk / dropped over all calls, and the
median build time. Recorded (`bench/history/open_tabs.jsonl`, `bench/RESULTS.md`) unless
`--no-write`.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pydantic

from bench.harness.machine import current_machine
from bench.harness.records import Figure
from bench.harness.writer import invocation, record, this_run
from cairn.context.builder import BuiltContext, ContextBuilder, GatherRequest
from cairn.files.workspace import Workspace
from cairn.models.messages import Message, TextPart, ToolCallPart, ToolResultPart
from cairn.settings import Settings
from cairn.tokens import counter as tokens
from cairn.tokens.counter import O200K

MODEL = "gpt-4o"
MIN_TAB_BYTES = 2_048
DEFAULT_TABS = (30, 60)
DEFAULT_CALLS = 6
DEFAULT_REPEATS = 5
DESCRIPTION = "Open editor tabs vs the turn's own reads: main's in-play policy vs issue 12's."


@dataclass
class Outcome:
    buffer_tokens: list[int]
    whole: int = 0
    shrunk: int = 0
    dropped: int = 0
    seconds: float = 0.0


def turn_history(root: Path, reads: list[Path], calls: int) -> list[Message]:
    out = [Message(id="u", role="user", parts=[TextPart(text="How are validators run?")])]
    for n, module in enumerate(reads[:calls]):
        rel = module.relative_to(root).as_posix()
        out.append(
            Message(
                id=f"a{n}",
                role="assistant",
                parts=[ToolCallPart(call_id=f"c{n}", name="read_file", arguments={"path": rel})],
            )
        )
        result = ToolResultPart(call_id=f"c{n}", name="read_file", output=module.read_text())
        out.append(Message(id=f"t{n}", role="tool", parts=[result]))
    return out


def build(builder: ContextBuilder, history: list[Message], in_play: list[Path]) -> BuiltContext:
    return builder.build(
        GatherRequest(
            session_id="bench",
            model=MODEL,
            history=tuple(history),
            user_message="How are validators run?",
            files_in_play=tuple(in_play),
        )
    )


def run_policy(
    root: Path, tabs: list[Path], reads: list[Path], calls: int, before: bool
) -> Outcome:
    workspace = Workspace([root])
    for path in tabs:
        workspace.open_buffer(path, path.read_text())
    options = {"open_tabs": "off"} if before else {}
    builder = ContextBuilder(workspace, Settings.model_validate(options))
    in_play = list(tabs) if before else [tabs[-1]]
    outcome = Outcome(buffer_tokens=[])
    started = time.perf_counter()
    for call in range(1, calls + 1):
        built = build(builder, turn_history(root, reads, call - 1), in_play)
        outcome.buffer_tokens.append(
            sum(b.tokens for b in built.blocks if b.source == "buffer" and b.included)
        )
        for block in built.blocks:
            if block.source != "history" or not (block.ref or "").startswith("a"):
                continue
            if not block.included:
                outcome.dropped += 1
            elif block.reason:
                outcome.shrunk += 1
            else:
                outcome.whole += 1
    outcome.seconds = (time.perf_counter() - started) / calls
    return outcome


def corpus(scratch: Path) -> tuple[Path, list[Path]]:
    source = Path(pydantic.__file__).parent
    root = scratch / "pydantic"
    shutil.copytree(source, root, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    modules = sorted(p for p in root.rglob("*.py") if p.stat().st_size >= MIN_TAB_BYTES)
    return root, modules


def line(label: str, result: Outcome) -> str:
    return (
        f"{label}: buffer tokens per call {int(statistics.median(result.buffer_tokens))};"
        f" turn's reads whole {result.whole}, shrunk {result.shrunk}, dropped {result.dropped};"
        f" build {result.seconds * 1000:.0f} ms"
    )


def measure(count: int, calls: int, repeats: int, scratch: Path) -> tuple[list[str], list[Figure]]:
    root, modules = corpus(scratch / f"n{count}")
    tabs, reads = modules[:count], modules[count:]
    results: dict[bool, list[Outcome]] = {True: [], False: []}
    for _ in range(repeats):
        for before in (True, False):
            results[before].append(run_policy(root, tabs, reads, calls, before))
    out: list[str] = []
    medians: dict[bool, float] = {}
    for before, label in ((True, "before (all tabs in play, whole)"), (False, "after")):
        runs = results[before]
        medians[before] = statistics.median(r.seconds for r in runs)
        middle = sorted(runs, key=lambda r: r.seconds)[len(runs) // 2]
        out.append(f"  - {line(label, middle)}")
    tokens_before = statistics.median(results[True][0].buffer_tokens)
    tokens_after = statistics.median(results[False][0].buffer_tokens)
    out.append(
        f"  - ratio before / after: buffer tokens {tokens_before / max(tokens_after, 1):.1f}x,"
        f" build time {medians[True] / medians[False]:.1f}x"
    )
    figure = Figure(
        f"{count} open tabs: buffer tokens per call (lower is better)",
        tokens_after,
        "tokens",
        tokens_before,
        "main's policy: all tabs in play, whole",
    )
    return [f"- {count} open tabs ({calls} calls, median of {repeats} runs):", *out], [figure]


def main() -> None:
    parser = argparse.ArgumentParser(description=DESCRIPTION)
    parser.add_argument("--tabs", type=int, nargs="+", default=list(DEFAULT_TABS))
    parser.add_argument("--calls", type=int, default=DEFAULT_CALLS)
    parser.add_argument("--repeats", type=int, default=DEFAULT_REPEATS)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    tokens.get_encoding(O200K)
    machine = current_machine().describe()
    lines: list[str] = []
    figures: list[Figure] = []
    with tempfile.TemporaryDirectory() as scratch:
        for count in args.tabs:
            measured, measured_figures = measure(count, args.calls, args.repeats, Path(scratch))
            lines += measured
            figures += measured_figures
    tabs = [str(n) for n in args.tabs]
    command = invocation(
        "open_tabs", ["--tabs", *tabs, "--calls", str(args.calls), "--repeats", str(args.repeats)]
    )
    report = "\n".join(
        [
            "",
            "## Open tabs vs the turn's own work (issue 12): main's in-play policy vs the new one",
            "",
            f"- command: `{command}`",
            f"- machine: {machine} (shared with other helpers, load at the start)",
            f"- corpus: pydantic {pydantic.VERSION} sources (modules of {MIN_TAB_BYTES} B or"
            f" more), model {MODEL}, default settings",
            *lines,
            "",
        ]
    )
    sys.stdout.write(report)
    if not args.no_write:
        record(this_run("open_tabs", figures, report, command))


if __name__ == "__main__":
    main()
