"""One Cairn repository-map run for `python -m bench.repomap_vs_aider` (run in a fresh process).

Argument: a JSON object with `root`, `cache_dir`, `files` (every corpus file, relative),
`chat` (files in play, relative), `idents`, `budget`, `model`, `edits` (how many edited
renders to time after the first one), `edit_marker` and `edit_line` (the edit typed).
Prints one JSON line: the wall and CPU time of the first render (cold or warm, depending
on the cache the caller left), those of the renders after each buffer edit, the output
size and tokens, and the peak RSS of this process and its children (the parse workers).
"""

from __future__ import annotations

import json
import resource
import sys
import time
from pathlib import Path

from cairn.repomap.map import RepoMap
from cairn.tokens.counter import counter_for


class _Files:
    def __init__(self, paths: list[Path]) -> None:
        self._paths = paths

    def files(self) -> list[Path]:
        return self._paths


def edited_text(text: str, step: int, marker: str, line: str) -> str:
    """`text` with one new statement (`line`) typed into the first function body: before
    the first line starting with `marker`."""
    at = text.index("\n" + marker) + 1
    return text[:at] + line.format(step=step) + text[at:]


def cpu_seconds() -> float:
    """CPU time (user + system) of this process and its finished children (parse workers)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main() -> None:
    args = json.loads(sys.argv[1])
    root = Path(args["root"])
    count = counter_for(args["model"])
    count("warm up the tokenizer")
    lister = _Files([root / rel for rel in args["files"]])
    chat = [root / rel for rel in args["chat"]]
    idents = set(args["idents"])
    started, cpu = time.perf_counter(), cpu_seconds()
    repomap = RepoMap(root, lister, Path(args["cache_dir"]))
    text = repomap.render(chat, idents, args["budget"], count)
    first = time.perf_counter() - started
    first_cpu = cpu_seconds() - cpu
    parsed = len(repomap.scanned_last_refresh)
    original = chat[0].read_text(encoding="utf-8")
    edit_times: list[float] = []
    edit_cpu: list[float] = []
    for step in range(args["edits"]):
        started, cpu = time.perf_counter(), cpu_seconds()
        edited = edited_text(original, step, args["edit_marker"], args["edit_line"])
        repomap.update_buffer(chat[0], edited)
        repomap.render(chat, idents, args["budget"], count)
        edit_times.append(time.perf_counter() - started)
        edit_cpu.append(cpu_seconds() - cpu)
    peak = max(
        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
    )
    result = {
        "first_s": first,
        "first_cpu_s": first_cpu,
        "edit_s": edit_times,
        "edit_cpu_s": edit_cpu,
        "chars": len(text),
        "tokens": count(text),
        "peak_rss_kb": peak,
        "parsed": parsed,
    }
    sys.stdout.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
