"""`cairn run` start-up and cancel latency, against bare Python and `import litellm`, one run.

Usage:
    .venv/bin/python -m bench.startup [--repeats 9] [--cancels 9] [--write]

Start-up: each repeat runs, in turn, `python -c pass`, `python -c "import
litellm"` (offline cost map, as Cairn imports it) and a scripted `cairn run`
(`python -m cairn run --model scripted/...`) on a fresh copy of the bundled
demo project (cold: no `.cairn/` yet) and again on the same copy (warm: the
repository-map index and the profile exist). For `cairn run` it notes when
the first byte reaches stderr (the status line: first visible output), when
the first byte of the model's text reaches stdout (the scripted model
streams its first chunk as soon as the first model call starts, so this is
the first model call), the process's exit, and its CPU time (rusage).

Cancel latency: a scripted `cairn run --yes` starts a shell command that
writes its pid and sleeps; once the pid is there, SIGTERM goes to `cairn
run`, and the time until that command is dead (gone from /proc, or a zombie)
is the latency, polled every 0.5 ms. Also checks the exit code (143).

Prints the load average before and after, medians, and the ratios; nothing
here runs in CI. `--write` records the figures (`bench/history/startup.jsonl`,
`bench/RESULTS.md`).
"""

from __future__ import annotations

import argparse
import json
import os
import selectors
import shutil
import signal
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

DEMO = ROOT / "examples" / "demo"
SCRIPT = "bench-script.jsonl"
POLL_S = 0.0005
WAIT_S = 120.0
SLEEP_S = 60
DESCRIPTION = "`cairn run` start-up and cancel latency, against bare Python and `import litellm`"


@dataclass
class Timing:
    first_err: float | None
    first_out: float | None
    exit: float
    cpu: float


def _env() -> dict[str, str]:
    return {
        **os.environ,
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "PYTHONPATH": str(ROOT / "server"),
    }


def timed(command: list[str], cwd: Path) -> Timing:
    """Run `command`; when its first stderr and stdout bytes came, its exit and CPU time."""
    start = time.perf_counter()
    process = subprocess.Popen(
        command,
        cwd=cwd,
        env=_env(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    selector = selectors.DefaultSelector()
    selector.register(process.stdout, selectors.EVENT_READ, "out")
    selector.register(process.stderr, selectors.EVENT_READ, "err")
    first: dict[str, float] = {}
    open_streams = 2
    while open_streams:
        for key, _ in selector.select():
            data = os.read(key.fileobj.fileno(), 65536)  # type: ignore[union-attr]
            if not data:
                selector.unregister(key.fileobj)
                open_streams -= 1
                continue
            first.setdefault(key.data, time.perf_counter() - start)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{command} failed with {status}")
    return Timing(first.get("err"), first.get("out"), elapsed, usage.ru_utime + usage.ru_stime)


def workspace(tmp: Path, lines: list[dict[str, object]]) -> Path:
    folder = Path(tempfile.mkdtemp(dir=tmp))
    shutil.copytree(DEMO, folder, dirs_exist_ok=True)
    (folder / SCRIPT).write_text("".join(json.dumps(line) + "\n" for line in lines))
    return folder


def cairn_run(folder: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "cairn",
        "run",
        "-w",
        str(folder),
        "--model",
        f"scripted/{SCRIPT}",
        *extra,
    ]


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def cancel_latency(tmp: Path) -> tuple[float, int]:
    """Seconds from SIGTERM to `cairn run` until its running command is dead; its exit code."""
    command = f"echo $$ > child.pid; exec sleep {SLEEP_S}"
    folder = workspace(
        tmp, [{"toolCalls": [{"name": "run_command", "arguments": {"command": command}}]}]
    )
    process = subprocess.Popen(
        cairn_run(folder, "--yes", "go"),
        cwd=folder,
        env=_env(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    marker = folder / "child.pid"
    deadline = time.monotonic() + WAIT_S
    while not (marker.exists() and marker.read_text().strip()):
        if time.monotonic() > deadline or process.poll() is not None:
            raise SystemExit("the command never started")
        time.sleep(POLL_S)
    child = int(marker.read_text())
    time.sleep(0.05)  # let the tool settle into waiting for the command
    sent = time.perf_counter()
    process.send_signal(signal.SIGTERM)
    while _alive(child):
        time.sleep(POLL_S)
    latency = time.perf_counter() - sent
    process.wait(WAIT_S)
    return latency, process.returncode


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def median(values: list[float]) -> float:
    return statistics.median(values)


def main() -> None:
    parser = argparse.ArgumentParser(description=DESCRIPTION)
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--cancels", type=int, default=9)
    parser.add_argument(
        "--write", action="store_true", help="record the run and regenerate bench/RESULTS.md"
    )
    args = parser.parse_args()
    lines = [f"machine: {current_machine().describe()}", f"load average before: {load()}"]
    print("\n".join(lines))
    bare: list[Timing] = []
    litellm: list[Timing] = []
    cold: list[Timing] = []
    warm: list[Timing] = []
    with tempfile.TemporaryDirectory(prefix="cairn-startup-") as name:
        tmp = Path(name)
        for _ in range(args.repeats):
            bare.append(timed([sys.executable, "-c", "pass"], tmp))
            litellm.append(timed([sys.executable, "-c", "import litellm"], tmp))
            folder = workspace(tmp, [{"text": "hello from the first call"}] * 2)
            cold.append(timed(cairn_run(folder, "hi"), folder))
            warm.append(timed(cairn_run(folder, "hi again"), folder))
        lines.append(f"load average after start-up runs: {load()}")
        print(lines[-1])
        latencies: list[float] = []
        codes: set[int] = set()
        for _ in range(args.cancels):
            latency, code = cancel_latency(tmp)
            latencies.append(latency)
            codes.add(code)
    lines.append(f"load average after: {load()}")
    print(lines[-1])
    shown, figures = report(bare, litellm, cold, warm, latencies, codes)
    print("\n".join(shown))
    if args.write:
        record(this_run("startup", figures, "\n".join(lines + shown)))


def report(
    bare: list[Timing],
    litellm: list[Timing],
    cold: list[Timing],
    warm: list[Timing],
    latencies: list[float],
    codes: set[int],
) -> tuple[list[str], list[Figure]]:
    """The report's lines, and the figures for the results table."""
    base = median([t.exit for t in bare])
    lite = median([t.exit for t in litellm])
    lines = [
        f"python -c pass: exit {base * 1000:.0f} ms (cpu {median([t.cpu for t in bare]) * 1000:.0f} ms)",
        f"python -c 'import litellm': exit {lite * 1000:.0f} ms (cpu {median([t.cpu for t in litellm]) * 1000:.0f} ms)",
    ]
    figures: list[Figure] = []
    for label, runs in (("cold", cold), ("warm", warm)):
        err = median([t.first_err or 0.0 for t in runs])
        out = median([t.first_out or 0.0 for t in runs])
        done = median([t.exit for t in runs])
        cpu = median([t.cpu for t in runs])
        figures.append(
            Figure(
                f"cairn run ({label}): first model call, median (lower is better)",
                round(out * 1000),
                "ms",
                round(lite * 1000),
                "python -c 'import litellm'",
            )
        )
        lines.append(
            f"cairn run ({label}): first output {err * 1000:.0f} ms, first model call "
            f"{out * 1000:.0f} ms, exit {done * 1000:.0f} ms, cpu {cpu * 1000:.0f} ms; "
            f"first call / import litellm {out / lite:.2f}x, exit / python -c pass {done / base:.1f}x"
        )
    lines.append(
        f"cancel latency (SIGTERM → command dead), {len(latencies)} runs: median "
        f"{median(latencies) * 1000:.1f} ms, max {max(latencies) * 1000:.1f} ms; exit codes {sorted(codes)}"
    )
    figures.append(
        Figure(
            "cancel latency (SIGTERM → command dead), median",
            round(median(latencies) * 1000, 1),
            "ms",
        )
    )
    return lines, figures


if __name__ == "__main__":
    main()
