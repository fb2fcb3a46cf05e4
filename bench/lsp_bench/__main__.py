"""Language server benchmarks (H7): startup, keystroke handling, responsiveness during a turn.

1. initialize round trip (spawn → initialize result) of `cairn serve` vs a bare
   pygls server started the same way, alternating, in one run (target ≤ 1.2×);
2. 1,000 incremental didChange edits to a 10,000-line document, pipelined:
   server-side handling per edit (decode + handler, from the server's debug
   request; target p99 ≤ 2 ms), then a request: its round trip shows whether a
   backlog was left; the CPU time of the whole server process over the edits
   (from /proc, every thread: framing, JSON, dispatch, handler) per edit; the
   final text is checked against a local replay; repeated `--edit-repeats` times;
3. typing: `TYPING_EDITS` edits sent one at a time, each followed by the
   `textDocument/codeAction` request an editor sends as the cursor moves; the
   round trip (edit sent → actions received) covers the whole read, decode and
   dispatch path of one keystroke, unpipelined;
4. `cairn/goalTree` round trips while a scripted turn streams (target p95 ≤ 50 ms),
   and idle for comparison.

Run: `.venv/bin/python -m bench.lsp_bench [--repeats N] [--edit-repeats N] [--only edits]
[--write]`; prints a Markdown section, and with `--write` records the run
(`bench/history/lsp_bench.jsonl`, `bench/RESULTS.md`). `--only edits` runs the keystroke bench alone (to compare two
builds of the server in one session, e.g. with `PYTHONPATH` pointing at another checkout).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from bench.harness.machine import current_machine
from bench.harness.paths import WORK as BENCH_WORK
from bench.harness.records import Figure
from bench.harness.timing import MS, P95, percentile
from bench.harness.writer import invocation, record, this_run

WORK = BENCH_WORK / "lsp"
CAIRN = [sys.executable, "-m", "cairn", "serve"]
# Run by path: the bare server imports only pygls.
BARE = [sys.executable, str(Path(__file__).resolve().parent / "bare_server.py")]
ENV = {**os.environ, "CAIRN_LSP_DEBUG": "1", "CAIRN_LOG_LEVEL": "WARNING"}
DOC_LINES = 10_000
EDITS = 1_000
GOAL_TREE_CALLS = 200
STREAM_WORDS = 6_000
STREAM_CHUNK_DELAY_S = 0.01
DEFAULT_REPEATS = 7
DEFAULT_EDIT_REPEATS = 3
TYPING_EDITS = 300
PROC_STAT = "/proc/{pid}/stat"
# Fields 14 and 15 of /proc/<pid>/stat (user and system time, in clock ticks), after the
# command name, whose closing parenthesis ends field 2.
UTIME_FIELD, STIME_FIELD = 11, 12
SEED = 7
P99 = 0.99
TIMEOUT_S = 120.0
DESCRIPTION = "Language server benchmarks: startup, keystrokes, responsiveness during a turn."


class Connection:
    """Minimal framed JSON-RPC over a subprocess's stdio."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        assert process.stdin is not None and process.stdout is not None
        self.process = process
        self.stdin = process.stdin
        self.stdout = process.stdout
        self.next_id = 0

    @classmethod
    async def spawn(cls, command: list[str], cwd: Path) -> Connection:
        process = await asyncio.create_subprocess_exec(
            *command,
            cwd=cwd,
            env=ENV,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
        )
        return cls(process)

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps(message).encode()
        self.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    async def read(self) -> dict[str, Any]:
        length = 0
        while True:
            line = await asyncio.wait_for(self.stdout.readline(), TIMEOUT_S)
            if not line:
                raise ConnectionError("server closed")
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
            elif line == b"\r\n" and length:
                return json.loads(await self.stdout.readexactly(length))

    async def request(self, method: str, params: Any = None) -> Any:
        self.next_id += 1
        msg_id = self.next_id
        self.send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        await self.stdin.drain()
        while True:
            message = await self.read()
            if "method" in message and "id" in message:  # server → client request
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
            elif message.get("id") == msg_id and "method" not in message:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message["result"]

    def notify(self, method: str, params: Any) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    async def initialize(self, root: Path) -> None:
        await self.request(
            "initialize",
            {"processId": os.getpid(), "rootUri": root.as_uri(), "capabilities": {}},
        )
        self.notify("initialized", {})

    async def close(self) -> None:
        try:
            await self.request("shutdown")
            self.notify("exit", None)
            await self.stdin.drain()
            await asyncio.wait_for(self.process.wait(), TIMEOUT_S)
        finally:
            if self.process.returncode is None:
                self.process.kill()
                await self.process.wait()


def make_workspace(script: list[dict[str, Any]]) -> Path:
    root = WORK / "ws"
    root.mkdir(parents=True, exist_ok=True)
    (root / "cairn.toml").write_text('model = "scripted/script.jsonl"\n', encoding="utf-8")
    (root / "script.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in script), encoding="utf-8"
    )
    return root


async def initialize_once(command: list[str], root: Path) -> float:
    started = time.perf_counter()
    connection = await Connection.spawn(command, root)
    await connection.initialize(root)
    elapsed = time.perf_counter() - started
    await connection.close()
    return elapsed


async def bench_initialize(root: Path, repeats: int) -> dict[str, float]:
    cairn: list[float] = []
    bare: list[float] = []
    await initialize_once(CAIRN, root)  # warm the OS file cache for both
    await initialize_once(BARE, root)
    for _ in range(repeats):
        cairn.append(await initialize_once(CAIRN, root))
        bare.append(await initialize_once(BARE, root))
    cairn_ms, bare_ms = statistics.median(cairn) * MS, statistics.median(bare) * MS
    return {"cairn_ms": cairn_ms, "bare_ms": bare_ms, "ratio": cairn_ms / bare_ms}


def process_cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process, all its threads (Linux /proc)."""
    stat = Path(PROC_STAT.format(pid=pid)).read_text()
    fields = stat[stat.rindex(")") + 2 :].split()
    ticks = int(fields[UTIME_FIELD]) + int(fields[STIME_FIELD])
    return ticks / os.sysconf("SC_CLK_TCK")


def context_switches(pid: int) -> tuple[int, int]:
    """(voluntary, involuntary) context switches of a process's threads so far (Linux /proc)."""
    voluntary = involuntary = 0
    for status in Path(f"/proc/{pid}/task").glob("*/status"):
        for line in status.read_text().splitlines():
            if line.startswith("voluntary_ctxt_switches:"):
                voluntary += int(line.split()[1])
            elif line.startswith("nonvoluntary_ctxt_switches:"):
                involuntary += int(line.split()[1])
    return voluntary, involuntary


def apply_local(lines: list[str], line: int, column: int, text: str) -> None:
    lines[line] = lines[line][:column] + text + lines[line][column:]


async def bench_edits(root: Path) -> dict[str, float]:
    rng = random.Random(SEED)
    lines = [f"line {i}: " + "x" * (i % 60) + "\n" for i in range(DOC_LINES)]
    path = root / "big.py"
    uri = path.as_uri()
    connection = await Connection.spawn(CAIRN, root)
    try:
        await connection.initialize(root)
        connection.notify(
            "textDocument/didOpen",
            {
                "textDocument": {
                    "uri": uri,
                    "languageId": "python",
                    "version": 1,
                    "text": "".join(lines),
                }
            },
        )
        await connection.request("cairn/goalTree", {})  # the engine is ready
        pid = (await connection.request("cairn/_debug", {"reset": True}))["pid"]
        cpu_before = process_cpu_seconds(pid)
        switches_before = context_switches(pid)
        started = time.perf_counter()
        for version in range(2, EDITS + 2):
            line = rng.randrange(DOC_LINES)
            column = rng.randrange(len(lines[line]))
            apply_local(lines, line, column, "y")
            position = {"line": line, "character": column}
            connection.notify(
                "textDocument/didChange",
                {
                    "textDocument": {"uri": uri, "version": version},
                    "contentChanges": [
                        {"range": {"start": position, "end": position}, "text": "y"}
                    ],
                },
            )
        await connection.stdin.drain()
        sent = time.perf_counter()
        info = await connection.request("cairn/_debug", {"uri": uri})
        answered = time.perf_counter()
        cpu_used = process_cpu_seconds(pid) - cpu_before
        switches = context_switches(pid)
        assert info["text"] == "".join(lines), "the server's text differs from the local replay"
        return {
            "edits": info["didChange"]["count"],
            "median_ms": info["didChange"]["medianMs"],
            "p99_ms": info["didChange"]["p99Ms"],
            "max_ms": info["didChange"]["maxMs"],
            "cpu_p99_ms": info["didChange"]["cpuP99Ms"],
            "send_all_ms": (sent - started) * MS,
            "request_after_ms": (answered - sent) * MS,
            "end_to_end_ms": (answered - started) * MS,
            "process_cpu_per_edit_ms": cpu_used * MS / EDITS,
            "voluntary_switches": switches[0] - switches_before[0],
            "involuntary_switches": switches[1] - switches_before[1],
        }
    finally:
        await connection.close()


async def bench_typing(root: Path) -> dict[str, float]:
    """Keystroke round trips: didChange + codeAction on the edited line, one at a time."""
    rng = random.Random(SEED)
    lines = [f"line {i}: " + "x" * (i % 60) + "\n" for i in range(DOC_LINES)]
    uri = (root / "typed.py").as_uri()
    connection = await Connection.spawn(CAIRN, root)
    try:
        await connection.initialize(root)
        connection.notify(
            "textDocument/didOpen",
            {
                "textDocument": {
                    "uri": uri,
                    "languageId": "python",
                    "version": 1,
                    "text": "".join(lines),
                }
            },
        )
        await connection.request("cairn/goalTree", {})  # the engine is ready
        times: list[float] = []
        for version in range(2, TYPING_EDITS + 2):
            line = rng.randrange(DOC_LINES)
            column = rng.randrange(len(lines[line]))
            apply_local(lines, line, column, "y")
            at = {"line": line, "character": column}
            cursor = {"line": line, "character": column + 1}
            started = time.perf_counter()
            connection.notify(
                "textDocument/didChange",
                {
                    "textDocument": {"uri": uri, "version": version},
                    "contentChanges": [{"range": {"start": at, "end": at}, "text": "y"}],
                },
            )
            await connection.request(
                "textDocument/codeAction",
                {
                    "textDocument": {"uri": uri},
                    "range": {"start": cursor, "end": cursor},
                    "context": {"diagnostics": []},
                },
            )
            times.append(time.perf_counter() - started)
        return {
            "median_ms": statistics.median(times) * MS,
            "p95_ms": percentile(times, P95) * MS,
            "p99_ms": percentile(times, P99) * MS,
        }
    finally:
        await connection.close()


def typing_section(typing: dict[str, float]) -> str:
    return f"""- typing: {TYPING_EDITS} edits one at a time, each followed by a `textDocument/codeAction`
  request (round trip from the edit sent to the actions received): median
  {typing["median_ms"]:.2f} ms, p95 {typing["p95_ms"]:.2f} ms, p99 {typing["p99_ms"]:.2f} ms"""


async def goal_tree_times(connection: Connection, calls: int) -> list[float]:
    times: list[float] = []
    for _ in range(calls):
        started = time.perf_counter()
        await connection.request("cairn/goalTree", {})
        times.append(time.perf_counter() - started)
    return times


async def bench_goal_tree_during_turn(root: Path) -> dict[str, float]:
    connection = await Connection.spawn(CAIRN, root)
    try:
        await connection.initialize(root)
        await connection.request("cairn/contextStats", {})  # engine loaded and warm
        idle = await goal_tree_times(connection, GOAL_TREE_CALLS)
        connection.next_id += 1
        turn_id = connection.next_id
        connection.send(
            {
                "jsonrpc": "2.0",
                "id": turn_id,
                "method": "cairn/turn",
                "params": {"message": "stream for a while"},
            }
        )
        while True:  # wait for the stream to start
            message = await connection.read()
            if message.get("method") == "cairn/turnEvent" and message["params"]["kind"] == "text":
                break
            if "method" in message and "id" in message:
                connection.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
        busy = await goal_tree_times(connection, GOAL_TREE_CALLS)
        connection.notify("$/cancelRequest", {"id": turn_id})
        return {
            "idle_p95_ms": percentile(idle, P95) * MS,
            "busy_p95_ms": percentile(busy, P95) * MS,
            "busy_median_ms": statistics.median(busy) * MS,
            "ratio": percentile(busy, P95) / percentile(idle, P95),
        }
    finally:
        await connection.close()


async def bench_edits_repeated(root: Path, repeats: int) -> dict[str, float]:
    """`bench_edits` `repeats` times in fresh servers: the median of each figure."""
    runs = [await bench_edits(root) for _ in range(repeats)]
    return {key: statistics.median(run[key] for run in runs) for key in runs[0]}


def edits_section(edits: dict[str, float], edit_repeats: int) -> str:
    return f"""- {edits["edits"]:.0f} incremental didChange edits to a {DOC_LINES:,}-line document (medians of
  {edit_repeats} servers), server-side (decode + handler): median {edits["median_ms"]:.3f} ms, p99
  {edits["p99_ms"]:.3f} ms (target ≤ 2 ms), max {edits["max_ms"]:.2f} ms; CPU time of the server thread
  p99 {edits["cpu_p99_ms"]:.3f} ms; CPU time of the whole server process (framing, JSON, dispatch,
  handler) {edits["process_cpu_per_edit_ms"]:.3f} ms per edit; a request sent right after the last
  edit answered in {edits["request_after_ms"]:.0f} ms (sending all edits took
  {edits["send_all_ms"]:.0f} ms; first edit sent → that answer {edits["end_to_end_ms"]:.0f} ms); final text identical;
  context switches of the server meanwhile: {edits["voluntary_switches"]:.0f} voluntary (waiting for input),
  {edits["involuntary_switches"]:.0f} involuntary (preempted by the OS)"""


def edit_figures(edits: dict[str, float], typing: dict[str, float]) -> list[Figure]:
    """The keystroke figures (no peer: the targets are absolute)."""
    return [
        Figure("didChange handling, p99 (lower is better)", round(edits["p99_ms"], 3), "ms"),
        Figure("typing round trip (edit → code actions), p95", round(typing["p95_ms"], 2), "ms"),
    ]


async def main(repeats: int, edit_repeats: int, only: str, write: bool) -> None:
    script = [{"text": "word " * STREAM_WORDS, "chunkDelay": STREAM_CHUNK_DELAY_S}]
    root = make_workspace(script)
    command = invocation("lsp_bench")
    machine = current_machine().describe()
    if only == "edits":
        edits = await bench_edits_repeated(root, edit_repeats)
        typing = await bench_typing(root)
        text = f"""
- command: `{command}`
- machine: {machine}
{edits_section(edits, edit_repeats)}
{typing_section(typing)}
"""
        print(text)
        if write:
            record(this_run("lsp_bench", edit_figures(edits, typing), text, command))
        return
    init = await bench_initialize(root, repeats)
    edits = await bench_edits_repeated(root, edit_repeats)
    typing = await bench_typing(root)
    make_workspace(script)
    busy = await bench_goal_tree_during_turn(root)
    text = f"""
## Language server (H7): startup, keystrokes, responsiveness during a turn

- command: `{command}`
- machine: {machine}
- initialize round trip (spawn → result), median of {repeats}: cairn serve {init["cairn_ms"]:.0f} ms,
  bare pygls server (peer, same run) {init["bare_ms"]:.0f} ms; ratio {init["ratio"]:.2f}× (target ≤ 1.2×)
{edits_section(edits, edit_repeats)}
{typing_section(typing)}
- `cairn/goalTree` round trip over {GOAL_TREE_CALLS} calls while a scripted turn streams: p95
  {busy["busy_p95_ms"]:.1f} ms (target ≤ 50 ms), median {busy["busy_median_ms"]:.1f} ms; idle p95
  {busy["idle_p95_ms"]:.1f} ms (peer, same run); ratio {busy["ratio"]:.2f}×
"""
    print(text)
    if write:
        figures = [
            Figure(
                "initialize round trip, median (lower is better)",
                round(init["cairn_ms"]),
                "ms",
                round(init["bare_ms"]),
                "bare pygls server",
            ),
            *edit_figures(edits, typing),
            Figure(
                "cairn/goalTree during a streaming turn, p95",
                round(busy["busy_p95_ms"], 1),
                "ms",
                round(busy["idle_p95_ms"], 1),
                "idle",
            ),
        ]
        record(this_run("lsp_bench", figures, text, command))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m bench.lsp_bench", description=DESCRIPTION)
    parser.add_argument("--repeats", type=int, default=DEFAULT_REPEATS)
    parser.add_argument("--edit-repeats", type=int, default=DEFAULT_EDIT_REPEATS)
    parser.add_argument("--only", choices=("all", "edits"), default="all")
    parser.add_argument(
        "--write", action="store_true", help="record the run and regenerate bench/RESULTS.md"
    )
    args = parser.parse_args()
    asyncio.run(main(args.repeats, args.edit_repeats, args.only, args.write))
