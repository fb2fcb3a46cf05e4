"""Benchmark (issue 12): is the context of a long session trustworthy, and what does it cost?

    .venv/bin/python -m bench.quality [--turns N] [--window TOKENS] [--variant V] [--write]
    .venv/bin/python -m bench.quality --sweep 28000,32000,36000,40000,44000,48000
    .venv/bin/python -m bench.quality --set compaction_threshold=0.6 --set summary_keep_recent=0.1

A scripted session (`bench/quality/script.py`) of 19 user turns and 156
main model calls runs through the engine on a real git workspace
(`bench/quality/workspace.py`: three packages, unittest suites that
`run_command` really runs, a fixture generator, a root `AGENTS.md` and a
nested `pkg_x/AGENTS.md`) under a small window (32k tokens by default), so
that it summarises (at least 3 times), prunes and folds goals (the
session's shape is printed, with a warning when one of them did not
happen). The window is 32k because at 40k and more this session summarises
once or never (folds, prunes and the one-line forms keep its context small),
and below 28k a prune needs more old tool output (protect + minimum, 30% of
the window, older than two turns) than the context holds under the 70%
summary threshold. Every request the scripted model receives is recorded
(`bench/quality/run.py`).

Three variants of the session run (`--variant`, all by default;
`bench/quality/script.py`): `base`; `large-reads`, whose first two
tool-output facts live only in comments inside the 17–18 KB modules read in
turn 1 (a summarizer shown an outline or excerpt of those reads cannot keep
them); `nested-follow-up`, whose last turn (editing under `pkg_x/AGENTS.md`)
is followed by one that edits there again without reading first.

The ratio to the OpenCode replay moves with the window, by where each side's
compactions happen to fall in this one session: `--sweep` runs the session
at several windows and prints one line per window (its shape, the worst
share of facts, over-budget calls, both totals, the ratio) and the median
ratio over the windows whose session has the bench's shape.

Planted facts, five kinds (`bench/quality/facts.py` says how each is found
in a request):
- constraints: `CONSTRAINT-…` sentences of user messages;
- goals: every `goal done` summary and `abandon` reason;
- ledger: each file changed, the latest status of each command (a test's
  passed/failed — the last turn leaves one failing —, another's exit code:
  `python3 gen_fixtures.py --seed 7`, `--seed 11 --rows 40`), read back
  from the trace's records;
- tool: facts found only in tool output (a constant deep in a large module,
  a config comment, the generator's printed checksum, a grep hit), restated
  by the first compaction narrative only — and credited only when that
  narrative's request held them (the scripted summarizer knows the facts, a
  real one only its input: a restatement of what it was not shown counts as
  lost, and the report counts such restatements);
- rules: every rule of the root AGENTS.md, and of `pkg_x/AGENTS.md` at
  calls whose turn, or the turn before, has touched a `pkg_x` file.
Reported (`bench/quality/measure.py`): the share of each kind present at the
first main call after each summary and at the last call, the facts missing
there, over-budget calls (request input over the window less the output
reserve, and manifests with used > available), and total input tokens of
every call (compaction calls included) against an OpenCode-policy replay of
the same message stream (`bench/harness/opencode_replay.py`: prune after each
user turn protecting the newest 40k tokens of tool output and only when at
least 20k are freed, both scaled by window / 200k; a summary at overflow).
Where Cairn's main-call tokens go is printed twice: per context source
(from the manifests) and per part of the requests as sent, with tokens per
call (`bench/quality/spend.py`: tool schemas, preamble sections, each
tool's results, the tail).
Targets: every kind of fact 100% at every measured point, in every variant;
0 summaries restating what they were not shown; 0 over-budget calls; total
input ≤ 0.5× the replay at every window with the bench's shape. `--set KEY=VALUE`
(repeatable) overrides one of Cairn's settings (a JSON value, else a
string), not the replay's: the compaction policy's knobs
(`compaction_threshold`, `summary_keep_recent`, `prune_protect`,
`prune_minimum`) trade the ratio against what stays verbatim. Unset, they
are Cairn's own choice for the provider (`cairn.compaction.retention`): the
scripted model caches no prompt prefix, so the bench runs the uncached
policy, and `--set 'cache_prices={"none": {"read": 0.1, "write": 1.25}}'`
runs the one a provider with a cache gets. The scripted model never
re-reads what a cut took away, so the totals cannot price a harsher
setting's re-reads; the report counts, per side, the edits made without
their text in view (`rereads`), which a real model would have
preceded by a read. A missed target is
printed, not an error; a setup error (the session did not run as
scripted) exits 2 with its reason. `--write` records the run (`bench/history/quality.jsonl`)
and regenerates `bench/RESULTS.md`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from bench.harness.machine import current_machine, utc_now
from bench.harness.opencode_replay import scaled_thresholds
from bench.harness.paths import ROOT
from bench.harness.records import Figure
from bench.harness.writer import invocation, record, this_run
from bench.quality.facts import KINDS
from bench.quality.measure import (
    TARGET_ALL,
    TARGET_RATIO,
    TARGET_SHARE,
    Figures,
    measure,
    shape_warnings,
    worst_share,
)
from bench.quality.run import SetupError, run_session
from bench.quality.script import TURNS, VARIANTS, build_session
from bench.quality.spend import spend_line
from bench.quality.workspace import BASE
from cairn.compaction.retention import retention
from cairn.llm.cache_hints import model_cache_price
from cairn.settings import Settings

DEFAULT_WINDOW = 32_000
MAX_OUTPUT = 1_000
EXIT_SETUP = 2
# Missing facts listed per measured point in the report.
MISSING_SHOWN = 8


def settings_for(window: int, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """Cairn's settings: the window and output reserve, then `overrides` (`--set`); the
    compaction knobs are Cairn's own choice for the provider unless overridden."""
    return {"context_window": window, "max_output_tokens": MAX_OUTPUT, **(overrides or {})}


def knobs_line(settings: Settings) -> str:
    """The compaction knobs Cairn ran with (`cairn.compaction.retention`), and the replay's."""
    window = settings.context_window or 0
    price = model_cache_price(settings, str(settings.model))
    knobs = retention(settings, window, price)
    cache = "a prompt cache" if knobs.cached else "no prompt cache"
    return (
        f"Cairn's compaction knobs (its choice for a provider with {cache}, `--set` "
        f"overrides): summary at {knobs.threshold:.0%} of the input, {knobs.keep_recent:.0%} "
        f"kept verbatim, prune protect/minimum ({knobs.prune_protect:,}, "
        f"{knobs.prune_minimum:,}); the replay's prune protect/minimum "
        f"{scaled_thresholds(window)}."
    )


def parse_set(items: list[str]) -> dict[str, Any]:
    """`--set KEY=VALUE` items as settings: each value as JSON when it parses, else a string."""
    out: dict[str, Any] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--set {item!r}: write KEY=VALUE, e.g. compaction_threshold=0.6")
        try:
            out[key.strip()] = json.loads(raw)
        except json.JSONDecodeError:
            out[key.strip()] = raw
    return out


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:.0f}%"


def _mark(ok: bool) -> str:
    return "met" if ok else "MISSED"


ALL_VARIANTS = "all"


def variant_suffix(variant: str) -> str:
    """How a figure's name says its variant (none for the base session)."""
    return "" if variant == BASE else f", {variant}"


def share_table(figures: Figures) -> list[str]:
    head = "| point (main call) | " + " | ".join(KINDS) + " | all |"
    lines = [head, "| --- |" + " --- |" * (len(KINDS) + 1)]
    for p in figures.points:
        cells = [f"{_pct(p.share(k))} ({p.found[k]}/{p.expected[k]})" for k in KINDS]
        lines.append(f"| {p.label} ({p.call}) | " + " | ".join(cells) + f" | {_pct(p.share())} |")
    targets = [f"{TARGET_SHARE[k] * 100:.0f}%" if k in TARGET_SHARE else "—" for k in KINDS]
    lines.append("| target | " + " | ".join(targets) + f" | ≥ {TARGET_ALL * 100:.0f}% |")
    return lines


def target_lines(figures: Figures) -> list[str]:
    last = figures.points[-1]
    out: list[str] = []
    for kind, target in TARGET_SHARE.items():
        worst = worst_share(figures, kind)
        ok = worst is None or worst >= target
        out.append(
            f"- {kind}: last {_pct(last.share(kind))}, worst {_pct(worst)} — target {target * 100:.0f}%: {_mark(ok)}"
        )
    worst_all = worst_share(figures) or 0.0
    out.append(
        f"- all facts: last {_pct(last.share())}, worst {_pct(worst_all)} — target ≥ {TARGET_ALL * 100:.0f}%: {_mark(worst_all >= TARGET_ALL)}"
    )
    unseen = ", ".join(f"{marker} (compaction call {n})" for n, marker in figures.unseen)
    out.append(
        f"- facts restated by a summary whose input lacked them: {len(figures.unseen)}"
        f"{' — ' + unseen if unseen else ''} — target 0: {_mark(not figures.unseen)}"
    )
    over = figures.over_budget_requests + figures.over_budget_manifests
    out.append(
        f"- over-budget calls: {figures.over_budget_requests} requests, {figures.over_budget_manifests} manifests — target 0: {_mark(over == 0)}"
    )
    out.append(
        f"- input tokens: {figures.ratio:.3f}× OpenCode — target ≤ {TARGET_RATIO}×: {_mark(figures.ratio <= TARGET_RATIO)}"
    )
    return out


def token_lines(figures: Figures) -> list[str]:
    replay = figures.opencode
    assert replay is not None
    return [
        "| | main calls | compaction calls | total |",
        "| --- | --- | --- | --- |",
        f"| Cairn | {figures.cairn_main:,} | {figures.cairn_compaction:,} | {figures.cairn_total:,} |",
        f"| OpenCode replay ({replay.prunes} prunes, {len(replay.compaction_tokens)} compactions) | {sum(replay.main_tokens):,} | {sum(replay.compaction_tokens):,} | {replay.total:,} |",
        f"| ratio | | | {figures.ratio:.3f}× |",
        "",
        f"Edits made without their text in view (a real model would read the file again first): Cairn {figures.blind_edits}, the replay {figures.replay_blind_edits}. Priced as one more request of the same size each (a lower bound), they add {figures.cairn_rereads:,} and {figures.replay_rereads:,}: ratio {figures.reread_ratio:.3f}×.",
    ]


def source_line(figures: Figures) -> str:
    total = sum(figures.by_source.values()) or 1
    parts = sorted(figures.by_source.items(), key=lambda item: -item[1])
    shares = ", ".join(f"{source} {tokens / total * 100:.0f}%" for source, tokens in parts)
    return f"Cairn's main-call input by block source (manifests): {shares}."


def commit() -> str:
    """The commit of the engine code measured: the last one that touched `server/`."""
    result = subprocess.run(
        ["git", "log", "-1", "--format=%h", "--", "server"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    return result.stdout.strip() or "unknown"


def heading(title: str, command: str) -> list[str]:
    """A report's title (with the engine's commit), command and machine lines."""
    return [
        f"## {title}, server/ at commit {commit()}",
        "",
        f"Command: `{command}`  ",
        f"Machine: {current_machine().describe()}; {utc_now()} UTC.  ",
    ]


def report(figures: Figures, command: str, window: int, variant: str = BASE) -> str:
    shape = ", ".join(f"{v} {k}" for k, v in figures.shape.items())
    missing = [
        f"- {p.label}: "
        + "; ".join(p.missing[:MISSING_SHOWN])
        + (" …" if len(p.missing) > MISSING_SHOWN else "")
        for p in figures.points
        if p.missing
    ]
    lines = [
        *heading(f"Context quality over a long session (issue 12), variant {variant}", command),
        f"Window {window:,} tokens, output reserve {MAX_OUTPUT:,}. Session: {shape}.",
        "",
        knobs_line(figures.settings),
        "",
        *share_table(figures),
        "",
        *token_lines(figures),
        "",
        source_line(figures),
        "",
        spend_line(figures.by_part, figures.shape["main calls"]),
        "",
        "Targets:",
        *target_lines(figures),
    ]
    if missing:
        lines += ["", "Missing facts:", *missing]
    warnings = shape_warnings(figures)
    if warnings:
        lines += ["", "Session shape: " + "; ".join(warnings) + "."]
    return "\n".join(lines) + "\n"


def window_figures(figures: Figures, window: int, variant: str = BASE) -> list[Figure]:
    """The run's figures for the results table: input tokens against the OpenCode replay,
    and the worst share of the planted facts still in view."""
    replay = figures.opencode
    assert replay is not None
    name = f"window {window:,}{variant_suffix(variant)}"
    return [
        Figure(
            f"{name}: input tokens over the session (lower is better)",
            figures.cairn_total,
            "tokens",
            replay.total,
            "OpenCode replay",
        ),
        Figure(
            f"{name}: worst share of facts in view (higher is better)",
            round((worst_share(figures) or 0.0) * 100),
            "%",
        ),
    ]


def sweep_figures(rows: list[tuple[int, Figures]], variant: str = BASE) -> list[Figure]:
    """The sweep's figures: the median and the worst input ratio to OpenCode over the
    windows with the shape, and the worst share of facts at any of them."""
    shaped = [figures.ratio for _, figures in rows if not shape_warnings(figures)]
    if not shaped:
        return []
    windows = ",".join(str(window) for window, _ in rows)
    name = f"sweep {windows}{variant_suffix(variant)}"
    worst = min((worst_share(f) or 0.0) for _, f in rows)
    return [
        Figure(
            f"{name}: median input ratio to OpenCode (lower is better)",
            round(statistics.median(shaped), 3),
            "×",
        ),
        Figure(
            f"{name}: worst input ratio to OpenCode (lower is better)", round(max(shaped), 3), "×"
        ),
        Figure(f"{name}: worst share of facts in view (higher is better)", round(worst * 100), "%"),
    ]


def run_window(
    turns: int, window: int, overrides: dict[str, Any] | None = None, variant: str = BASE
) -> Figures:
    """The bench's figures of the session run at `window` (SetupError when it went wrong)."""
    session = build_session(turns, variant)
    settings = settings_for(window, overrides)
    return measure(asyncio.run(run_session(session, settings)), session)


def below_target(figures: Figures) -> str:
    """The kinds of fact whose worst share misses its target, with that share ('none')."""
    low = [
        f"{kind} {_pct(worst)}"
        for kind, target in TARGET_SHARE.items()
        if (worst := worst_share(figures, kind)) is not None and worst < target
    ]
    return ", ".join(low) or "none"


def sweep_lines(rows: list[tuple[int, Figures]], command: str, variant: str = BASE) -> list[str]:
    """One table line per window, and the median ratio over the windows with the bench's shape."""
    title = f"Context quality: the ratio to OpenCode across windows (issue 12), variant {variant}"
    lines = [
        *heading(title, command),
        "",
        "| window | summaries | prunes | goal folds | worst share, all facts | kinds below target (worst) | unseen restated | over budget | blind edits (Cairn / replay) | Cairn input | OpenCode input | ratio | ratio, re-reads priced |",
        "| ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    shaped: list[float] = []
    priced: list[float] = []
    for window, figures in rows:
        shape, replay = figures.shape, figures.opencode
        assert replay is not None
        over = figures.over_budget_requests + figures.over_budget_manifests
        warnings = shape_warnings(figures)
        mark = " (shape: " + "; ".join(warnings) + ")" if warnings else ""
        if not warnings:
            shaped.append(figures.ratio)
            priced.append(figures.reread_ratio)
        lines.append(
            f"| {window:,} | {shape['summaries']} | {shape['prunes']} | {shape['goal folds']} | {_pct(worst_share(figures))} | {below_target(figures)} | {len(figures.unseen)} | {over} | {figures.blind_edits} / {figures.replay_blind_edits} | {figures.cairn_total:,} | {replay.total:,} | {figures.ratio:.3f}×{mark} | {figures.reread_ratio:.3f}× |"
        )
    median = f"{statistics.median(shaped):.3f}×" if shaped else "n/a"
    worst = f"{max(shaped):.3f}×" if shaped else "n/a"
    median_priced = f"{statistics.median(priced):.3f}×" if priced else "n/a"
    lines += [
        "",
        f"Median ratio over the {len(shaped)} windows with the bench's shape: {median}, worst {worst} (target ≤ {TARGET_RATIO}× at each); with re-reads priced, {median_priced}.",
    ]
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.quality", description=(__doc__ or "").splitlines()[0]
    )
    parser.add_argument("--turns", type=int, default=len(TURNS), help="user turns to run")
    parser.add_argument("--window", type=int, default=DEFAULT_WINDOW, help="context window")
    parser.add_argument(
        "--variant",
        choices=[ALL_VARIANTS, *VARIANTS],
        default=ALL_VARIANTS,
        help="the session variant to run (all by default)",
    )
    parser.add_argument(
        "--write", action="store_true", help="record the run and regenerate bench/RESULTS.md"
    )
    parser.add_argument(
        "--sweep", default=None, help="comma-separated windows: one line each, and the median"
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override one of Cairn's settings (repeatable)",
    )
    args = parser.parse_args()
    command = invocation("quality")
    try:
        overrides = parse_set(args.set)
        variants = VARIANTS if args.variant == ALL_VARIANTS else (args.variant,)
        texts: list[str] = []
        figures: list[Figure] = []
        for variant in variants:
            if args.sweep:
                windows = [int(w) for w in args.sweep.split(",") if w.strip()]
                rows = [(w, run_window(args.turns, w, overrides, variant)) for w in windows]
                texts.append("\n".join(sweep_lines(rows, command, variant)) + "\n")
                figures += sweep_figures(rows, variant)
            else:
                measured = run_window(args.turns, args.window, overrides, variant)
                texts.append(report(measured, command, args.window, variant))
                figures += window_figures(measured, args.window, variant)
        text = "\n".join(texts)
    except (SetupError, ValueError, OSError, subprocess.CalledProcessError) as exc:
        print(f"quality bench: setup error: {exc}", file=sys.stderr)
        return EXIT_SETUP
    print(text)
    if args.write:
        record(this_run("quality", figures, text, command))
    return 0


if __name__ == "__main__":
    sys.exit(main())
