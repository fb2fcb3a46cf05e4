"""Where to look: the workspace's files ranked for one message (pure; I/O only through
the `read_text` a caller passes).

A file's score is the weighted sum of its parts (`cairn.repomap.where_parts.file_parts`:
paths and traceback frames, dotted names, file names, defined names by specificity,
qualified names, phrases, BM25, path words), plus the structural prior (its PageRank in
the map's graph, as a share of the best) and the session (files in play), times the
factor of its role (`role_of`: tests, fixtures, docs, examples, vendored, generated code
and stubs are demoted unless the message names them by path). The weights are the
`[where_to_look]` settings (`cairn.models.where_weights`). Every sum runs in a fixed order
and ties break by path, so the same tags and message give the same ranking, and
`render_where` the same bytes.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass

from cairn.models.where_weights import DEFAULT_WHERE_WEIGHTS, WhereWeights
from cairn.repomap.file_roles import role_of
from cairn.repomap.lexicon import FileFacts, Lexicon
from cairn.repomap.message_mentions import mentions_in, split_identifier
from cairn.repomap.where_parts import (
    FileParts,
    ReadText,
    SymbolAt,
    file_parts,
    in_play_parts,
)

WHERE_TITLE = "Where to look (the files most likely to need the change, best first)"
DETAILED = 40
"""Files, best first, given their symbols and reason (the rest only a score: no block, map
order or search shows that many)."""
MAX_SYMBOLS = 3
"""Best symbols shown per file."""
MAX_REASON_WORDS = 4
"""Matched words named in a lexical reason."""
DEFINES_CAP = 2.0
"""The most the specificity part adds, in units of one code name defined in one file."""
SHARED_CAP = 2.0
"""The most the qualified-name and phrase parts add each, in units of one sure match."""


@dataclass(frozen=True)
class RankedFile:
    """One ranked file: its score, its best symbols and why it ranks."""

    rel: str
    score: float
    symbols: tuple[str, ...]
    reason: str


@dataclass(frozen=True)
class WhereMeasure:
    """The unweighted parts of one message's ranking, with what weighing them needs."""

    parts: dict[str, FileParts]
    facts: Mapping[str, FileFacts]
    prior: Mapping[str, float]
    in_play: frozenset[str]


def rank_files(
    facts: Mapping[str, FileFacts],
    message: str,
    prior: Mapping[str, float],
    in_play: Collection[str] = (),
    symbol_at: SymbolAt | None = None,
    weights: WhereWeights = DEFAULT_WHERE_WEIGHTS,
    lexicon: Lexicon | None = None,
    read_text: ReadText | None = None,
) -> list[RankedFile]:
    """Every file with a positive score, best first (ties by path)."""
    parts = file_parts(
        facts, mentions_in(message), message, lexicon or Lexicon(facts), symbol_at, read_text
    )
    return ranked_from_parts(WhereMeasure(parts, facts, prior, frozenset(in_play)), weights)


def ranked_from_parts(measure: WhereMeasure, weights: WhereWeights) -> list[RankedFile]:
    """The ranking of measured parts under `weights` (the fit reuses one measure)."""
    parts, facts, in_play_set = measure.parts, measure.facts, measure.in_play
    in_play_parts(parts, in_play_set)
    out: list[RankedFile] = []
    for index, (negative, rel) in enumerate(scored(measure, weights)):
        if index < DETAILED:
            p = parts[rel]
            reason = _reason(p, rel in in_play_set, weights)
            out.append(RankedFile(rel, -negative, _symbols(p, facts[rel]), reason))
        else:
            out.append(RankedFile(rel, -negative, (), ""))
    return out


def scored(measure: WhereMeasure, w: WhereWeights) -> list[tuple[float, str]]:
    """(-score, path) of every file with a positive score, sorted."""
    parts, facts, prior, in_play = measure.parts, measure.facts, measure.prior, measure.in_play
    # A code name defined in one file scores about 1 (never more than DEFINES_CAP): plain
    # words alone stay small, whatever the best file has.
    unique = math.log(1.0 + len(facts)) or 1.0
    top_lexical = max((p.lexical for p in parts.values()), default=0.0) or 1.0
    top_prior = max(prior.values(), default=0.0) or 1.0
    top_path_words = max((p.path_words for p in parts.values()), default=0.0) or 1.0
    factors = w.roles.model_dump()
    out: list[tuple[float, str]] = []
    for rel in sorted(parts):
        if rel not in facts:
            continue
        p = parts[rel]
        defines = min((p.defines_code + w.plain_word * p.defines_plain) / unique, DEFINES_CAP)
        score = (
            w.path * (p.path + w.last_frame * p.last_frame + w.weak_path * p.weak_path)
            + w.dotted * p.dotted
            + w.stem * p.stem
            + w.defines * defines
            + w.qualified * min(p.qualified, SHARED_CAP)
            + w.phrase * min(p.phrase, SHARED_CAP)
            + w.lexical * p.lexical / top_lexical
            + w.path_words * p.path_words / top_path_words
            + w.prior * prior.get(rel, 0.0) / top_prior
            + (w.session if rel in in_play else 0.0)
        )
        if not p.named:
            score *= factors.get(role_of(rel), 1.0)
        if score > 0.0:
            out.append((-round(score, 9), rel))
    out.sort()
    return out


def _symbols(p: FileParts, facts: FileFacts) -> tuple[str, ...]:
    qualified = [q.rsplit(".", 1)[-1] for q in p.qualified_names]
    chosen = [*p.line_symbols, *qualified, *(name for _, name, _ in p.defined)]
    if len(chosen) < MAX_SYMBOLS and p.words:
        wanted = set(p.words)
        chosen += [n for n in facts.names if wanted & set(split_identifier(n))]
    return tuple(dict.fromkeys(chosen))[:MAX_SYMBOLS]


def _reason(p: FileParts, in_play: bool, w: WhereWeights) -> str:
    """Why the file ranks: the parts that count under `w` (a part weighed 0 is not named)."""
    reasons: list[str] = []
    if p.frames:
        lines = ", ".join(dict.fromkeys(p.frames))
        where = f" (`{p.line_symbols[0]}`)" if p.line_symbols else ""
        reasons.append(f"traceback line {lines}{where}")
    elif p.named:
        reasons.append("named in the message")
    elif p.dotted and w.dotted:
        reasons.append("module of a dotted name in the message")
    elif p.stem and w.stem:
        reasons.append("its name is in the message")
    if p.phrases and w.phrase:
        reasons.append(f'holds "{p.phrases[0]}"')
    if p.qualified_names and w.qualified:
        names = ", ".join(f"`{q}`" for q in dict.fromkeys(p.qualified_names[:MAX_SYMBOLS]))
        reasons.append(f"defines {names}")
    elif p.defined:
        names = ", ".join(f"`{name}`" for _, name, _ in p.defined[:MAX_SYMBOLS])
        reasons.append(f"defines {names} (named in the message)")
    if p.words and not p.defined and not (p.qualified_names and w.qualified):
        reasons.append("matches " + ", ".join(f"`{w}`" for w in p.words[:MAX_REASON_WORDS]))
    if in_play:
        reasons.append("in play")
    return "; ".join(reasons) or "central in the repository"


def render_where(candidates: Iterable[RankedFile]) -> str:
    """The block's lines: `N. path — reason; look at …` (same input, same bytes)."""
    lines: list[str] = []
    for index, c in enumerate(candidates, start=1):
        symbols = f"; look at {', '.join(f'`{s}`' for s in c.symbols)}" if c.symbols else ""
        lines.append(f"{index}. {c.rel} — {c.reason}{symbols}")
    return "\n".join(lines) + ("\n" if lines else "")
