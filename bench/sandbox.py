"""Benchmark: what the command sandbox (bubblewrap) costs per `run_command`.

    .venv/bin/python -m bench.sandbox [--repeats N] [--test-repeats N] [--write]

Each sample is one whole `run_command` tool call through the tool registry —
choosing the sandbox, the allowlist check, starting the process, reading its
output, the tool result — in one process, the peer being the same call with
`sandbox = "off"`. Two commands: `true` (the fixed cost of a command), and a
small fixture project's test command (`python -m pytest -q` on
`FIXTURE_TESTS` trivial tests, the command an agent runs most). The two modes
alternate sample by sample so that load drifts hit both alike; one warm-up
call each first (the sandbox's one-time probe happens there). Figures: p50
and p95 (nearest rank) of each command, sandboxed against unsandboxed.
Recorded (`bench/history/sandbox.jsonl`, `bench/RESULTS.md`) with `--write`.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import time
from pathlib import Path

from bench.harness.machine import current_machine
from bench.harness.records import Figure
from bench.harness.timing import MS, P95, percentile
from bench.harness.workspace import scratch
from bench.harness.writer import record, this_run
from cairn.agent.tools import ToolContext, default_registry
from cairn.files.workspace import Workspace
from cairn.models.sandbox_mode import SandboxMode
from cairn.sandbox.choice import choose_sandbox
from cairn.settings import Settings, SettingsRef

DEFAULT_REPEATS = 40
# The test command takes seconds on a loaded machine: fewer samples of it.
DEFAULT_TEST_REPEATS = 12
FIXTURE_TESTS = 20
PEER = "unsandboxed"
TEST_COMMAND = f"{sys.executable} -m pytest -q -p no:cacheprovider"
COMMANDS = {"true": "true", "pytest": TEST_COMMAND}
MODES: tuple[SandboxMode, ...] = ("off", "auto")
DESCRIPTION = "Time run_command on `true` and on a fixture's pytest, sandboxed and not."


def fixture_project(folder: Path) -> Path:
    """A small Python project with `FIXTURE_TESTS` passing tests."""
    (folder / "tests").mkdir(parents=True)
    (folder / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    body = "".join(
        f"\n\ndef test_add_{n}():\n    assert add({n}, 1) == {n + 1}\n"
        for n in range(FIXTURE_TESTS)
    )
    (folder / "tests" / "test_calc.py").write_text(f"from calc import add{body}")
    (folder / "pyproject.toml").write_text('[tool.pytest.ini_options]\npythonpath = ["."]\n')
    return folder


async def one_call(ctx: ToolContext, command: str, sandbox: SandboxMode) -> float:
    """Seconds of one `run_command` call under `sandbox`; fails loudly if the command did."""
    ctx.config.current = Settings(sandbox=sandbox)
    registry = default_registry()
    start = time.perf_counter()
    outcome = await registry.run("run_command", {"command": command}, ctx)
    elapsed = time.perf_counter() - start
    data = outcome.data or {}
    if data.get("exit_code") != 0:
        raise SystemExit(f"{command!r} failed ({sandbox}):\n{outcome.output}")
    expected = "none" if sandbox == "off" else "bubblewrap"
    if data.get("sandbox") != expected:
        raise SystemExit(f"{command!r} ran with sandbox {data.get('sandbox')}, not {expected}")
    return elapsed


async def measure(root: Path, repeats: dict[str, int]) -> dict[tuple[str, str], list[float]]:
    ctx = ToolContext(
        workspace=Workspace([root]),
        config=SettingsRef(Settings()),
        allowed_commands=list(COMMANDS.values()),
    )
    samples: dict[tuple[str, str], list[float]] = {}
    for name, command in COMMANDS.items():
        for mode in MODES:
            await one_call(ctx, command, mode)  # warm-up (and the sandbox's probe)
        for _ in range(repeats[name]):
            for mode in MODES:
                samples.setdefault((name, mode), []).append(await one_call(ctx, command, mode))
    return samples


def figures_of(samples: dict[tuple[str, str], list[float]]) -> list[Figure]:
    figures: list[Figure] = []
    for name in COMMANDS:
        for label, share in (("p50", 0.5), ("p95", P95)):
            value = percentile(samples[(name, "auto")], share) * MS
            peer = percentile(samples[(name, "off")], share) * MS
            figures.append(
                Figure(
                    f"run_command `{name}` {label}, sandboxed (ms)",
                    round(value, 1),
                    "ms",
                    round(peer, 1),
                    PEER,
                )
            )
    return figures


def report_of(figures: list[Figure], repeats: dict[str, int]) -> str:
    lines = [
        "| figure | sandboxed | unsandboxed | added |",
        "| --- | --- | --- | --- |",
    ]
    for f in figures:
        peer = f.peer or 0.0
        lines.append(f"| {f.name} | {f.value:.1f} | {peer:.1f} | {f.value - peer:+.1f} ms |")
    return "\n".join(
        [
            f"- samples per mode, alternating: {repeats['true']} of `true`, {repeats['pytest']}"
            f" of the test command (`python -m pytest -q` on {FIXTURE_TESTS} tests)",
            f"- machine: {current_machine().describe()}",
            "",
            *lines,
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=DESCRIPTION)
    parser.add_argument("--repeats", type=int, default=DEFAULT_REPEATS, help="samples of `true`")
    parser.add_argument("--test-repeats", type=int, default=DEFAULT_TEST_REPEATS)
    parser.add_argument("--write", action="store_true", help="record the run in the history")
    args = parser.parse_args()
    repeats = {"true": args.repeats, "pytest": args.test_repeats}
    use = choose_sandbox("auto", False)
    if not use.active:
        raise SystemExit(f"no sandbox to measure: {use.why_not}")
    folder = scratch("sandbox")
    try:
        root = fixture_project(folder / "project")
        samples = asyncio.run(measure(root, repeats))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    figures = figures_of(samples)
    report = report_of(figures, repeats)
    print(report)
    if args.write:
        record(this_run("sandbox", figures, report))


if __name__ == "__main__":
    main()
