"""`cairn demo` wall time: to its first visible line and to its exit, against bare Python.

Usage:
    .venv/bin/python -m bench.demo_time [--repeats 5] [--peer /work/main] [--write]

Each repeat runs `python -c pass`, then `python -m cairn demo` (a fresh
temporary workspace each time, as a user gets it), and with `--peer ROOT`
the demo of another checkout too (its `server/` on PYTHONPATH, its own
`examples/demo`: e.g. main's, to compare before and after). For the demo it notes
when the first byte reaches the terminal (stderr or stdout, whichever comes
first), its exit and its CPU time (rusage), and checks the exit code is 0.
Prints the load average before and after, medians, and the ratio of the
demo's exit to `python -c pass` measured in the same run; nothing here runs
in CI. `--write` records the figures (`bench/history/demo_time.jsonl`,
`bench/RESULTS.md`).
"""

from __future__ import annotations

import argparse
import os
import selectors
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench.harness.machine import current_machine
from bench.harness.paths import ROOT
from bench.harness.records import Figure
from bench.harness.writer import record, this_run

DESCRIPTION = "`cairn demo` to its first line and to its exit, against `python -c pass`"
READ_CHUNK = 65536


@dataclass(frozen=True)
class Timing:
    first: float | None
    exit: float
    cpu: float


def timed(command: list[str], cwd: Path, root: Path = ROOT) -> Timing:
    """Run `command` with `root`'s server on PYTHONPATH; when its first output byte came
    (either stream), its exit and CPU time."""
    env = {**os.environ, "PYTHONPATH": str(root / "server")}
    start = time.perf_counter()
    process = subprocess.Popen(
        command,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    selector = selectors.DefaultSelector()
    selector.register(process.stdout, selectors.EVENT_READ)
    selector.register(process.stderr, selectors.EVENT_READ)
    first: float | None = None
    open_streams = 2
    while open_streams:
        for key, _ in selector.select():
            data = os.read(key.fileobj.fileno(), READ_CHUNK)  # type: ignore[union-attr]
            if not data:
                selector.unregister(key.fileobj)
                open_streams -= 1
            elif first is None:
                first = time.perf_counter() - start
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{command} failed with {status}")
    return Timing(first, elapsed, usage.ru_utime + usage.ru_stime)


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=DESCRIPTION)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--peer", type=Path, help="another checkout whose demo to time too")
    parser.add_argument(
        "--write", action="store_true", help="record the run and regenerate bench/RESULTS.md"
    )
    args = parser.parse_args()
    lines = [f"machine: {current_machine().describe()}", f"load average before: {load()}"]
    print("\n".join(lines))
    bare: list[Timing] = []
    runs: list[Timing] = []
    peer: list[Timing] = []
    demo = [sys.executable, "-m", "cairn", "demo"]
    with tempfile.TemporaryDirectory(prefix="cairn-demo-bench-") as name:
        tmp = Path(name)
        for _ in range(args.repeats):
            bare.append(timed([sys.executable, "-c", "pass"], tmp))
            runs.append(timed(demo, tmp))
            if args.peer is not None:
                peer.append(timed(demo, tmp, args.peer.resolve()))
    base = statistics.median(t.exit for t in bare)
    shown = [
        f"load average after: {load()}",
        f"python -c pass: exit {ms(base)}",
        summary(f"cairn demo ({ROOT.name})", runs, base),
    ]
    if peer:
        shown += [summary(f"cairn demo (peer {args.peer})", peer, base), ratios(runs, peer)]
    print("\n".join(shown))
    if args.write:
        firsts = [t.first for t in runs if t.first is not None]
        figures = [
            Figure(
                "cairn demo to its exit, median (lower is better)",
                round(statistics.median(t.exit for t in runs) * 1000),
                "ms",
                round(base * 1000),
                "python -c pass",
            ),
            Figure(
                "cairn demo to its first line, median",
                round(statistics.median(firsts) * 1000),
                "ms",
            ),
        ]
        record(this_run("demo_time", figures, "\n".join(lines + shown)))


def ratios(runs: list[Timing], peer: list[Timing]) -> str:
    """This checkout's medians over the peer's: first line and exit."""
    first = statistics.median(t.first or 0.0 for t in runs)
    peer_first = statistics.median(t.first or 0.0 for t in peer)
    done = statistics.median(t.exit for t in runs)
    peer_done = statistics.median(t.exit for t in peer)
    return f"over the peer: first line {first / peer_first:.2f}x, exit {done / peer_done:.2f}x"


def summary(label: str, runs: list[Timing], base: float) -> str:
    """Medians (with min and max) of one command's runs, and its exit over `python -c pass`."""
    first = [t.first for t in runs if t.first is not None]
    exits = [t.exit for t in runs]
    done = statistics.median(exits)
    return (
        f"{label}, {len(runs)} runs: first line {ms(statistics.median(first))} "
        f"(min {ms(min(first))}, max {ms(max(first))}), exit {ms(done)} "
        f"(min {ms(min(exits))}, max {ms(max(exits))}), "
        f"cpu {ms(statistics.median(t.cpu for t in runs))}; exit / python -c pass {done / base:.1f}x"
    )


if __name__ == "__main__":
    main()
