"""One first call's map in a fresh process, for `python -m bench.monorepo` (run by path).

Argument: a JSON object with `root` (the workspace), `cache_dir` (the map's index
folder), `model`, `window` (its context
window, tokens), `message` (the first call's
user message) and `messages` (more messages, each ranked afterwards in the same process:
the warm where-to-look ranking). Builds what gather builds for the repository map —
`RepoMap` over the workspace's listed files with its index in `cache_dir`,
the where-to-look block and the map in its order (`repomap_candidates`) — and prints one
JSON line: the wall and CPU time of each phase since this process started, each warm
ranking's wall and CPU time, the peak RSS of this process and of its children (the map's helper
processes), and a digest of the blocks (the same tree and message must give the same
bytes on every side).
"""

from __future__ import annotations

import time

STARTED = time.perf_counter()

import hashlib  # noqa: E402  (the clock starts before the imports)
import json  # noqa: E402
import resource  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

from cairn.context.gather import mentioned_words  # noqa: E402
from cairn.context.sources.repomap import map_cap, repomap_candidates  # noqa: E402
from cairn.files.ignore import IgnoreRules  # noqa: E402
from cairn.repomap.map import RepoMap  # noqa: E402
from cairn.tokens.counter import counter_for  # noqa: E402


def _since_start() -> float:
    return round(time.perf_counter() - STARTED, 4)


def _cpu() -> float:
    """CPU seconds of this process so far (what a loaded machine does not inflate)."""
    return round(time.process_time(), 4)


def main() -> None:
    args = json.loads(sys.argv[1])
    root = Path(args["root"]).resolve()
    phases: dict[str, float] = {"imports": _since_start()}
    cpu: dict[str, float] = {"imports": _cpu()}
    count = counter_for(args["model"])
    count("warm up the tokenizer")
    window = int(args["window"])
    phases["tokenizer"] = _since_start()
    cpu["tokenizer"] = _cpu()
    repo_map = RepoMap(root, IgnoreRules.for_folder(root), Path(args["cache_dir"]))
    phases["index loaded"] = _since_start()
    cpu["index loaded"] = _cpu()
    message = args["message"]
    candidates = repomap_candidates(
        repo_map, [], mentioned_words(message), [], count, window, message, map_cap(window)
    )
    phases["first map"] = _since_start()
    cpu["first map"] = _cpu()
    bodies = "\n\n".join(c.body for c in candidates)
    ranking_s: list[float] = []
    ranking_cpu_s: list[float] = []
    for other in args["messages"]:
        started, started_cpu = time.perf_counter(), time.process_time()
        repo_map.where_to_look([], other)
        ranking_s.append(round(time.perf_counter() - started, 4))
        ranking_cpu_s.append(round(time.process_time() - started_cpu, 4))
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    print(
        json.dumps(
            {
                "phases": phases,
                "cpu": cpu,
                "ranking_s": ranking_s,
                "ranking_cpu_s": ranking_cpu_s,
                "rss_kb": own,
                "children_rss_kb": children,
                "digest": hashlib.sha256(bodies.encode()).hexdigest()[:16],
                "chars": len(bodies),
            }
        )
    )


if __name__ == "__main__":
    main()
