"""Fingerprints of the repository map's output on real corpora, to prove a change kept the bytes.

    .venv/bin/python -m bench.repomap_hashes record OUT.json CORPUS_DIR... [--texts DIR]
    .venv/bin/python -m bench.repomap_hashes compare BEFORE.json AFTER.json

`record` renders the map of each corpus folder (files listed by `IgnoreRules`, tokens of
gpt-4o) in several scenarios and budgets and writes the SHA-256 of every output:

- `cold`: no file in play, nothing mentioned, no cache;
- `play`: two files in play and three mentioned identifiers, no cache;
- `warm`: the `play` inputs again from a new map reading the cache the first one saved;
- `edited`: the `play` map after buffer edits (a definition appended to a file in play
  and to a file that is not), then after the second buffer is closed again.

The inputs are picked from the corpus alone (sorted source files at a third and two
thirds of the list; the three most frequent long words of the middle file), never from
the code under test, so two commits see the same inputs. `compare` prints every output
whose hash differs and exits 1 when any does; `--texts` keeps the outputs to diff.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import tempfile
from collections import Counter
from pathlib import Path

from cairn.files.ignore import IgnoreRules
from cairn.files.languages import grammar_of
from cairn.repomap.map import RepoMap
from cairn.tokens.counter import counter_for

BUDGETS = (1024, 4096, 8192)
MODEL = "gpt-4o"
MENTIONED_COUNT = 3
MENTIONED_MIN_CHARS = 6
_WORD = re.compile(rf"[A-Za-z_][A-Za-z0-9_]{{{MENTIONED_MIN_CHARS - 1},}}")
PROBES: dict[str, str] = {
    "python": "\n\ndef cairn_probe_edit(value):\n    return value\n",
    "go": "\n\nfunc cairnProbeEdit(value int) int {\n\treturn value\n}\n",
    "rust": "\n\nfn cairn_probe_edit(value: i32) -> i32 {\n    value\n}\n",
}
DEFAULT_PROBE = "\n\nfunction cairnProbeEdit(value) {\n  return value;\n}\n"


def _inputs(sources: list[Path]) -> tuple[list[Path], set[str], Path]:
    """(files in play, mentioned identifiers, a file not in play to edit) of a corpus."""
    count = len(sources)
    play = sorted({sources[count // 3], sources[(2 * count) // 3]})
    other = sources[count // 2]
    words = Counter(_WORD.findall(other.read_text(encoding="utf-8", errors="replace")))
    ranked = sorted(words.items(), key=lambda item: (-item[1], item[0]))
    return play, {word for word, _ in ranked[:MENTIONED_COUNT]}, other


def _probe(path: Path) -> str:
    text = path.read_text(encoding="utf-8", errors="replace")
    return text + PROBES.get(grammar_of(path) or "", DEFAULT_PROBE)


def corpus_outputs(root: Path) -> dict[str, str]:
    """Every scenario's map text of one corpus folder, by `scenario/budget`."""
    rules = IgnoreRules.for_folder(root)
    sources = [path for path in rules.files() if grammar_of(path) is not None]
    if not sources:
        return {}
    count = counter_for(MODEL)
    play, mentioned, other = _inputs(sources)
    outputs: dict[str, str] = {}
    for budget in BUDGETS:
        outputs[f"cold/{budget}"] = RepoMap(root, rules).render([], set(), budget, count)
        with tempfile.TemporaryDirectory() as cache:
            first = RepoMap(root, rules, Path(cache))
            outputs[f"play/{budget}"] = first.render(play, mentioned, budget, count)
            warm = RepoMap(root, rules, Path(cache))
            outputs[f"warm/{budget}"] = warm.render(play, mentioned, budget, count)
            warm.update_buffer(play[0], _probe(play[0]))
            warm.update_buffer(other, _probe(other))
            outputs[f"edited/{budget}"] = warm.render(play, mentioned, budget, count)
            warm.update_buffer(other, None)
            outputs[f"closed/{budget}"] = warm.render(play, mentioned, budget, count)
    return outputs


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def record(out: Path, corpora: list[Path], texts: Path | None) -> None:
    table: dict[str, dict[str, str]] = {}
    for root in corpora:
        outputs = corpus_outputs(root.resolve())
        table[root.name] = {key: _digest(text) for key, text in outputs.items()}
        if texts is not None:
            for key, text in outputs.items():
                target = texts / root.name / key.replace("/", "-")
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(text, encoding="utf-8", errors="surrogatepass")
        print(f"{root.name}: {len(outputs)} outputs", file=sys.stderr, flush=True)
    out.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def compare(before: Path, after: Path) -> int:
    old = json.loads(before.read_text(encoding="utf-8"))
    new = json.loads(after.read_text(encoding="utf-8"))
    differ = 0
    for corpus in sorted(old.keys() | new.keys()):
        keys = old.get(corpus, {}).keys() | new.get(corpus, {}).keys()
        changed = [
            k for k in sorted(keys) if old.get(corpus, {}).get(k) != new.get(corpus, {}).get(k)
        ]
        differ += len(changed)
        state = f"{len(changed)} of {len(keys)} differ: {', '.join(changed)}" if changed else "same"
        print(f"{corpus}: {state}")
    return 1 if differ else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    rec = commands.add_parser("record")
    rec.add_argument("out", type=Path)
    rec.add_argument("corpora", type=Path, nargs="+")
    rec.add_argument("--texts", type=Path)
    cmp_ = commands.add_parser("compare")
    cmp_.add_argument("before", type=Path)
    cmp_.add_argument("after", type=Path)
    options = parser.parse_args()
    if options.command == "record":
        record(options.out, options.corpora, options.texts)
    else:
        raise SystemExit(compare(options.before, options.after))


if __name__ == "__main__":
    main()
