"""Benchmark: what the secret-value redaction step costs per context build.

    .venv/bin/python -m bench.redaction_cost [--repeats N] [--no-write]

Workspace: a copy of this repository's `server/` folder (no git, so no diff).
Session: `TURNS` turns alternating a `read_file` of a real module and a
`run_command` whose output is a synthetic service log (timestamps, request
ids, stack traces, hex digests, a few credentials), sized so the context is
~100k tokens of gpt-4o's window (mixed code and logs); files in play: the
three largest modules.

Measured in one process, same inputs, encodings and token-count cache warm:
- off (peer): `redact_secrets = false`, the builder without the step;
- warm: redaction on, its content-hash cache filled by a first build (an
  unchanged block is not scanned again: the usual call of a session);
- next call: redaction on, each build with one new tool output (a service
  log of `LOG_LINES` lines) that has never been scanned, as in an agent loop
  (the peer gets its own new outputs, so neither finds the other's counts);
- cold: redaction on, a fresh redactor before every build (every candidate
  scanned, the history that selection then drops included: the first call
  of a session, the worst case).
Also the detector's raw throughput over the context's text. Results are
recorded (`bench/history/redaction_cost.jsonl`, `bench/RESULTS.md`) unless `--no-write`.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench.harness.machine import current_machine
from bench.harness.paths import ROOT as REPO_ROOT
from bench.harness.records import Figure
from bench.harness.timing import median_ms
from bench.harness.writer import invocation, record, this_run
from cairn.context.builder import ContextBuilder, GatherRequest
from cairn.files.redaction import Redactor
from cairn.files.workspace import Workspace
from cairn.models.messages import Message, TextPart, ToolCallPart, ToolResultPart
from cairn.settings import Settings
from cairn.tokens import counter as tokens
from cairn.tokens.counter import O200K

MODEL = "gpt-4o"
TURNS = 36
FILES_IN_PLAY = 3
LOG_LINES = 120
DEFAULT_REPEATS = 15
SEED = 15
DESCRIPTION = "Time ContextBuilder.build with the secret-redaction step on and off."
# Credentials sprinkled into the logs (assembled here so the file holds no literal one).
CREDENTIALS = (
    "AKIA" + "IOSFODNN7EXAMPLE",
    "ghp_" + "16C7e42F292c6912E7710c838347Ae178B4a",
    "xoxb-" + "123456789012-1234567890123-abcdefghijklmnopqrstuvwx",
)


def service_log(rng: random.Random, turn: int) -> str:
    lines: list[str] = []
    for n in range(LOG_LINES):
        stamp = f"2026-11-30T12:{n % 60:02d}:{rng.randrange(60):02d}.{rng.randrange(1000):03d}Z"
        kind = rng.random()
        if kind < 0.7:
            lines.append(
                f"{stamp} INFO request id={rng.getrandbits(64):016x} path=/api/v1/items/"
                f"{rng.randrange(10_000)} status=200 duration_ms={rng.randrange(400)}"
            )
        elif kind < 0.85:
            lines.append(f"{stamp} DEBUG cache key sha256={rng.getrandbits(256):064x} hit=true")
        elif kind < 0.97:
            lines += [
                f"{stamp} ERROR unhandled exception in worker {turn}",
                "Traceback (most recent call last):",
                '  File "/srv/app/handlers.py", line 88, in handle',
                "    result = self.backend.fetch(item_id)",
                "KeyError: 'item'",
            ]
        else:
            lines.append(f"{stamp} WARN using credential {rng.choice(CREDENTIALS)}")
    return "\n".join(lines)


def history(root: Path, modules: list[Path], rng: random.Random) -> list[Message]:
    out: list[Message] = []
    for turn in range(TURNS):
        module = modules[turn % len(modules)]
        rel = module.relative_to(root).as_posix()
        read, run = f"r{turn}", f"c{turn}"
        out += [
            Message(id=f"u{turn}", role="user", parts=[TextPart(text=f"Check {rel}.")]),
            Message(
                id=f"a{turn}",
                role="assistant",
                parts=[
                    ToolCallPart(call_id=read, name="read_file", arguments={"path": rel}),
                    ToolCallPart(call_id=run, name="run_command", arguments={"command": "logs"}),
                ],
            ),
            Message(
                id=f"t{turn}",
                role="tool",
                parts=[
                    ToolResultPart(call_id=read, name="read_file", output=module.read_text()),
                    ToolResultPart(call_id=run, name="run_command", output=service_log(rng, turn)),
                ],
            ),
            Message(id=f"d{turn}", role="assistant", parts=[TextPart(text="Looked at it.")]),
        ]
    return out


def timed(build: Callable[[int], object], repeats: int) -> list[float]:
    build(-1)  # fills whatever cache is in place
    times: list[float] = []
    for index in range(repeats):
        start = time.perf_counter()
        build(index)
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=DESCRIPTION)
    parser.add_argument("--repeats", type=int, default=DEFAULT_REPEATS)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    tokens.get_encoding(O200K)
    rng = random.Random(SEED)
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "server"
        shutil.copytree(REPO_ROOT / "server", root, ignore=shutil.ignore_patterns("__pycache__"))
        modules = sorted(root.rglob("*.py"), key=lambda p: -p.stat().st_size)
        base = history(root, modules, rng)
        # Separate new outputs per builder: neither finds the other's token counts cached.
        fresh = {
            side: [service_log(rng, 1000 + n) for n in range(args.repeats + 1)]
            for side in ("on", "off")
        }

        def request(extra: int | None = None, side: str = "on") -> GatherRequest:
            messages = list(base)
            if extra is not None:  # one new tool output never scanned before
                messages += [
                    Message(
                        id=f"x{extra}",
                        role="assistant",
                        parts=[ToolCallPart(call_id=f"x{extra}", name="run_command", arguments={})],
                    ),
                    Message(
                        id=f"y{extra}",
                        role="tool",
                        parts=[
                            ToolResultPart(
                                call_id=f"x{extra}", name="run_command", output=fresh[side][extra]
                            )
                        ],
                    ),
                ]
            return GatherRequest(
                session_id="bench",
                model=MODEL,
                history=tuple(messages),
                user_message=f"Check {modules[0].name}.",
                files_in_play=tuple(modules[:FILES_IN_PLAY]),
            )

        def store(text: str, kind: str) -> str:
            return f"artifact-{len(text)}"

        steady = request()
        new_tokens = tokens.count_tokens(fresh["on"][0], MODEL)
        off = ContextBuilder(Workspace([root]), Settings(redact_secrets=False))
        on = ContextBuilder(Workspace([root]), Settings())
        built = on.build(steady, store)
        context_text = "\n".join(b.text for b in built.blocks if b.included)

        def cold(_index: int) -> object:
            on.redactor = Redactor()
            return on.build(steady, store)

        times = {
            "off": timed(lambda _i: off.build(steady, store), args.repeats),
            "warm": timed(lambda _i: on.build(steady, store), args.repeats),
            "next call": timed(lambda i: on.build(request(i + 1), store), args.repeats),
            "next call, off": timed(
                lambda i: off.build(request(i + 1, "off"), store), args.repeats
            ),
            "cold": timed(cold, args.repeats),
        }
        scanner = Redactor()
        scans = [0.0] * args.repeats
        for index in range(args.repeats):
            start = time.perf_counter()
            scanner.spans(context_text)
            scans[index] = time.perf_counter() - start
    manifest = built.manifest
    redacted = sum(n.count for b in manifest.blocks for n in b.redactions or [])
    noted = sum(1 for b in manifest.blocks if b.redactions)
    mib = len(context_text.encode("utf-8")) / 2**20
    scan_ms = median_ms(scans)
    off_ms, warm_ms = median_ms(times["off"]), median_ms(times["warm"])
    next_ms, next_off_ms = median_ms(times["next call"]), median_ms(times["next call, off"])
    cold_ms = median_ms(times["cold"])
    command = invocation("redaction_cost", ["--repeats", str(args.repeats)])
    report = "\n".join(
        [
            "",
            "## Secret redaction (issue 15): cost per context build",
            "",
            f"- command: `{command}`",
            f"- machine: {current_machine().describe()}",
            f"- input: {len(steady.history)} messages (code and service logs),"
            f" {manifest.used_input} of {manifest.available_input} input tokens used"
            f" ({mib:.2f} MiB of text sent), model {MODEL}; {redacted} values redacted"
            f" in {noted} blocks",
            f"- median build, redaction off (peer): {off_ms:.1f} ms",
            f"- median build, redaction on, cache warm: {warm_ms:.1f} ms"
            f" (ratio {warm_ms / off_ms:.2f}x)",
            f"- median build with one new {new_tokens}-token tool output: on {next_ms:.1f} ms,"
            f" off {next_off_ms:.1f} ms (ratio {next_ms / next_off_ms:.2f}x)",
            f"- median build, redaction on, cold (every candidate scanned): {cold_ms:.1f} ms"
            f" (ratio {cold_ms / off_ms:.2f}x)",
            f"- detector alone over the sent text: {scan_ms:.1f} ms"
            f" ({mib / (scan_ms / 1000):.1f} MiB/s)",
            "",
        ]
    )
    sys.stdout.write(report)
    if not args.no_write:
        figures = [
            Figure(
                "median build, redaction on, cache warm (lower is better)",
                round(warm_ms, 1),
                "ms",
                round(off_ms, 1),
                "redaction off",
            ),
            Figure(
                f"median build with one new {new_tokens}-token tool output",
                round(next_ms, 1),
                "ms",
                round(next_off_ms, 1),
                "redaction off",
            ),
        ]
        record(this_run("redaction_cost", figures, report, command))


if __name__ == "__main__":
    main()
