"""The lexical statistics of where-to-look: kept one file at a time, equal to a fresh build.

The oracle is BM25 written out plainly over `lexical_document` (the formula of
`cairn.repomap.lexicon`): every score and matched-word order must be the same floats
after any sequence of file changes, removals and additions, and after the statistics
are folded, stored as arrays and loaded back.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence

import numpy as np
import pytest

from cairn.repomap.lexicon import BM25_B, BM25_K1, FileFacts, Lexicon, lexical_document
from cairn.repomap.postings import Postings

WORDS = ["parse", "header", "table", "row", "format", "Writer", "read_csv", "HTTPServer"]
QUERIES = [
    ["parse", "header"],
    ["table", "row", "format", "writer"],
    ["http", "server", "read", "csv"],
    ["nothing", "parse"],
    ["absent"],
]


def oracle(facts: Mapping[str, FileFacts], words: Sequence[str]) -> dict[str, object]:
    """BM25 of `words` over the files' lexical documents, computed from scratch."""
    files = sorted(facts)
    docs = [lexical_document(rel, facts[rel]) for rel in files]
    lengths = [sum(d.values()) for d in docs]
    average = sum(lengths) / len(lengths) if lengths else 0.0
    terms = sorted(set(words))
    df = {t: sum(1 for d in docs if t in d) for t in terms}
    idf = {t: math.log(1.0 + (len(files) - df[t] + 0.5) / (df[t] + 0.5)) for t in terms}
    out: dict[str, object] = {}
    for rel, doc, length in zip(files, docs, lengths, strict=True):
        norm = BM25_K1 * (1.0 - BM25_B + BM25_B * length / average) if average else 0
        score, matched = 0.0, []
        for t in terms:
            if doc.get(t, 0):
                part = idf[t] * doc[t] * (BM25_K1 + 1.0) / (doc[t] + norm)
                score += part
                matched.append((-part, t))
        if score > 0.0:
            out[rel] = (score, tuple(t for _, t in sorted(matched)))
    return out


def random_facts(rng: random.Random) -> FileFacts:
    names = tuple(rng.sample(WORDS, rng.randint(0, 3)))
    uses = {rng.choice(WORDS) + rng.choice(["", "_x", "Y"]): rng.randint(1, 5) for _ in range(4)}
    return FileFacts(names, uses)


def test_updates_one_file_at_a_time_give_a_fresh_builds_scores() -> None:
    rng = random.Random(7)
    folders = ["pkg", "pkg/io", "tests", "table"]
    facts = {f"{rng.choice(folders)}/mod{i}.py": random_facts(rng) for i in range(40)}
    lexicon = Lexicon(facts)
    for step in range(120):
        rel = rng.choice([*sorted(facts), f"new/parse_{step}.py"])
        if rng.random() < 0.25:
            facts.pop(rel, None)
            lexicon.update(rel, None)
        else:
            facts[rel] = random_facts(rng)
            lexicon.update(rel, facts[rel])
        query = QUERIES[step % len(QUERIES)]
        assert list(lexicon.scores(query).items()) == list(oracle(facts, query).items())
    assert lexicon.files == sorted(facts)
    files, vocab, arrays = lexicon.postings.arrays()  # folded into the base
    loaded = Lexicon.of(Postings.from_arrays(files, vocab, arrays))
    for query in QUERIES:
        assert list(loaded.scores(query).items()) == list(oracle(facts, query).items())


def test_the_base_is_rebuilt_when_the_overlay_grows() -> None:
    facts = {f"m{i}.py": FileFacts(("parse",), {"header": i % 3 + 1}) for i in range(8)}
    lexicon = Lexicon(facts)
    for i in range(700):  # more changed files than the overlay keeps
        facts[f"n{i}.py"] = FileFacts(("table",), {"parse": 1})
        lexicon.update(f"n{i}.py", facts[f"n{i}.py"])
    assert list(lexicon.scores(["parse", "table"]).items()) == list(
        oracle(facts, ["parse", "table"]).items()
    )


def test_stored_statistics_that_do_not_fit_are_refused() -> None:
    facts = {"a.py": FileFacts(("parse",), {"header": 2}), "b.py": FileFacts((), {"row": 1})}
    files, vocab, arrays = Lexicon(facts).postings.arrays()
    Postings.from_arrays(files, vocab, arrays)  # fits
    with pytest.raises(ValueError):
        Postings.from_arrays(files[:1], vocab, arrays)
    bad = dict(arrays, t_file=np.full_like(arrays["t_file"], 5))
    with pytest.raises(ValueError):
        Postings.from_arrays(files, vocab, bad)
    with pytest.raises(ValueError):
        Postings.from_arrays(files, vocab, {k: v for k, v in arrays.items() if k != "df"})
