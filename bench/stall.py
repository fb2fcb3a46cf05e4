"""Stall: how fast `cairn serve` answers while large context builds and goal folds run (issue 26, item 7).

`cairn serve` on a copy of `tests/workspaces/py_project` with the scripted
model gets `--buffers` open buffers of about 2 MB of Python each. Each round:
(1) one buffer's whole text is replaced (so the build parses it again) and a
dry-run context is asked for (`cairn/contextManifest` with a message); while
that build runs, `cairn/contextStats` is sent once and `cairn/goalTree` again
and again, each when the last was answered; (2) a goal is added and focused, a
turn reads a file under it (two model calls, eight files of ~28 KB read: the history grows), and the user finishes the goal
(`cairn/goal` `done`: its fold is measured against the context, two
assemblies over the big buffers) while `cairn/goalTree` is sent again and
again. Measured: the goal tree's round trips during the builds (p50, p95,
worst) against the idle server's, `cairn/contextStats`' answer during a build
(p95, worst; how many were the last figure, `stale`), `cairn/goal`'s answer
with its fold and the goal tree's worst round trip meanwhile. With `--peer
DIR` the same rounds run first against the engine whose `server/` folder is
DIR (put first on `PYTHONPATH`: `git archive main server | tar -x -C
/tmp/peer`), which is then each figure's peer. The largest single line per
source that a build handles within 100 ms more than a tiny one is
`bench.hostile_input`'s figure.

Run: `.venv/bin/python -m bench.stall [--rounds N] [--buffers B] [--peer DIR] [--write]`.
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
FUNCTIONS_PER_BUFFER = 30_000
IDLE_PINGS = 50
TIMEOUT_S = 300.0
STREAM_LIMIT = 1 << 26
# Each round's turn reads NOTES files of about 28 KB each: the session's history grows by
# ~200 KB a round, which the fold's measurement assembles twice.
NOTES = 8
NOTE_LINES = 400
READ_CALL = {
    "toolCalls": [
        {"name": "read_file", "arguments": {"path": f"notes/{n}.txt"}} for n in range(NOTES)
    ]
}
REPLY = {"text": "Read it."}
CAPS: dict[str, Any] = {"capabilities": {}}


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

    async def result(self, method: str, params: Any) -> Any:
        answer = await asyncio.wait_for(self.request(method, params), TIMEOUT_S)
        if "error" in answer:
            raise RuntimeError(f"{method}: {answer['error']}")
        return answer["result"]

    async def timed(self, method: str, params: Any) -> tuple[float, Any]:
        """(seconds from sending `method` to its answer, the result)."""
        started = time.perf_counter()
        result = await self.result(method, params)
        return time.perf_counter() - started, result

    async def pings_until(self, task: asyncio.Future[Any]) -> list[float]:
        """Goal tree round trips, each sent when the last was answered, until `task` is done."""
        pings: list[float] = []
        while not task.done():
            pings.append((await self.timed("cairn/goalTree", {}))[0])
        return pings

    async def _read(self) -> None:
        while True:
            header = await self.stdout.readuntil(b"\r\n\r\n")
            length = int(header.split(b":")[1].split(b"\r\n")[0])
            message = json.loads(await self.stdout.readexactly(length))
            if "method" in message and "id" in message:  # a server request: answer nothing
                self.send({"id": message["id"], "result": None})
            elif (future := self.waiting.pop(message.get("id", -1), None)) is not None:
                future.set_result(message)


async def started(root: Path, buffers: int, peer: Path | None) -> tuple[Client, list[str]]:
    env = {**os.environ, "CAIRN_LOG_LEVEL": "WARNING"}
    if peer is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(peer), env.get("PYTHONPATH")]))
    process = await asyncio.create_subprocess_exec(
        *SERVE,
        cwd=root,
        env=env,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        limit=STREAM_LIMIT,
    )
    client = Client(process)
    await client.result("initialize", {"processId": None, "rootUri": root.as_uri()} | CAPS)
    client.send({"method": "initialized", "params": {}})
    uris = [(root / f"big{i}.py").as_uri() for i in range(buffers)]
    for index, uri in enumerate(uris):
        item = {"uri": uri, "languageId": "python", "version": 1, "text": big_module(index, 1)}
        client.send({"method": "textDocument/didOpen", "params": {"textDocument": item}})
    await client.result("cairn/contextManifest", {"message": "warm up"})
    await client.result("cairn/contextStats", {})  # the session's first figure
    return client, uris


async def build_round(client: Client, uri: str, version: int) -> dict[str, Any]:
    """A dry-run build after a buffer's replacement; contextStats, a goal added and pings
    sent during it."""
    document = {"uri": uri, "version": version}
    change = {"textDocument": document, "contentChanges": [{"text": big_module(0, version)}]}
    client.send({"method": "textDocument/didChange", "params": change})
    started = time.perf_counter()
    build = asyncio.ensure_future(client.result("cairn/contextManifest", {"message": "handler"}))
    stats = asyncio.ensure_future(client.timed("cairn/contextStats", {}))
    goal = asyncio.ensure_future(client.timed("cairn/goal", {"add": f"step {version - 1}"}))
    pings = await client.pings_until(build)
    stats_s, answer = await stats
    goal_s, view = await goal
    return {
        "pings": pings,
        "stats": stats_s,
        "stale": bool(answer.get("stale")),
        "goal": goal_s,
        "build": time.perf_counter() - started,
        "added": view["tree"]["goals"][-1]["id"],
    }


async def fold_round(client: Client, goal_id: str) -> dict[str, Any]:
    """The goal focused, worked on by a turn, then finished by the user while a dry-run
    build runs: the answer to `done` (its fold measured) and pings meanwhile."""
    await client.result("cairn/goal", {"focus": goal_id})
    await client.result("cairn/turn", {"message": "read the notes"})
    build = asyncio.ensure_future(client.result("cairn/contextManifest", {"message": "notes"}))
    done = asyncio.ensure_future(client.timed("cairn/goal", {"done": f"goal {goal_id} read"}))
    pings = await client.pings_until(asyncio.gather(build, done))
    return {"fold pings": pings, "goal": (await done)[0]}


async def side(rounds: int, buffers: int, peer: Path | None) -> dict[str, float]:
    """Every round against one engine (this checkout's, or `peer`'s); its figures."""
    root = fresh_copy(FIXTURE, BENCH_WORK / "stall" / ("peer" if peer else "ws"))
    model = write_script(root, [READ_CALL, REPLY] * rounds)
    (root / "notes").mkdir()
    for n in range(NOTES):
        text = "".join(
            f"note {n}.{line}: what was found, and where\n" for line in range(NOTE_LINES)
        )
        (root / "notes" / f"{n}.txt").write_text(text * 2, encoding="utf-8")
    (root / "cairn.toml").write_text(f'model = "{model}"\n', encoding="utf-8")
    client, uris = await started(root, buffers, peer)
    idle = [(await client.timed("cairn/goalTree", {}))[0] for _ in range(IDLE_PINGS)]
    got: dict[str, list[Any]] = {}
    for step in range(1, rounds + 1):
        built = await build_round(client, uris[0], step + 1)
        measured = {**built, "goal": [built["goal"]]}
        folded = await fold_round(client, built.pop("added"))
        measured["goal"].append(folded.pop("goal"))
        for key, value in (measured | folded).items():
            got.setdefault(key, []).extend(value if isinstance(value, list) else [value])
    client.stdin.close()
    await client.process.wait()
    client.reader.cancel()
    return summary(idle, got)


def summary(idle: list[float], got: dict[str, list[Any]]) -> dict[str, float]:
    during, stats, goals, folding = got["pings"], got["stats"], got["goal"], got["fold pings"]
    return {
        "idle p95": percentile(idle, P95) * MS,
        "during p50": median_ms(during),
        "during p95": percentile(during, P95) * MS,
        "during max": max(during) * MS,
        "pings": len(during),
        "stats": median_ms(stats),
        "stats p95": percentile(stats, P95) * MS,
        "stats max": max(stats) * MS,
        "stale": sum(got["stale"]),
        "rounds": len(stats),
        "build": median_ms(got["build"]),
        "goal p95": percentile(goals, P95) * MS,
        "goal max": max(goals) * MS,
        "goals": len(goals),
        "fold ping max": max(folding) * MS,
        "fold pings": len(folding),
    }


def lines(got: dict[str, float], buffers: int) -> list[str]:
    return [
        f"- {buffers} open buffers of ~2 MB, one replaced before each of {got['rounds']:.0f}"
        f" builds; build (dry-run contextManifest) median {got['build']:.0f} ms",
        f"- cairn/goalTree during the builds ({got['pings']:.0f} answered): p50"
        f" {got['during p50']:.1f} ms, p95 {got['during p95']:.1f} ms, worst"
        f" {got['during max']:.0f} ms; idle server p95 {got['idle p95']:.1f} ms",
        f"- cairn/contextStats sent as a build starts: median {got['stats']:.0f} ms, p95"
        f" {got['stats p95']:.0f} ms, worst {got['stats max']:.0f} ms"
        f" ({got['stale']:.0f} of {got['rounds']:.0f} answered with the last figure, stale)",
        f"- cairn/goal during a build ({got['goals']:.0f}: an add as it starts, a done with"
        f" its fold after a turn): p95 {got['goal p95']:.0f} ms, worst {got['goal max']:.0f} ms;"
        f" cairn/goalTree while the done folds ({got['fold pings']:.0f} answered): worst"
        f" {got['fold ping max']:.0f} ms",
    ]


def figures(got: dict[str, float], peer: dict[str, float] | None) -> list[Figure]:
    def paired(name: str, key: str, digits: int = 0) -> Figure:
        if peer is None:
            return Figure(name, round(got[key], digits), "ms")
        return Figure(name, round(got[key], digits), "ms", round(peer[key], digits), "before")

    return [
        Figure(
            "request round trip during a large build, p95 (lower is better)",
            round(got["during p95"], 1),
            "ms",
            round(got["idle p95"], 1),
            "idle server",
        ),
        paired("request round trip during a large build, worst", "during max"),
        paired("cairn/contextStats during a large build, median", "stats"),
        paired("cairn/contextStats during a large build, p95 (lower is better)", "stats p95"),
        paired("cairn/contextStats during a large build, worst", "stats max"),
        paired("cairn/goal during a large build, p95 (lower is better)", "goal p95"),
        paired("cairn/goal during a large build, worst", "goal max"),
        paired(
            "request round trip while a finished goal folds during a build, worst", "fold ping max"
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--buffers", type=int, default=4)
    parser.add_argument("--peer", type=Path, help="the server/ folder of the engine to compare")
    parser.add_argument("--write", action="store_true", help="record the run in bench/history")
    args = parser.parse_args()
    peer = asyncio.run(side(args.rounds, args.buffers, args.peer)) if args.peer else None
    got = asyncio.run(side(args.rounds, args.buffers, None))
    text = [
        "## Stall: answers while large builds and goal folds run\n",
        f"- command: `{invocation('stall')}`",
        f"- machine: {current_machine().describe()} at the end",
        *lines(got, args.buffers),
    ]
    if peer is not None:
        text += ["\nBefore (the peer engine, same run):\n", *lines(peer, args.buffers)]
    print("\n".join(text))
    if args.write:
        record(this_run("stall", figures(got, peer), "\n".join(text) + "\n"))


if __name__ == "__main__":
    main()
