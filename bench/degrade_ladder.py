"""Bench: the degrade ladder on large inputs, this tree vs another (main) in the same run.

Inputs (real files where this machine has them, else generated):
- a ~300 KB Python module (numpy's `ma/core.py`) as an editor buffer in play;
- a 2 MB log with tracebacks in its middle, referenced with `@server.log`;
- a ~360 KB minified JavaScript bundle (npm's `tar` bundle, repeated) as a buffer;
- 200 open-buffer-sized Python files (8-60 KB, from site-packages) as low-priority buffers.

For each: the tokens of the form selection keeps (0 = dropped or refused), the form
(the reason's first words) and the time of one selection (references: reading too),
median of `--repeats`; for the 200 buffers also a warm second build (same texts).
The peer runs the same code against another source tree (`--peer-src`, e.g. a
`git worktree` of main) in a subprocess with its `server/` first on `PYTHONPATH`.
`--write` records the run (`bench/history/degrade_ladder.jsonl`, `bench/RESULTS.md`).

    .venv/bin/python -m bench.degrade_ladder --peer-src /tmp/ladder-main --repeats 5
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.harness.machine import current_machine
from bench.harness.paths import ROOT
from bench.harness.records import Figure
from bench.harness.writer import record, this_run

SITE = Path(sys.prefix) / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}"
BIG_MODULE = SITE / "site-packages" / "numpy" / "ma" / "core.py"
BUNDLE = Path("/usr/lib/node_modules/npm/node_modules/tar/dist/commonjs/index.min.js")
BUNDLE_BYTES = 360 * 1024
LOG_BYTES = 2 * 1024 * 1024
BUFFERS = 200
BUFFER_MIN_BYTES, BUFFER_MAX_BYTES = 8 * 1024, 60 * 1024
# The input budget of the selections (a 64k-window model after output and tools) ...
AVAILABLE = 60_000
# ... and a tight one, where the module's full outline is over its share.
TIGHT_AVAILABLE = 12_000
BUFFERS_AVAILABLE = 120_000
MODEL = "scripted/none"


def _big_module() -> str:
    if BIG_MODULE.is_file():
        return BIG_MODULE.read_text(encoding="utf-8")
    body = [
        f"class C{c}:\n"
        + "".join(f"    def m{m}(self, x):\n        return x + {m}\n" for m in range(40))
        for c in range(180)
    ]
    return "\n".join(body)


def _bundle() -> str:
    if BUNDLE.is_file():
        one = BUNDLE.read_text(encoding="utf-8").strip()
    else:
        one = ";".join(f"function f{i}(a,b){{return a+b*{i}}}" for i in range(3_000))
    copies = max(1, BUNDLE_BYTES // len(one))
    return "\n".join([one] * copies) + "\n"


def _log() -> str:
    line = "2026-12-01 10:00:00 INFO worker handled job {i:08d} in 12 ms"
    count = LOG_BYTES // (len(line) + 1) + 1
    lines = [line.format(i=i) for i in range(count)]
    for where in (count // 3, count // 2, 2 * count // 3):
        lines[where:where] = [
            "2026-12-01 10:00:00 ERROR job crashed",
            "Traceback (most recent call last):",
            '  File "app/worker.py", line 88, in run',
            "    result = compute(job)",
            "ZeroDivisionError: division by zero",
        ]
    return "\n".join(lines) + "\n"


def _buffer_files() -> list[Path]:
    found: list[Path] = []
    for path in sorted((SITE / "site-packages").rglob("*.py")):
        try:
            size = path.stat().st_size
        except OSError:
            continue
        if BUFFER_MIN_BYTES <= size <= BUFFER_MAX_BYTES:
            found.append(path)
        if len(found) >= BUFFERS:
            break
    return found


def _timed(fn: Any, repeats: int, before: Any = None) -> tuple[float, Any]:
    times: list[float] = []
    result = None
    for _ in range(repeats):
        if before is not None:
            before()
        start = time.perf_counter()
        result = fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), result


def _form(block: Any) -> str:
    if not block.included:
        return "dropped/refused: " + (block.reason or "")[:60]
    reason = block.reason or "whole"
    return reason.split(":")[0]


def worker(repeats: int, root: Path) -> dict[str, Any]:
    """Every measurement, in this interpreter (whatever `cairn` it imports)."""
    from cairn.context.blocks import section
    from cairn.context.degrade import DegradeContext
    from cairn.context.references import reference_blocks
    from cairn.context.select import select
    from cairn.files.workspace import Workspace
    from cairn.tokens.counter import counter_for

    try:  # this tree: the outline memo (absent in the peer)
        from cairn.context.outline_memo import OUTLINES

        clear: Any = OUTLINES.clear
    except ImportError:
        clear = None
    count = counter_for(MODEL)
    stored: list[str] = []

    def store(text: str, kind: str) -> str:
        stored.append(kind)
        return f"{kind}-{len(stored):032x}"

    def one(path: str, text: str, available: int) -> Any:
        candidate = section("buffer", 60, f"File: {path}", text, count=count, ref=path, kind="code")
        return select([candidate], available, DegradeContext(count, store)).candidates[0].block

    out: dict[str, Any] = {}
    module, bundle = _big_module(), _bundle()
    for name, path, text, available in (
        ("py300", "numpy/ma/core.py", module, AVAILABLE),
        ("py300-tight", "numpy/ma/core.py", module, TIGHT_AVAILABLE),
        ("minjs", "static/bundle.js", bundle, AVAILABLE),
    ):
        count(text)  # counted once, as the token cache does across builds
        ms, block = _timed(lambda p=path, t=text, a=available: one(p, t, a), repeats, clear)
        out[name] = {
            "bytes": len(text.encode()),
            "tokens": block.tokens if block.included else 0,
            "form": _form(block),
            "ms": ms,
        }
    workspace = Workspace([root])

    def reference() -> Any:
        (block,) = reference_blocks(workspace, ["@server.log"], ignore=None, count=count)
        if not block.included:
            return block
        candidate = section(
            "reference",
            90,
            "Referenced: server.log",
            block.text,
            count=count,
            ref=block.ref,
            kind=block.kind,
        )
        return select([candidate], AVAILABLE, DegradeContext(count, store)).candidates[0].block

    try:  # this tree: streamed excerpts are remembered per file version
        from cairn.context.large_files import forget_excerpts

        forget: Any = forget_excerpts
    except ImportError:
        forget = None
    ms, block = _timed(reference, repeats, forget)
    warm, _ = _timed(reference, repeats)
    out["log2mb"] = {
        "warm_ms": warm,
        "bytes": (root / "server.log").stat().st_size,
        "tokens": block.tokens if block.included else 0,
        "form": _form(block),
        "ms": ms,
    }
    texts = [(p.name, p.read_text(encoding="utf-8", errors="replace")) for p in _buffer_files()]
    for _name, text in texts:
        count(text)

    def buffers() -> Any:
        candidates = [
            section("buffer", 40, f"File: {n}", t, count=count, ref=f"lib/{i}/{n}", kind="code")
            for i, (n, t) in enumerate(texts)
        ]
        return select(candidates, BUFFERS_AVAILABLE, DegradeContext(count, store))

    cold_ms, selection = _timed(buffers, repeats, clear)
    warm_ms, _ = _timed(buffers, repeats)
    kept = [c.block for c in selection.candidates if c.block.included]
    out["buffers200"] = {
        "files": len(texts),
        "bytes": sum(len(t.encode()) for _n, t in texts),
        "tokens": sum(b.tokens for b in kept),
        "form": f"{sum(1 for b in kept if not b.reason)} whole, "
        f"{sum(1 for b in kept if b.reason)} degraded, {len(texts) - len(kept)} dropped",
        "ms": cold_ms,
        "warm_ms": warm_ms,
    }
    return out


def _prepare(root: Path) -> None:
    root.mkdir(parents=True, exist_ok=True)
    (root / "server.log").write_text(_log(), encoding="utf-8")


def _run(src: Path | None, repeats: int, root: Path) -> dict[str, Any]:
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = f"{src / 'server'}{os.pathsep}{env.get('PYTHONPATH', '')}"
    command = [sys.executable, "-m", "bench.degrade_ladder", "--worker"]
    command += ["--repeats", str(repeats), "--root", str(root)]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description="the degrade ladder on large inputs")
    parser.add_argument("--peer-src", type=Path, help="another source tree (e.g. main's worktree)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--root", type=Path, help=argparse.SUPPRESS)
    parser.add_argument(
        "--write", action="store_true", help="record the run and regenerate bench/RESULTS.md"
    )
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.repeats, args.root)))
        return
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "ws"
        _prepare(root)
        mine = _run(None, args.repeats, root)
        peer = _run(args.peer_src, args.repeats, root) if args.peer_src else None
    lines = [f"machine: {current_machine().describe()}"]
    figures: list[Figure] = []
    for name, row in mine.items():
        other = (peer or {}).get(name)
        line = (
            f"{name}: {row['bytes']} B → {row['tokens']} tokens ({row['form']}), {row['ms']:.1f} ms"
        )
        if "warm_ms" in row:
            line += f", warm {row['warm_ms']:.1f} ms"
        lines.append(line)
        if other is not None:
            peer_line = f"  peer: {other['tokens']} tokens ({other['form']}), {other['ms']:.1f} ms"
            if "warm_ms" in other:
                peer_line += f", warm {other['warm_ms']:.1f} ms"
                peer_line += f"; ratio peer/this warm {other['warm_ms'] / row['warm_ms']:.2f}x"
            peer_line += f"; ratio peer/this {other['ms'] / row['ms']:.2f}x"
            lines.append(peer_line)
        figures.append(
            Figure(
                f"{name}: one selection, median (lower is better)",
                round(row["ms"], 1),
                "ms",
                None if other is None else round(other["ms"], 1),
                "" if other is None else f"peer tree {args.peer_src}",
            )
        )
    text = "\n".join(lines)
    print(text)
    if args.write:
        record(this_run("degrade_ladder", figures, text))


if __name__ == "__main__":
    main()
