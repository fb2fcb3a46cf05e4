"""Benchmark: how much of a long session's input a provider can serve from its prompt cache.

    .venv/bin/python -m bench.cache [--turns N] [--seed N] [--no-write]
    PYTHONPATH=/tmp/peer/server .venv/bin/python -m bench.cache --timing-only   # another tree

A scripted session (`bench/cache/session.py`: goals done and abandoned, big
reads, edits, test runs) is driven through the engine, litellm's `openai/`
provider and the local OpenAI-compatible server (`tests/fakes`), which
records every request. It runs twice: with a small window (20k, at least
3 summaries) and a large one (200k); then a third time, shorter, at the
large window with one `explore` call of three branches per turn
(`bench/cache/explore.py`: how much of the parent's prefix each branch reads
from the cache, and the session's cost). Each run reports, over every request Cairn sent
(compaction calls included): the share of input tokens that is an unchanged
prefix of the previous request, the share served from the cache under
Anthropic's breakpoint rules and OpenAI's automatic ones, the cache breaks
by recorded reason, the effective input cost under Anthropic prices (0.1x
read, 1.25x write) and OpenAI prices (0.1x cached), and the same for the
peers' replays of the same session (`bench/cache/replay.py` over
`bench/harness/opencode_replay.py`: OpenCode's policy, and an append-only
history), and, per side, the share of the input the previous request also
sent that the cache served (`breakdown.cacheable_line`: the new
messages since the previous call can never be cached, so this is the share
a prompt order can move). It also times what each call spends in `gather` and `assemble`
(p50/p95 over the calls); `--timing-only` with another tree's `server/` first on
`PYTHONPATH` times that tree's context builds (one `ContextBuilder.build` per measurement there)
on the same session.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from tests.fakes.openai_server import OpenAIServer, RecordedRequest, Reply

import cairn
from bench.cache.breakdown import (
    breakdown_lines,
    cacheable_line,
    floor_line,
    served_shares,
)
from bench.cache.explore import BranchReplies, explore_report, explore_script
from bench.cache.replay import PEERS, Request, Row, account, make_peer, peer_requests
from bench.cache.session import TEST_COMMAND, Step, build_script, make_workspace
from bench.cache.session import narrative_reply as narrative
from bench.harness.machine import current_machine
from bench.harness.opencode_replay import CallPoint
from bench.harness.records import Figure
from bench.harness.timing import P95, percentile
from bench.harness.writer import invocation, record, this_run
from cairn.agent.engine import Engine
from cairn.context.builder import ContextBuilder
from cairn.context.sources.summary import render_summary
from cairn.models.messages import CompactionPart
from cairn.settings import Settings
from cairn.tokens.counter import counter_for

MODEL = "openai/bench-model"
USAGE_MODEL = "gpt-4o"
MAX_OUTPUT = 2_000
# The small run's window: the largest at which this session still summarises at least 3
# times (at 24k, since the tail shrank, it summarises no more). Cairn's prune thresholds are
# its defaults, capped to the window (4,000 protected, 2,000 minimum at 20k).
SMALL = {"context_window": 20_000}
LARGE = {"context_window": 200_000}
COMPACTION_MARKERS = ("[Compaction request from the harness]", "You are compacting the history")


def is_compaction(request: RecordedRequest) -> bool:
    texts = [str(m.get("content") or "") for m in request.messages[:1] + request.messages[-1:]]
    return any(t.startswith(COMPACTION_MARKERS) for t in texts)


@dataclass
class Timings:
    """Seconds spent per main call in gather, in assemble, or (another tree) in whole builds."""

    gather: list[float] = field(default_factory=list)
    assemble: list[float] = field(default_factory=list)
    builds: list[float] = field(default_factory=list)
    build_counts: list[int] = field(default_factory=list)
    _open: dict[str, float] = field(default_factory=lambda: {"gather": 0.0, "assemble": 0.0})
    _builds: list[float] = field(default_factory=list)

    def add(self, kind: str, seconds: float) -> None:
        if kind == "build":
            self._builds.append(seconds)
        else:
            self._open[kind] += seconds

    def close_call(self) -> None:
        self.gather.append(self._open["gather"])
        self.assemble.append(self._open["assemble"])
        self.builds.append(sum(self._builds))
        self.build_counts.append(len(self._builds))
        self._open = {"gather": 0.0, "assemble": 0.0}
        self._builds = []


def instrument(timings: Timings) -> None:
    """Time the builder's steps: gather/assemble here, or whole builds in an older tree."""

    def wrap(name: str, kind: str) -> None:
        inner = getattr(ContextBuilder, name)

        def timed(self: Any, *args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return inner(self, *args, **kwargs)
            finally:
                timings.add(kind, time.perf_counter() - started)

        setattr(ContextBuilder, name, timed)

    if hasattr(ContextBuilder, "assemble"):
        wrap("gather", "gather")
        wrap("assemble", "assemble")
    else:
        wrap("build", "build")


@dataclass
class Run:
    window: int
    requests: list[RecordedRequest]
    session: Any
    calls: list[CallPoint]
    timings: Timings
    wall_s: float
    # The breakpoints Cairn named for each request it sent (`sent_key` → indexes).
    hints: dict[str, tuple[int, ...]] = field(default_factory=dict)


def sent_key(messages: Any) -> str:
    """A request's messages as both sides see them (the text of each, in order)."""
    return json.dumps([[m.get("role"), m.get("content")] for m in messages], default=str)


async def drive(
    folder: Path,
    script: list[list[Step]],
    options: dict[str, Any],
    branches: Callable[[RecordedRequest], Reply | None] | None = None,
) -> Run:
    """The whole session through the local server; every request recorded. `branches`
    answers the explore branches' requests (None for the main agent's)."""
    from bench.cache.session import USER_MESSAGES

    timings = Timings()
    hints: dict[str, tuple[int, ...]] = {}
    instrument(timings)
    settings = Settings.model_validate(
        {
            "model": MODEL,
            "max_output_tokens": MAX_OUTPUT,
            "allowed_commands": ["python3 -m unittest"],
            **options,
        }
    )
    replies = [step for turn in script for step in turn]
    with OpenAIServer() as server:
        os.environ["OPENAI_API_BASE"] = server.base_url
        os.environ["OPENAI_API_KEY"] = "bench-key"
        engine = Engine([folder], settings)
        calls: list[CallPoint] = []

        def responder(request: RecordedRequest) -> Reply:
            if is_compaction(request):
                return Reply(text=narrative())
            branch = branches(request) if branches is not None else None
            if branch is not None:
                return branch
            step = replies.pop(0)
            return Reply(text=step.text, tool_calls=step.tool_calls)

        server.responder = responder
        inner = engine.runtime.complete

        async def complete(model: str, messages: Any, tools: Any, **kw: Any) -> Any:
            cache = kw.get("cache")
            hints[sent_key(messages)] = tuple(cache.breakpoints) if cache is not None else ()
            if kw.get("agent") is None:
                timings.close_call()
                session = engine.session()
                calls.append(CallPoint(len(session.messages()), time.time()))
            return await inner(model, messages, tools, **kw)

        engine.runtime.complete = complete  # type: ignore[method-assign]
        started = time.perf_counter()
        session_id = None
        for index in range(len(script)):
            message = USER_MESSAGES[index % len(USER_MESSAGES)]
            result = await engine.turn(message, session_id=session_id)
            assert result.finish_reason == "stop", result.error
            session_id = result.session_id
        wall = time.perf_counter() - started
        session = engine.session(session_id)
        requests = list(server.requests)
        engine.close()
    return Run(options["context_window"], requests, session, calls, timings, wall, hints)


def cairn_requests(run: Run) -> list[Request]:
    """Cairn's requests as sent, each with the breakpoints Cairn named for it."""
    missing = [r for r in run.requests if sent_key(r.messages) not in run.hints]
    if missing:
        raise RuntimeError(f"cache bench: {len(missing)} requests without their breakpoints")
    return [
        Request(
            r.messages,
            list(r.body.get("tools") or []),
            run.hints[sent_key(r.messages)],
            r.at,
            "compaction" if is_compaction(r) else "main",
        )
        for r in run.requests
    ]


def summaries_of(run: Run) -> list[str]:
    parts = [p for m in run.session.messages() for p in m.parts if isinstance(p, CompactionPart)]
    texts = [render_summary(p.summary) for p in parts if p.kind == "summary" and p.summary]
    return texts or ["[Summary of the earlier conversation]"]


def peers(run: Run, count: Callable[[str], int]) -> dict[str, list[Request]]:
    first = run.requests[0]
    system = [m for m in first.messages[:2] if m.get("role") == "system"]
    tools = list(first.body.get("tools") or [])
    messages = run.session.messages()
    summaries = summaries_of(run)
    limit = run.window - MAX_OUTPUT
    return {
        name: peer_requests(
            name, make_peer(name, system, tools, limit, summaries, count), messages, run.calls
        )
        for name in PEERS
    }


def totals(rows: list[Row]) -> dict[str, float]:
    total = sum(r.total for r in rows) or 1
    return {
        "requests": len(rows),
        "input": total,
        "prefix_share": sum(r.prefix_of_previous for r in rows) / total,
        "anthropic_share": sum(r.anthropic_read for r in rows) / total,
        "openai_share": sum(r.openai_cached for r in rows) / total,
        "anthropic_cost": sum(r.anthropic_cost for r in rows),
        "openai_cost": sum(r.openai_cost for r in rows),
    }


def breaks(run: Run) -> Counter[str]:
    counted: Counter[str] = Counter()
    for manifest in run.session.trace.manifests():
        reason = getattr(manifest, "cache_break", None)
        if reason:
            counted[reason.split(":")[0] if reason.startswith("budget") else reason] += 1
    return counted


def zone_tokens(run: Run) -> dict[str, int]:
    out: Counter[str] = Counter()
    for manifest in run.session.trace.manifests():
        for block in manifest.blocks:
            zone = getattr(block, "zone", None)
            if block.included and zone:
                out[zone] += block.tokens
    return dict(out)


def timing_lines(timings: Timings) -> list[str]:
    ms = 1_000
    if any(timings.builds):
        return [
            f"| context builds per call | {statistics.median(timings.build_counts):.0f}"
            f" | {percentile(timings.build_counts, P95):.0f} |",
            f"| build time per call (ms) | {statistics.median(timings.builds) * ms:.1f}"
            f" | {percentile(timings.builds, P95) * ms:.1f} |",
        ]
    return [
        f"| gather per call (ms) | {statistics.median(timings.gather) * ms:.1f}"
        f" | {percentile(timings.gather, P95) * ms:.1f} |",
        f"| assemble per call (ms) | {statistics.median(timings.assemble) * ms:.1f}"
        f" | {percentile(timings.assemble, P95) * ms:.1f} |",
    ]


def cost_figures(window: int, figures: dict[str, dict[str, float]]) -> list[Figure]:
    """The session's input cost under each provider's prices over OpenCode's policy's."""
    cairn, peer = figures["Cairn"], figures["opencode"]
    return [
        Figure(
            f"window {window:,}: input cost / OpenCode's, {prices} prices (lower is better)",
            round(cairn[key] / peer[key], 2),
            "×",
            peer_label="OpenCode's policy",
        )
        for prices, key in (("Anthropic", "anthropic_cost"), ("OpenAI", "openai_cost"))
    ]


def report(run: Run, count: Callable[[str], int]) -> tuple[str, list[Figure]]:
    sides = {"Cairn": cairn_requests(run), **peers(run, count)}
    figures = {name: totals(account(reqs, count)) for name, reqs in sides.items()}
    cairn = figures["Cairn"]
    main = sum(1 for r in sides["Cairn"] if r.kind == "main")
    lines = [
        f"### Window {run.window} ({main} model calls, "
        f"{len(sides['Cairn']) - main} compaction calls, {run.wall_s:.0f} s)",
        "",
        "| | requests | input tokens | prefix of previous | cached (Anthropic) |"
        " cached (OpenAI) | cost, Anthropic prices | cost, OpenAI prices |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, f in figures.items():
        lines.append(
            f"| {name} | {f['requests']:.0f} | {f['input']:.0f} | {f['prefix_share']:.1%}"
            f" | {f['anthropic_share']:.1%} | {f['openai_share']:.1%}"
            f" | {f['anthropic_cost']:.0f} | {f['openai_cost']:.0f} |"
        )
    for peer in ("opencode", "append-only"):
        f = figures[peer]
        lines.append(
            f"\nCost ratio Cairn / {peer}: Anthropic {cairn['anthropic_cost'] / f['anthropic_cost']:.2f}×,"
            f" OpenAI {cairn['openai_cost'] / f['openai_cost']:.2f}×"
        )
    counted = breaks(run)
    lines.append(
        "\nCache breaks by recorded reason: "
        + (", ".join(f"{reason} {n}" for reason, n in counted.most_common()) or "none")
    )
    unexplained = sum(n for reason, n in counted.items() if reason.startswith("unexplained"))
    lines.append(f"Breaks without a reason: {unexplained}")
    zones = zone_tokens(run)
    lines.append(
        "Input tokens by zone over the session (manifests): "
        + ", ".join(f"{zone} {tokens}" for zone, tokens in zones.items())
    )
    reported = [m.usage for m in run.session.trace.manifests() if getattr(m, "usage", None)]
    if reported:
        predicted = sum(m.cache.predicted_cached for m in run.session.trace.manifests())
        fixture = sum(u.cached_input_tokens for u in reported)
        lines.append(
            f"Predicted cached tokens {predicted}; provider-reported (the server's OpenAI rules)"
            f" {fixture} on the main calls."
        )
    manifests = run.session.trace.manifests()
    lines += breakdown_lines(sides["Cairn"], account(sides["Cairn"], count), manifests, count)
    accounted = {name: (reqs, account(reqs, count)) for name, reqs in sides.items()}
    lines.append(cacheable_line(accounted, count))
    lines.append(floor_line(accounted, count, "opencode"))
    lines += ["", "| time per model call | p50 | p95 |", "| --- | ---: | ---: |"]
    lines += timing_lines(run.timings)
    anthropic, openai = served_shares(*accounted["Cairn"], count)
    served = [
        Figure(
            f"window {run.window:,}: re-sent input served from cache, {rule} rule"
            " (higher is better)",
            round(share * 100, 1),
            "%",
        )
        for rule, share in (("Anthropic", anthropic), ("OpenAI", openai))
    ]
    return "\n".join(lines), [*cost_figures(run.window, figures), *served]


async def explore_run(seed: int, count: Callable[[str], int]) -> tuple[str, list[Figure]]:
    """The explore run (`bench/cache/explore.py`) at the large window."""
    folder = Path(tempfile.mkdtemp(prefix="cairn-cache-bench-"))
    try:
        files = make_workspace(folder)
        replies = BranchReplies(files)
        run = await drive(folder, explore_script(files, seed), dict(LARGE), replies)
        lines, figures = explore_report(cairn_requests(run), count)
        return "\n".join(lines), figures
    finally:
        shutil.rmtree(folder, ignore_errors=True)


async def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.cache")
    parser.add_argument("--turns", type=int, default=7)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--timing-only", action="store_true")
    parser.add_argument(
        "--small-window",
        type=int,
        default=SMALL["context_window"],
        help="the small run's context window (the issue wants >= 3 summaries in it)",
    )
    args = parser.parse_args()
    count = counter_for(USAGE_MODEL)
    sections: list[str] = []
    figures: list[Figure] = []
    for options in ({**SMALL, "context_window": args.small_window}, LARGE):
        folder = Path(tempfile.mkdtemp(prefix="cairn-cache-bench-"))
        files = make_workspace(folder)
        script = build_script(files, args.turns, args.seed)
        run = await drive(folder, script, dict(options))
        if args.timing_only:
            sections.append(f"### Window {run.window}\n\n| time per model call | p50 | p95 |")
            sections.append("| --- | ---: | ---: |\n" + "\n".join(timing_lines(run.timings)))
        else:
            text, measured = report(run, count)
            sections.append(text)
            figures += measured
        shutil.rmtree(folder, ignore_errors=True)
    if not args.timing_only:
        text, measured = await explore_run(args.seed, count)
        sections.append(text)
        figures += measured
    command = invocation("cache")
    text = "\n\n".join(sections)
    header = (
        f"Command: `{command}`; code: {Path(cairn.__file__).parent.parent}\n"
        f"Machine: {current_machine().describe()}; test command `{TEST_COMMAND}`."
    )
    print(header + "\n\n" + text)
    if not args.no_write and not args.timing_only:
        report_text = "## Prompt cache over a long session (issue 11)\n\n" + header + "\n\n" + text
        record(this_run("cache", figures, report_text, command))


if __name__ == "__main__":
    asyncio.run(main())
