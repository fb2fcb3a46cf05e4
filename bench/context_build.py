"""Benchmark: one `ContextBuilder.build` per model call, with and without the token-count cache.

    .venv/bin/python -m bench.context_build [--repeats N] [--no-write]

Workspace: a copy of this repository's `server/` folder (no git, so no diff).
Session: a synthetic history of `TURNS` turns, each a user message, an
assistant `read_file` call whose result is a real module of the workspace,
and an answer — far more than gpt-4o's window, so selection drops history
and degrades large blocks. Files in play: the three largest modules.

Measured in one process, same inputs, the encodings loaded first:
- cached: `count_tokens` as shipped (bounded LRU keyed by content hash); the
  first build fills the cache, the median of the next `repeats` is reported;
- peer: the same builds with a zero-capacity cache (every block re-encoded
  on every call, what a builder without the cache would do).
Results are recorded (`bench/history/context_build.jsonl`, `bench/RESULTS.md`) unless
`--no-write`.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench.harness.machine import current_machine
from bench.harness.paths import ROOT as REPO_ROOT
from bench.harness.records import Figure
from bench.harness.writer import invocation, record, this_run
from cairn.context.builder import ContextBuilder, GatherRequest
from cairn.files.workspace import Workspace
from cairn.models.messages import Message, TextPart, ToolCallPart, ToolResultPart
from cairn.settings import Settings
from cairn.tokens import counter as tokens
from cairn.tokens.counter import O200K, TokenCounter

MODEL = "gpt-4o"
TURNS = 120
FILES_IN_PLAY = 3
DEFAULT_REPEATS = 15
DESCRIPTION = "Time ContextBuilder.build with and without the token-count cache."


def history(root: Path, modules: list[Path]) -> list[Message]:
    out: list[Message] = []
    for turn in range(TURNS):
        module = modules[turn % len(modules)]
        rel = module.relative_to(root).as_posix()
        call_id = f"c{turn}"
        out += [
            Message(id=f"u{turn}", role="user", parts=[TextPart(text=f"What does {rel} do?")]),
            Message(
                id=f"a{turn}",
                role="assistant",
                parts=[ToolCallPart(call_id=call_id, name="read_file", arguments={"path": rel})],
            ),
            Message(
                id=f"t{turn}",
                role="tool",
                parts=[
                    ToolResultPart(call_id=call_id, name="read_file", output=module.read_text())
                ],
            ),
            Message(id=f"r{turn}", role="assistant", parts=[TextPart(text=f"{rel} is a module.")]),
        ]
    return out


def store(text: str, kind: str) -> str:
    return f"artifact-{len(text)}"


def timed_builds(builder: ContextBuilder, request: GatherRequest, repeats: int) -> list[float]:
    builder.build(request, store)  # first build: fills whichever cache is in place
    times: list[float] = []
    for _ in range(repeats):
        start = time.perf_counter()
        builder.build(request, store)
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=DESCRIPTION)
    parser.add_argument("--repeats", type=int, default=DEFAULT_REPEATS)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    tokens.get_encoding(O200K)
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "server"
        shutil.copytree(REPO_ROOT / "server", root, ignore=shutil.ignore_patterns("__pycache__"))
        modules = sorted(root.rglob("*.py"), key=lambda p: -p.stat().st_size)
        builder = ContextBuilder(Workspace([root]), Settings())
        request = GatherRequest(
            session_id="bench",
            model=MODEL,
            history=tuple(history(root, modules)),
            user_message=f"What does {modules[0].name} do?",
            files_in_play=tuple(modules[:FILES_IN_PLAY]),
        )
        built = builder.build(request, store)
        cached = timed_builds(builder, request, args.repeats)
        tokens.DEFAULT_COUNTER = TokenCounter(capacity=0)
        uncached = timed_builds(builder, request, args.repeats)
    manifest = built.manifest
    dropped = sum(1 for b in manifest.blocks if not b.included)
    median_cached = statistics.median(cached) * 1000
    median_uncached = statistics.median(uncached) * 1000
    command = invocation("context_build", ["--repeats", str(args.repeats)])
    report = "\n".join(
        [
            "",
            "## Context build (H3): token-count cache vs re-encoding every call",
            "",
            f"- command: `{command}`",
            f"- machine: {current_machine().describe()}",
            f"- input: {len(request.history)} messages, {len(manifest.blocks)} blocks"
            f" ({dropped} dropped), {manifest.used_input} of {manifest.available_input}"
            f" input tokens used, model {MODEL}",
            f"- median build, cached counts: {median_cached:.1f} ms",
            f"- median build, peer (no cache, every block re-encoded): {median_uncached:.1f} ms",
            f"- ratio peer / cached: {median_uncached / median_cached:.1f}x",
            "",
        ]
    )
    sys.stdout.write(report)
    if not args.no_write:
        figure = Figure(
            "median build, cached token counts (lower is better)",
            round(median_cached, 1),
            "ms",
            round(median_uncached, 1),
            "no cache, every block re-encoded",
        )
        record(this_run("context_build", [figure], report, command))


if __name__ == "__main__":
    main()
