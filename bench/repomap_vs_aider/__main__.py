"""Benchmark: Cairn's repository map against Aider's, same machine, corpus and inputs.

    .venv/bin/python -m bench.repomap_vs_aider [--corpus sympy|effect] [--repeats N]
        [--edits N] [--no-write]

Sets up `bench/.work/` (git-ignored): a separate venv with `aider-chat`, the corpus — the
sympy wheel (`pip download --no-deps sympy`, Python) or the `effect` package's TypeScript
sources (`npm pack effect@EFFECT_VERSION`, `package/src`) — and a scratch HOME for Aider
with litellm's model map copied where Aider looks for it (so nothing goes to the network).
Then, for map budgets of 1k and 8k tokens, with two files in play and a few mentioned
identifiers, runs each tool in fresh processes:

- cold: its cache deleted, one process builds the map;
- warm: the persisted cache from the cold run, a new process;
- after edit: in the warm process, one edit to a file in play, then the next map
  (Cairn: `update_buffer`; Aider has no buffers: the file is rewritten on disk), p95;
- peak RSS of the process (and its workers).

The floor is a raw tree-sitter parse of every corpus file plus tokenizing the same bytes,
in one process. Results (medians, ratios to Aider in the same run) are recorded
(`bench/history/repomap_vs_aider.jsonl`, `bench/RESULTS.md`) unless `--no-write`. Aider runs with `refresh="always"`: with its
default `auto` it would return its in-memory map unchanged after the edit.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tarfile
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

from bench.harness.aider import AIDER_PYTHON, aider_env, install_aider
from bench.harness.machine import current_machine, head_commit, utc_now
from bench.harness.paths import ROOT
from bench.harness.paths import WORK as HARNESS_WORK
from bench.harness.records import Figure
from bench.harness.timing import P95, percentile
from bench.harness.writer import invocation, record, this_run

WORK = HARNESS_WORK
CAIRN_CACHE = WORK / "cairn-cache"
CAIRN_PYTHON = ROOT / ".venv" / "bin" / "python"
# Run by path in a fresh process: it imports only `cairn`.
DRIVER = Path(__file__).resolve().parent / "driver.py"
AIDER_DRIVER = WORK / "aider_driver.py"
EFFECT_VERSION = "4.1.0"


@dataclass(frozen=True)
class Corpus:
    """One benchmark corpus: where it lives, its files, the inputs of every map."""

    name: str
    root: Path
    pattern: str
    chat: tuple[str, str]
    mentioned: tuple[str, ...]
    edit_marker: str
    """The edit inserts `edit_line` before the first line starting like this."""
    edit_line: str
    description: str


CORPORA = {
    "sympy": Corpus(
        "sympy",
        WORK / "corpus",
        "*.py",
        ("sympy/solvers/solvers.py", "sympy/simplify/simplify.py"),
        ("nsimplify", "Poly", "factor_terms", "solveset"),
        "    return ",
        "    edited_probe_{step} = simplify(len([]))\n",
        "sympy wheel",
    ),
    "effect": Corpus(
        "effect",
        WORK / f"effect-{EFFECT_VERSION}" / "package" / "src",
        "*.ts",
        ("Stream.ts", "Layer.ts"),
        ("flatMap", "Struct", "provideService", "catchTag"),
        "  return ",
        "  const editedProbe{step} = succeed(length([]))\n",
        f"effect {EFFECT_VERSION} sources (npm)",
    ),
}
BUDGETS = (1024, 8192)
MODEL = "gpt-4o"
DEFAULT_REPEATS = 3
DEFAULT_EDITS = 10
CHILD_TIMEOUT_S = 1800

AIDER_DRIVER_SOURCE = r"""
import json, resource, sys, time
from pathlib import Path
args = json.loads(sys.argv[1])
from aider.io import InputOutput
from aider.models import Model
from aider.repomap import RepoMap
root = Path(args["root"])
io = InputOutput(pretty=False, yes=True, fancy_input=False)
model = Model(args["model"])
model.token_count("warm up the tokenizer")
chat = [str(root / rel) for rel in args["chat"]]
other = [str(root / rel) for rel in args["files"] if rel not in args["chat"]]
idents = set(args["idents"])
def cpu_seconds():
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime
started, cpu = time.perf_counter(), cpu_seconds()
repomap = RepoMap(map_tokens=args["budget"], root=str(root), main_model=model, io=io,
                  refresh="always")
text = repomap.get_repo_map(chat, other, set(), idents) or ""
first = time.perf_counter() - started
first_cpu = cpu_seconds() - cpu
target = Path(chat[0])
original = target.read_text(encoding="utf-8")
marker = "\n" + args["edit_marker"]
edit_times = []
edit_cpu = []
try:
    for step in range(args["edits"]):
        at = original.index(marker) + 1
        target.write_text(original[:at] + args["edit_line"].format(step=step)
                          + original[at:], encoding="utf-8")
        started, cpu = time.perf_counter(), cpu_seconds()
        repomap.get_repo_map(chat, other, set(), idents)
        edit_times.append(time.perf_counter() - started)
        edit_cpu.append(cpu_seconds() - cpu)
finally:
    target.write_text(original, encoding="utf-8")
peak = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
           resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.stdout.write(json.dumps({"first_s": first, "first_cpu_s": first_cpu,
                             "edit_s": edit_times, "edit_cpu_s": edit_cpu, "chars": len(text),
                             "tokens": model.token_count(text), "peak_rss_kb": peak}) + "\n")
"""


def _run(command: list[str], env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        command, capture_output=True, text=True, env=env, timeout=CHILD_TIMEOUT_S, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"{command[0]} failed ({done.returncode}):\n{done.stderr[-4000:]}")
    return done.stdout


def setup(corpus: Corpus) -> None:
    """Create the Aider venv, the corpus and Aider's scratch HOME when missing."""
    WORK.mkdir(parents=True, exist_ok=True)
    install_aider()
    if corpus.name == "sympy" and not (corpus.root / "sympy").is_dir():
        _sympy(corpus.root)
    if corpus.name == "effect" and not corpus.root.is_dir():
        _effect(corpus.root.parents[1])
    AIDER_DRIVER.write_text(AIDER_DRIVER_SOURCE, encoding="utf-8")


def _sympy(target: Path) -> None:
    wheels = WORK / "wheels"
    _run(
        [str(CAIRN_PYTHON), "-m", "pip", "download", "-q", "--no-deps", "sympy", "-d", str(wheels)]
    )
    wheel = sorted(wheels.glob("sympy-*.whl"))[-1]
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(target)


def _effect(target: Path) -> None:
    target.mkdir(parents=True, exist_ok=True)
    _run(["npm", "pack", f"effect@{EFFECT_VERSION}", "--pack-destination", str(target)])
    with tarfile.open(target / f"effect-{EFFECT_VERSION}.tgz") as archive:
        archive.extractall(target, filter="data")


def corpus_files(corpus: Corpus) -> list[str]:
    return sorted(
        path.relative_to(corpus.root).as_posix() for path in corpus.root.rglob(corpus.pattern)
    )


def clear_caches(corpus: Corpus) -> None:
    shutil.rmtree(CAIRN_CACHE, ignore_errors=True)
    for cache in corpus.root.glob(".aider.tags.cache*"):
        shutil.rmtree(cache, ignore_errors=True)


def run_tool(
    tool: str, corpus: Corpus, budget: int, edits: int, files: list[str]
) -> dict[str, object]:
    args = {
        "root": str(corpus.root),
        "cache_dir": str(CAIRN_CACHE),
        "files": files,
        "chat": list(corpus.chat),
        "idents": list(corpus.mentioned),
        "budget": budget,
        "model": MODEL,
        "edits": edits,
        "edit_marker": corpus.edit_marker,
        "edit_line": corpus.edit_line,
    }
    if tool == "aider":
        command = [str(AIDER_PYTHON), str(AIDER_DRIVER), json.dumps(args)]
        output = _run(command, aider_env())
    else:
        output = _run([str(CAIRN_PYTHON), str(DRIVER), json.dumps(args)])
    return json.loads(output.strip().splitlines()[-1])


def floor(corpus: Corpus, files: list[str]) -> dict[str, float]:
    """Raw parse of every corpus file and tokenizing the same bytes (run in this venv)."""
    code = (
        "import sys, time, json\n"
        "from pathlib import Path\n"
        "from cairn.code.languages import language_for_path, new_parser\n"
        "from cairn.tokens.counter import counter_for\n"
        "files = json.loads(sys.argv[1]); root = Path(sys.argv[2])\n"
        "datas = [(root / f).read_bytes() for f in files]\n"
        "parser = new_parser(language_for_path(files[0])); count = counter_for(sys.argv[3])\n"
        "count('x')\n"
        "t = time.perf_counter()\n"
        "for d in datas: parser.parse(d)\n"
        "parse = time.perf_counter() - t; t = time.perf_counter()\n"
        "for d in datas: count(d.decode('utf-8', 'replace'))\n"
        "tok = time.perf_counter() - t\n"
        "print(json.dumps({'parse_s': parse, 'tokenize_s': tok, 'bytes': sum(map(len, datas))}))\n"
    )
    out = _run([str(CAIRN_PYTHON), "-c", code, json.dumps(files), str(corpus.root), MODEL])
    return json.loads(out.strip().splitlines()[-1])


METRICS = ("cold_s", "cold_cpu_s", "warm_s", "warm_cpu_s", "edit_p95_s", "edit_p95_cpu_s")


def one_repeat(
    tool: str, corpus: Corpus, budget: int, edits: int, files: list[str]
) -> dict[str, float]:
    """Cold run (caches deleted), then warm run + edits in a new process."""
    clear_caches(corpus)
    first = run_tool(tool, corpus, budget, 0, files)
    second = run_tool(tool, corpus, budget, edits, files)
    sample = {
        "cold_s": float(first["first_s"]),  # type: ignore[arg-type]
        "cold_cpu_s": float(first["first_cpu_s"]),  # type: ignore[arg-type]
        "warm_s": float(second["first_s"]),  # type: ignore[arg-type]
        "warm_cpu_s": float(second["first_cpu_s"]),  # type: ignore[arg-type]
        "edit_p95_s": percentile([float(x) for x in second["edit_s"]], P95),  # type: ignore[union-attr]
        "edit_p95_cpu_s": percentile([float(x) for x in second["edit_cpu_s"]], P95),  # type: ignore[union-attr]
        "peak_rss_mb": max(float(first["peak_rss_kb"]), float(second["peak_rss_kb"])) / 1024,  # type: ignore[arg-type]
        "tokens": float(second["tokens"]),  # type: ignore[arg-type]
    }
    shown = " ".join(f"{key} {value:.3f}" for key, value in sample.items())
    print(f"{tool} {budget}: {shown}", file=sys.stderr, flush=True)
    return sample


def measure(corpus: Corpus, repeats: int, edits: int) -> dict[str, object]:
    """Both tools per repeat, interleaved, so that load changes on the machine hit both."""
    files = corpus_files(corpus)
    table: dict[str, dict[str, dict[str, float]]] = {}
    for budget in BUDGETS:
        samples: dict[str, list[dict[str, float]]] = {"cairn": [], "aider": []}
        for _ in range(repeats):
            for tool in ("cairn", "aider"):
                samples[tool].append(one_repeat(tool, corpus, budget, edits, files))
        table[str(budget)] = {
            tool: {key: statistics.median(s[key] for s in runs) for key in runs[0]}
            for tool, runs in samples.items()
        }
    return {"table": table, "floor": floor(corpus, files), "files": len(files)}


def render(
    corpus: Corpus, results: dict[str, object], repeats: int, edits: int, seconds: float
) -> str:
    table: dict[str, dict[str, dict[str, float]]] = results["table"]  # type: ignore[assignment]
    bottom: dict[str, float] = results["floor"]  # type: ignore[assignment]
    lines = [
        f"## Repository map vs Aider, {corpus.name} (commit {head_commit()})",
        "",
        f"- Command: `{command_of(corpus, repeats, edits)}` ({seconds / 60:.0f} min)",
        f"- Machine: {current_machine().describe()} (shared, load at the end), {utc_now()} UTC",
        f"- Corpus: {corpus.description}, {results['files']} {corpus.pattern[1:]} files, "
        f"{bottom['bytes'] / 1e6:.1f} MB; files in play {', '.join(corpus.chat)}; "
        f"mentioned {', '.join(corpus.mentioned)}; tokens of {MODEL}",
        f"- Floor (one process): tree-sitter parse of all files {bottom['parse_s']:.2f} s, "
        f"tokenizing the same bytes {bottom['tokenize_s']:.2f} s",
        "- Medians of the repeats (the two tools interleaved); after-edit = p95 of the edited "
        "renders of one process; wall and CPU (user+system, workers included) seconds; "
        'ratio = Aider / Cairn (RSS: Cairn / Aider). Aider with refresh="always" '
        "(its default would serve a stale map after the edit).",
        "",
        "| budget | metric | Cairn | Aider | ratio | target |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    labels = {
        "cold_s": ("cold, wall (s)", "≥10×"),
        "cold_cpu_s": ("cold, CPU (s)", ""),
        "warm_s": ("warm, new process, wall (s)", "≥10×"),
        "warm_cpu_s": ("warm, new process, CPU (s)", ""),
        "edit_p95_s": ("next call after edit, p95 wall (s)", "≥30×"),
        "edit_p95_cpu_s": ("next call after edit, p95 CPU (s)", ""),
    }
    for budget, row in table.items():
        cairn, aider = row["cairn"], row["aider"]
        for key in METRICS:
            label, target = labels[key]
            ratio = aider[key] / cairn[key] if cairn[key] else float("inf")
            lines.append(
                f"| {budget} | {label} | {cairn[key]:.3f} | {aider[key]:.3f} | "
                f"{ratio:.1f}× | {target} |"
            )
        rss = cairn["peak_rss_mb"] / aider["peak_rss_mb"]
        lines.append(
            f"| {budget} | peak RSS (MB) | {cairn['peak_rss_mb']:.0f} | "
            f"{aider['peak_rss_mb']:.0f} | {rss:.2f} | ≤0.75 |"
        )
        lines.append(
            f"| {budget} | map tokens | {cairn['tokens']:.0f} | {aider['tokens']:.0f} | | |"
        )
    return "\n".join(lines) + "\n"


def command_of(corpus: Corpus, repeats: int, edits: int) -> str:
    """The command that reruns this measurement."""
    args = ["--corpus", corpus.name, "--repeats", str(repeats), "--edits", str(edits)]
    return invocation("repomap_vs_aider", args)


FIGURES = {
    "cold_s": "cold map, wall",
    "warm_s": "warm map in a new process, wall",
    "edit_p95_s": "next map after an edit, p95 wall",
}


def figures_of(corpus: Corpus, results: dict[str, object]) -> list[Figure]:
    """Cairn's wall times against Aider's, per budget (lower is better)."""
    table: dict[str, dict[str, dict[str, float]]] = results["table"]  # type: ignore[assignment]
    return [
        Figure(
            f"{corpus.name}, {budget}-token map: {label} (lower is better)",
            round(row["cairn"][key], 3),
            "s",
            round(row["aider"][key], 3),
            "Aider",
        )
        for budget, row in table.items()
        for key, label in FIGURES.items()
    ]


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.repomap_vs_aider", description=(__doc__ or "").split("\n\n")[0]
    )
    parser.add_argument("--corpus", choices=sorted(CORPORA), default="sympy")
    parser.add_argument("--repeats", type=int, default=DEFAULT_REPEATS)
    parser.add_argument("--edits", type=int, default=DEFAULT_EDITS)
    parser.add_argument("--no-write", action="store_true")
    options = parser.parse_args()
    corpus = CORPORA[options.corpus]
    setup(corpus)
    started = time.perf_counter()
    results = measure(corpus, options.repeats, options.edits)
    seconds = time.perf_counter() - started
    text = render(corpus, results, options.repeats, options.edits, seconds)
    sys.stdout.write(text)
    (WORK / f"last-results-{corpus.name}.json").write_text(
        json.dumps(results, indent=2), encoding="utf-8"
    )
    if not options.no_write:
        command = command_of(corpus, options.repeats, options.edits)
        record(this_run("repomap_vs_aider", figures_of(corpus, results), text, command))


if __name__ == "__main__":
    main()
