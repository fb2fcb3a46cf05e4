"""Benchmark: what the agent loop adds to each model call (context, tools, records, compaction).

    .venv/bin/python -m bench.agent_loop [--steps N] [--repeats N] [--no-write]

A scripted session of `steps` model calls, each a `read_file` of a module of
this repository's `server/cairn/context/` (copied to a temporary workspace),
then a final answer; the window is small enough that the session prunes and
summarises along the way. Measured in one process, after a warm-up run:
- engine: `Engine.turn` end to end (context build + manifest + model call +
  tool run + trace writes + compaction checks and compactions);
- peer: the same number of bare `ModelRuntime.complete` calls on the same
  scripted replies with a one-message context (the model call alone).
Reported: the median per-call milliseconds of `repeats` runs, and the ratio.
Results are recorded (`bench/history/agent_loop.jsonl`, `bench/RESULTS.md`) unless
`--no-write`.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import time
from pathlib import Path
from typing import Any

from bench.harness.machine import current_machine
from bench.harness.paths import ROOT
from bench.harness.records import Figure
from bench.harness.workspace import scratch, write_script
from bench.harness.writer import invocation, record, this_run
from cairn.agent.engine import Engine
from cairn.llm import ModelRuntime
from cairn.models.messages import CompactionPart
from cairn.settings import Settings

SOURCE = ROOT / "server" / "cairn" / "context"
SETTINGS = {
    "context_window": 24_000,
    "max_output_tokens": 1_000,
    "prune_minimum": 2_000,
    "prune_protect": 4_000,
    "allowed_commands": [],
}


def workspace(steps: int) -> tuple[Path, str]:
    folder = scratch("cairn-bench-")
    shutil.copytree(SOURCE, folder / "context")
    files = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.py"))
    lines: list[dict[str, Any]] = [
        {"toolCalls": [{"name": "read_file", "arguments": {"path": files[i % len(files)]}}]}
        for i in range(steps)
    ]
    lines.append({"text": "done"})
    return folder, write_script(folder, lines)


COMPACTIONS: list[dict[str, int]] = []


async def engine_run(steps: int) -> float:
    folder, model = workspace(steps)
    engine = Engine([folder], Settings.model_validate({"model": model, **SETTINGS}))
    started = time.perf_counter()
    result = await engine.turn("read every module")
    elapsed = time.perf_counter() - started
    assert result.finish_reason == "stop", result.error
    kinds: dict[str, int] = {}
    for message in engine.session(result.session_id).messages():
        for part in message.parts:
            if isinstance(part, CompactionPart):
                kinds[part.kind] = kinds.get(part.kind, 0) + 1
    COMPACTIONS.append(kinds)
    engine.close()
    shutil.rmtree(folder)
    return elapsed / (steps + 1)


async def bare_run(steps: int) -> float:
    folder, model = workspace(steps)
    runtime = ModelRuntime(Settings.model_validate({"model": model, **SETTINGS}), folder)
    messages = [{"role": "user", "content": "read every module"}]
    started = time.perf_counter()
    for _ in range(steps + 1):
        await runtime.complete(model, messages, None)
    elapsed = time.perf_counter() - started
    shutil.rmtree(folder)
    return elapsed / (steps + 1)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    await engine_run(5)
    await bare_run(5)
    engine_ms = statistics.median([await engine_run(args.steps) for _ in range(args.repeats)]) * 1e3
    bare_ms = statistics.median([await bare_run(args.steps) for _ in range(args.repeats)]) * 1e3
    command = invocation("agent_loop", ["--steps", str(args.steps), "--repeats", str(args.repeats)])
    report = f"""
## Agent loop overhead per model call (H6)

Command: `{command}`
Machine: {current_machine().describe()}.

| metric | engine turn | bare model call (peer) | ratio |
| --- | --- | --- | --- |
| median ms per call ({args.steps + 1} calls, {args.repeats} runs) | {engine_ms:.1f} | {bare_ms:.1f} | {engine_ms / bare_ms:.2f}× |

The engine's figure includes everything a real call pays besides the provider:
the context build, the manifest, running and recording the tool, trace fsyncs,
and the compactions this small window triggers (last run: {COMPACTIONS[-1]}).
"""
    print(report)
    if not args.no_write:
        figure = Figure(
            f"engine turn per model call, median ({args.steps + 1} calls)",
            round(engine_ms, 1),
            "ms",
            round(bare_ms, 1),
            "bare model call",
        )
        record(this_run("agent_loop", [figure], report, command))


if __name__ == "__main__":
    asyncio.run(main())
