"""The BM25 baseline of `bench/localize.py`: files ranked by their contents for the issue text.

Okapi BM25 (k1 = 1.2, b = 0.75) over each source file's identifier-like words, lower-cased,
with the issue text's words as the query; ties break by path. It reads the tree itself and
knows nothing of Cairn: the bar a zero-call ranking has to clear.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from pathlib import Path

K1 = 1.2
B = 0.75
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]+")
SOURCE_SUFFIXES = frozenset({".py", ".pyi", ".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs"})
SKIPPED_DIRS = frozenset({".git", ".cairn", "node_modules", "__pycache__", ".tox", "build", "dist"})


def words(text: str) -> list[str]:
    """The lower-cased identifier-like words of a text."""
    return [w.lower() for w in WORD.findall(text)]


def source_files(root: Path) -> list[str]:
    """Root-relative paths of the tree's source files, sorted."""
    out: list[str] = []
    for path in root.rglob("*"):
        rel = path.relative_to(root)
        if any(part in SKIPPED_DIRS for part in rel.parts[:-1]):
            continue
        if path.suffix in SOURCE_SUFFIXES and path.is_file():
            out.append(rel.as_posix())
    return sorted(out)


def bm25_ranking(root: Path, query: str) -> list[str]:
    """The tree's source files best first for `query`."""
    files = source_files(root)
    counts = [
        Counter(words((root / rel).read_text(encoding="utf-8", errors="replace"))) for rel in files
    ]
    lengths = [sum(c.values()) for c in counts]
    average = (sum(lengths) / len(lengths)) if lengths else 0.0
    frequency: Counter[str] = Counter()
    for c in counts:
        frequency.update(c.keys())
    terms = set(words(query))
    total = len(files)
    idf = {t: math.log(1 + (total - frequency[t] + 0.5) / (frequency[t] + 0.5)) for t in terms}
    scored: list[tuple[float, str]] = []
    for rel, c, length in zip(files, counts, lengths, strict=True):
        score = 0.0
        norm = K1 * (1 - B + B * length / average) if average else K1
        for t in terms:
            tf = c.get(t, 0)
            if tf:
                score += idf[t] * tf * (K1 + 1) / (tf + norm)
        scored.append((-score, rel))
    return [rel for _, rel in sorted(scored)]
