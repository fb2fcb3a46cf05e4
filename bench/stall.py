"""Stall: how fast `cairn serve` answers while a large context build runs (issue 26, item 7).

`cairn serve` on a copy of `tests/workspaces/py_project` with the scripted
model gets `--buffers` open buffers of about 2 MB of Python each. Each round
replaces one buffer's whole text (so the build parses it again) and asks for a
dry-run context (`cairn/contextManifest` with a message); while that build
runs, `cairn/contextStats` is sent once and `cairn/goalTree` again and again,
each when the last was answered. Measured: the goal tree's round trip during
the builds (p50, p95, worst) against the same request on the idle server (the
peer, same run), how long `cairn/contextStats` took to answer during a build
(it gathers too, one gather at a time, so it waits for the running one), and
the builds' own duration. The largest single line per source that a build
handles within 100 ms more than a tiny one is `bench.hostile_input`'s figure.

Run: `.venv/bin/python -m bench.stall [--rounds N] [--buffers B] [--write]`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from bench.harness.machine import current_machine
from bench.harness.paths import ROOT
from bench.harness.paths import WORK as BENCH_WORK
from bench.harness.records import Figure
from bench.harness.timing import MS, P95, median_ms, percentile
from bench.harness.workspace import fresh_copy, write_script
from bench.harness.writer import invocation, record, this_run

FIXTURE = ROOT / "tests" / "workspaces" / "py_project"
SERVE = [sys.executable, "-m", "cairn", "serve"]
ENV = {**os.environ, "CAIRN_LOG_LEVEL": "WARNING"}
FUNCTIONS_PER_BUFFER = 30_000
IDLE_PINGS = 50
TIMEOUT_S = 300.0
STREAM_LIMIT = 1 << 26


def big_module(index: int, version: int) -> str:
    """About 2 MB of Python: many small functions with distinct names."""
    return "".join(
        f"def handler_{index}_{n}_v{version}(request, limit):\n    return request[:limit]  # {n}\n"
        for n in range(FUNCTIONS_PER_BUFFER)
    )


class Client:
    """A bare LSP client over the server's pipes: requests answered by id, the rest dropped."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        assert process.stdin is not None and process.stdout is not None
        self.process, self.stdin, self.stdout = process, process.stdin, process.stdout
        self.next_id = 0
        self.waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.reader = asyncio.ensure_future(self._read())

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        self.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))

    def request(self, method: str, params: Any) -> asyncio.Future[dict[str, Any]]:
        self.next_id += 1
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.waiting[self.next_id] = future
        self.send({"id": self.next_id, "method": method, "params": params})
        return future

    async def timed(self, method: str, params: Any) -> float:
        """Seconds from sending `method` to its answer."""
        started = time.perf_counter()
        await asyncio.wait_for(self.request(method, params), TIMEOUT_S)
        return time.perf_counter() - started

    async def _read(self) -> None:
        while True:
            header = await self.stdout.readuntil(b"\r\n\r\n")
            length = int(header.split(b":")[1].split(b"\r\n")[0])
            message = json.loads(await self.stdout.readexactly(length))
            if "method" in message and "id" in message:  # a server request: answer nothing
                self.send({"id": message["id"], "result": None})
            elif (future := self.waiting.pop(message.get("id", -1), None)) is not None:
                future.set_result(message)


async def started(root: Path, buffers: int) -> tuple[Client, list[str]]:
    process = await asyncio.create_subprocess_exec(
        *SERVE,
        cwd=root,
        env=ENV,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        limit=STREAM_LIMIT,
    )
    client = Client(process)
    params = {"processId": None, "rootUri": root.as_uri(), "capabilities": {}}
    await asyncio.wait_for(client.request("initialize", params), TIMEOUT_S)
    client.send({"method": "initialized", "params": {}})
    uris = [(root / f"big{i}.py").as_uri() for i in range(buffers)]
    for index, uri in enumerate(uris):
        item = {"uri": uri, "languageId": "python", "version": 1, "text": big_module(index, 1)}
        client.send({"method": "textDocument/didOpen", "params": {"textDocument": item}})
    await client.timed("cairn/contextManifest", {"message": "warm up"})
    return client, uris


async def one_round(client: Client, uri: str, version: int) -> tuple[list[float], float, float]:
    """(goal tree round trips during the build, contextStats' answer, the build), in seconds."""
    document = {"uri": uri, "version": version}
    change = {"textDocument": document, "contentChanges": [{"text": big_module(0, version)}]}
    client.send({"method": "textDocument/didChange", "params": change})
    started = time.perf_counter()
    build = asyncio.ensure_future(client.timed("cairn/contextManifest", {"message": "handler"}))
    stats = asyncio.ensure_future(client.timed("cairn/contextStats", {}))
    pings: list[float] = []
    while not build.done():
        pings.append(await client.timed("cairn/goalTree", {}))
    await stats
    return pings, stats.result(), time.perf_counter() - started


async def run(rounds: int, buffers: int) -> dict[str, float]:
    root = fresh_copy(FIXTURE, BENCH_WORK / "stall" / "ws")
    (root / "cairn.toml").write_text(f'model = "{write_script(root, [])}"\n', encoding="utf-8")
    client, uris = await started(root, buffers)
    idle = [await client.timed("cairn/goalTree", {}) for _ in range(IDLE_PINGS)]
    during: list[float] = []
    stats: list[float] = []
    builds: list[float] = []
    for version in range(2, rounds + 2):
        pings, stat, build = await one_round(client, uris[0], version)
        during += pings
        stats.append(stat)
        builds.append(build)
    client.stdin.close()
    await client.process.wait()
    client.reader.cancel()
    return {
        "idle p95": percentile(idle, P95) * MS,
        "during p50": median_ms(during),
        "during p95": percentile(during, P95) * MS,
        "during max": max(during) * MS,
        "pings": len(during),
        "stats": median_ms(stats),
        "build": median_ms(builds),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--buffers", type=int, default=4)
    parser.add_argument("--write", action="store_true", help="record the run in bench/history")
    args = parser.parse_args()
    got = asyncio.run(run(args.rounds, args.buffers))
    text = "\n".join(
        [
            "## Stall: answers while a large context build runs\n",
            f"- command: `{invocation('stall')}`",
            f"- machine: {current_machine().describe()} at the end",
            f"- {args.buffers} open buffers of ~2 MB, one replaced before each of {args.rounds}"
            f" builds; build (dry-run contextManifest) median {got['build']:.0f} ms",
            f"- cairn/goalTree during the builds ({got['pings']:.0f} answered): p50"
            f" {got['during p50']:.1f} ms, p95 {got['during p95']:.1f} ms, worst"
            f" {got['during max']:.0f} ms; idle server p95 {got['idle p95']:.1f} ms",
            f"- cairn/contextStats sent as a build starts: answered in {got['stats']:.0f} ms"
            " (median; it waits for the running gather)",
        ]
    )
    print(text)
    if args.write:
        figures = [
            Figure(
                "request round trip during a large build, p95 (lower is better)",
                round(got["during p95"], 1),
                "ms",
                round(got["idle p95"], 1),
                "idle server",
            ),
            Figure(
                "request round trip during a large build, worst", round(got["during max"]), "ms"
            ),
            Figure(
                "cairn/contextStats during a large build, median",
                round(got["stats"]),
                "ms",
                round(got["build"]),
                "the build",
            ),
        ]
        record(this_run("stall", figures, text + "\n"))


if __name__ == "__main__":
    main()
