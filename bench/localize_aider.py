"""Aider's repository map for `bench/localize.py`: the peer's first-call map for the same
issue text, at the same budgets.

Aider 0.86.2 runs offline in its own venv (`bench/.work/aider-venv`, never a project
dependency; created on first use with `pip install aider-chat==0.86.2`), with a scratch
`HOME` holding litellm's model map (`bench/.work/home`), in one fresh process per instance.
The driver does what Aider's coder does for a first message with no file in the chat:
the mentioned file names and identifiers come from Aider's own `Coder.get_file_mentions`,
`get_ident_mentions` and `get_ident_filename_matches` (called on the tree's file list,
since the materialised trees have no commits for Aider's git listing), then
`RepoMap.get_repo_map(set(), all files, mentioned_fnames, mentioned_idents)` at each
budget. A tree's tags are cached by Aider in the tree (`.aider.tags.cache.v4`), so only
its first map is cold. Results are kept per (instance, budget) in
`bench/.work/localize-aider.json` and reused by later runs (`--aider-fresh` recomputes).
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

from bench.harness.aider import AIDER_PYTHON, AIDER_VERSION, aider_env, install_aider
from bench.harness.paths import WORK

DRIVER = WORK / "localize_aider_driver.py"
CACHE = WORK / "localize-aider.json"
TIMEOUT_S = 3600
SKIPPED_DIRS = frozenset({".git", ".cairn"})

DRIVER_SOURCE = r"""
import json, sys, time
from pathlib import Path
args = json.loads(sys.argv[1])
from aider.coders.base_coder import Coder
from aider.io import InputOutput
from aider.models import Model
from aider.repomap import RepoMap

root = Path(args["root"])
files = args["files"]
message = args["message"]

class Listing:
    # What Aider's mention extraction asks of a coder: the repository's files, none in chat.
    abs_read_only_fnames = set()
    def get_all_relative_files(self): return files
    def get_addable_relative_files(self): return files
    def get_inchat_relative_files(self): return []
    def get_rel_fname(self, fname): return fname

listing = Listing()
fnames = Coder.get_file_mentions(listing, message)
idents = Coder.get_ident_mentions(listing, message)
fnames.update(Coder.get_ident_filename_matches(listing, idents))
io = InputOutput(pretty=False, yes=True, fancy_input=False)
model = Model(args["model"])
other = [str(root / rel) for rel in files]
out = {}
for budget in args["budgets"]:
    started = time.perf_counter()
    repomap = RepoMap(map_tokens=budget, root=str(root), main_model=model, io=io)
    text = repomap.get_repo_map(set(), other, mentioned_fnames=fnames, mentioned_idents=idents) or ""
    out[str(budget)] = {"text": text, "seconds": time.perf_counter() - started,
                        "tokens": model.token_count(text)}
sys.stdout.write(json.dumps(out) + "\n")
"""


def tree_files(tree: Path) -> list[str]:
    """The tree's files, relative, sorted (what a git listing of its commit would give)."""
    out: list[str] = []
    for dirpath, dirnames, filenames in os.walk(tree):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIPPED_DIRS)
        base = Path(dirpath).relative_to(tree)
        out += [(base / name).as_posix() for name in filenames]
    return sorted(out)


def setup() -> None:
    """The Aider venv, its scratch HOME and the driver (created when missing)."""
    install_aider()
    DRIVER.write_text(DRIVER_SOURCE, encoding="utf-8")


def aider_maps(
    instance_id: str, tree: Path, message: str, budgets: Sequence[int], model: str, fresh: bool
) -> dict[str, dict[str, object]]:
    """Aider's map text, time and tokens per budget for one instance (cached)."""
    cache: dict[str, dict[str, dict[str, object]]] = (
        json.loads(CACHE.read_text(encoding="utf-8")) if CACHE.exists() else {}
    )
    key = f"{instance_id}@{AIDER_VERSION}"
    have = cache.get(key, {})
    if not fresh and all(str(b) in have for b in budgets):
        return have
    args = {
        "root": str(tree),
        "files": tree_files(tree),
        "message": message,
        "budgets": list(budgets),
        "model": model,
    }
    started = time.perf_counter()
    done = subprocess.run(
        [str(AIDER_PYTHON), str(DRIVER), json.dumps(args)],
        capture_output=True,
        text=True,
        env=aider_env(),
        timeout=TIMEOUT_S,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"aider failed on {instance_id}: {done.stderr[-2000:]}")
    maps: dict[str, dict[str, object]] = json.loads(done.stdout.strip().splitlines()[-1])
    maps["wall"] = {"seconds": time.perf_counter() - started}
    cache[key] = maps
    CACHE.write_text(json.dumps(cache, sort_keys=True), encoding="utf-8")
    return maps
