"""ACP front end startup: spawn → `initialize` answer, and → the first `session/new` answer.

`cairn acp` against `cairn serve` (its peer: the other front end over the same
engine, spawned the same way) in one run, alternating: the initialize round trip
of each, and for `cairn acp` the time until the first session exists (the
engine built and warmed on the workspace, the first `usage_update` not waited
for). The workspace is a copy of `tests/workspaces/py_project` with the
scripted model.

Run: `.venv/bin/python -m bench.acp_bench [--repeats N] [--write]`; prints a Markdown
section, and with `--write` records the run (`bench/history/acp_bench.jsonl`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from bench.harness.machine import current_machine
from bench.harness.paths import ROOT
from bench.harness.paths import WORK as BENCH_WORK
from bench.harness.records import Figure
from bench.harness.timing import MS
from bench.harness.workspace import fresh_copy, write_script
from bench.harness.writer import invocation, record, this_run

WORK = BENCH_WORK / "acp"
FIXTURE = ROOT / "tests" / "workspaces" / "py_project"
ACP = [sys.executable, "-m", "cairn", "acp"]
SERVE = [sys.executable, "-m", "cairn", "serve"]
ENV = {**os.environ, "CAIRN_LOG_LEVEL": "WARNING"}
DEFAULT_REPEATS = 7
TIMEOUT_S = 120.0
DESCRIPTION = "ACP front end startup against the language server's."


async def spawn(command: list[str], cwd: Path) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        *command,
        cwd=cwd,
        env=ENV,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )


async def acp_line(process: asyncio.subprocess.Process, request_id: int) -> dict[str, Any]:
    assert process.stdout is not None
    while True:
        message = json.loads(await process.stdout.readline())
        if message.get("id") == request_id and "method" not in message:
            return message


def acp_send(process: asyncio.subprocess.Process, message: dict[str, Any]) -> None:
    assert process.stdin is not None
    process.stdin.write(json.dumps(message).encode() + b"\n")


async def acp_startup(workspace: Path) -> tuple[float, float]:
    """(spawn → initialize answer, spawn → session/new answer), in seconds."""
    started = time.perf_counter()
    process = await spawn(ACP, workspace)
    init = {"protocolVersion": 1, "clientCapabilities": {}}
    acp_send(process, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init})
    await asyncio.wait_for(acp_line(process, 1), TIMEOUT_S)
    initialized = time.perf_counter() - started
    params = {"cwd": str(workspace), "mcpServers": []}
    acp_send(process, {"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": params})
    answer = await asyncio.wait_for(acp_line(process, 2), TIMEOUT_S)
    assert "result" in answer, answer
    session = time.perf_counter() - started
    await stop(process)
    return initialized, session


async def lsp_initialize(workspace: Path) -> float:
    """Spawn → initialize result of `cairn serve`, in seconds."""
    started = time.perf_counter()
    process = await spawn(SERVE, workspace)
    assert process.stdin is not None and process.stdout is not None
    params = {"processId": None, "rootUri": workspace.as_uri(), "capabilities": {}}
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})
    process.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body.encode()))
    while True:
        header = await asyncio.wait_for(process.stdout.readuntil(b"\r\n\r\n"), TIMEOUT_S)
        length = int(header.split(b":")[1].split(b"\r\n")[0])
        message = json.loads(await process.stdout.readexactly(length))
        if message.get("id") == 1:
            break
    elapsed = time.perf_counter() - started
    await stop(process)
    return elapsed


async def stop(process: asyncio.subprocess.Process) -> None:
    if process.stdin is not None:
        process.stdin.close()
    try:
        await asyncio.wait_for(process.wait(), TIMEOUT_S)
    except TimeoutError:
        process.kill()
        await process.wait()


def workspace() -> Path:
    target = fresh_copy(FIXTURE, WORK / "ws")
    model = write_script(target, [])
    (target / "cairn.toml").write_text(f'model = "{model}"\n', encoding="utf-8")
    return target


async def main(repeats: int, write: bool) -> None:
    root = workspace()
    acp_init: list[float] = []
    acp_session: list[float] = []
    serve_init: list[float] = []
    for _ in range(repeats):
        initialized, session = await acp_startup(root)
        acp_init.append(initialized)
        acp_session.append(session)
        serve_init.append(await lsp_initialize(root))
    ours, peer = statistics.median(acp_init), statistics.median(serve_init)
    session = statistics.median(acp_session)
    command = invocation("acp_bench")
    text = "\n".join(
        [
            "## ACP front end: startup\n",
            f"- command: `{command}`",
            f"- machine: {current_machine().describe()} at the end",
            f"- initialize round trip (spawn → answer), median of {repeats}: `cairn acp` "
            f"{ours * MS:.0f} ms, `cairn serve` (peer, same run) {peer * MS:.0f} ms; "
            f"ratio {ours / peer:.2f}×",
            f"- spawn → first `session/new` answer (engine built and warmed on "
            f"{FIXTURE.name}): median {session * MS:.0f} ms",
        ]
    )
    print(text)
    if write:
        figures = [
            Figure(
                "initialize round trip, median (lower is better)",
                round(ours * MS),
                "ms",
                round(peer * MS),
                "cairn serve",
            ),
            Figure("spawn → first session/new answer, median", round(session * MS), "ms"),
        ]
        record(this_run("acp_bench", figures, text, command))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=DESCRIPTION)
    parser.add_argument("--repeats", type=int, default=DEFAULT_REPEATS)
    parser.add_argument(
        "--write", action="store_true", help="record the run and regenerate bench/RESULTS.md"
    )
    args = parser.parse_args()
    asyncio.run(main(args.repeats, args.write))
