"""Where to look: the workspace's files ranked for one message (pure; no I/O).

A file's score is a weighted sum of six parts, times the factor of its role:
- exact mentions (`mentions_in`): workspace paths and path suffixes anywhere in the
  message, frames of pasted tracebacks (Python `File "…/pkg/mod.py", line N`, pytest and
  compiler `pkg/mod.py:206`, Node/TypeScript `at fn (src/x.ts:12:5)`) and dotted names
  (`pkg.mod.Class.method` names the module `pkg/mod.py`), each resolved to files by the
  longest matching path suffix (`resolve_path`);
- specificity (`definition_idf`): the message's identifiers the file defines, each
  weighted by how rare it is among definitions, so a name defined in one file points
  there and `test` or `name` point nowhere;
- lexical relevance (`Lexicon`): BM25 of the message's words, split into their
  snake/camel parts (`split_identifier`), over each file's path parts, defined names and
  used identifiers (what the map's tag scan already holds);
- path words (`_path_word_parts`): the message's words among the file's folder and
  file-name parts, each weighted by how few paths hold it — a long file's path is not
  diluted by its body as BM25 dilutes it (`dialect_snowflake.py` for a snowflake issue);
- the structural prior: the file's rank in the map's PageRank, as a share of the best;
- the session: files in play (read, edited, open).
Tests, fixtures, docs, examples, vendored and generated files (`role_of`) are demoted
unless the message names them by path. Every sum runs in a fixed order and ties break
by path, so the same tags and message give the same ranking, and `render_where` the same
bytes.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache

from cairn.repomap.file_roles import role_of
from cairn.repomap.lexicon import FileFacts, Lexicon, definition_idf
from cairn.repomap.message_mentions import (
    Mentions,
    mentions_in,
    module_paths,
    resolve_path,
    split_identifier,
)

# ---------------------------------------------------------------------------- settings


@dataclass(frozen=True)
class WhereWeights:
    """The named weights of the score; defaults fitted on `bench/localize.py`'s set across
    its repositories (see docs/REPOMAP.md)."""

    path: float = 3.0
    """Per resolved path mention (a traceback frame counts like a path)."""
    last_frame: float = 1.0
    """Extra for the last traceback frame (where the error was raised), as a share of a
    path mention."""
    defines: float = 1.0
    """For the message's identifiers the file defines (IDF-weighted, best file = 1)."""
    plain_word: float = 0.1
    """A defined name mentioned only as a plain word counts this share of a code one."""
    stem: float = 1.0
    """For a file whose name (without extension) is an identifier of the message."""
    lexical: float = 2.0
    """For the BM25 score (best file = 1)."""
    prior: float = 0.3
    """For the PageRank prior (best file = 1)."""
    session: float = 1.5
    """For a file in play."""
    path_words: float = 1.0
    """For the message's words in the file's path (folder and file name parts), each
    weighted by how few paths hold it (best file = 1): a path is not diluted by a long
    body as BM25 dilutes it."""
    role_factors: Mapping[str, float] = field(
        default_factory=lambda: {
            "source": 1.0,
            "test": 0.3,
            "fixture": 0.2,
            "docs": 0.3,
            "example": 0.3,
            "vendored": 0.2,
            "generated": 0.2,
        }
    )


DEFAULT_WEIGHTS = WhereWeights()
WHERE_TITLE = "Where to look (the files most likely to need the change, best first)"
DETAILED = 40
"""Files, best first, given their symbols and reason (the rest only a score: no block, map
order or search shows that many)."""
MAX_SYMBOLS = 3
"""Best symbols shown per file."""
MAX_REASON_WORDS = 4
"""Matched words named in a lexical reason."""
DOTTED_SHARE = 0.5
"""A dotted name's module counts this share of a path mention."""
DEFINES_CAP = 2.0
"""The most the specificity part adds, in units of one code name defined in one file."""
MAX_STEM_FILES = 3
"""A mentioned name matching more file names than this names none of them."""
PATH_CACHE_SIZE = 1 << 17
"""Paths (and path parts) whose words are kept between rankings."""


@dataclass(frozen=True)
class RankedFile:
    """One ranked file: its score, its best symbols and why it ranks."""

    rel: str
    score: float
    symbols: tuple[str, ...]
    reason: str


@dataclass
class _Parts:
    path: float = 0.0
    stem: float = 0.0
    frames: list[str] = field(default_factory=list)
    named: bool = False
    defines: float = 0.0
    defined: list[tuple[float, str]] = field(default_factory=list)
    lexical: float = 0.0
    words: tuple[str, ...] = ()
    line_symbols: list[str] = field(default_factory=list)
    path_words: float = 0.0


SymbolAt = Callable[[str, int], str | None]
"""The innermost definition holding a line of a file (None: none, or unknown)."""


def rank_files(
    facts: Mapping[str, FileFacts],
    message: str,
    prior: Mapping[str, float],
    in_play: Collection[str] = (),
    symbol_at: SymbolAt | None = None,
    weights: WhereWeights = DEFAULT_WEIGHTS,
    lexicon: Lexicon | None = None,
) -> list[RankedFile]:
    """Every file with a positive score, best first (ties by path)."""
    mentions = mentions_in(message)
    files = sorted(facts)
    parts: dict[str, _Parts] = {}
    _path_parts(parts, mentions, files, symbol_at, weights)
    _stem_parts(parts, mentions, files)
    _definition_parts(parts, mentions, facts, files, weights)
    if weights.path_words:
        _path_word_parts(parts, mentions, files)
    lexical = (lexicon or Lexicon(facts)).scores(mentions.words)
    for rel, (score, words) in lexical.items():
        p = parts.setdefault(rel, _Parts())
        p.lexical, p.words = score, words
    in_play_set = set(in_play)
    out: list[RankedFile] = []
    for index, (negative, rel) in enumerate(_scored(parts, facts, prior, in_play_set, weights)):
        if index < DETAILED:
            p, in_play_now = parts.setdefault(rel, _Parts()), rel in in_play_set
            out.append(RankedFile(rel, -negative, _symbols(p, facts[rel]), _reason(p, in_play_now)))
        else:
            out.append(RankedFile(rel, -negative, (), ""))
    return out


def _path_parts(
    parts: dict[str, _Parts],
    mentions: Mentions,
    files: list[str],
    symbol_at: SymbolAt | None,
    weights: WhereWeights,
) -> None:
    """Paths, traceback frames (the last one, where the error was raised, counts more) and
    the modules of dotted names."""
    frames = [m for m in mentions.paths if m.frame]
    last_frame = frames[-1] if frames else None
    for mention in mentions.paths:
        resolved = resolve_path(mention.path, files)
        if not resolved:
            continue
        share = (1.0 + weights.last_frame * (mention is last_frame)) / len(resolved)
        for rel in resolved:
            p = parts.setdefault(rel, _Parts())
            p.path = max(p.path, share)  # many frames in one file count as its best one
            p.named = True
            if mention.line is not None:
                p.frames.append(str(mention.line))
                symbol = symbol_at(rel, mention.line) if symbol_at is not None else None
                if symbol is not None and symbol not in p.line_symbols:
                    p.line_symbols.append(symbol)
    by_name: dict[str, list[str]] = {}  # files by their last path part, in `files` order
    if mentions.dotted:
        for rel in files:
            by_name.setdefault(rel.rpartition("/")[2], []).append(rel)
    for dotted in mentions.dotted:
        for suffix in module_paths(dotted):
            named = by_name.get(suffix.rpartition("/")[2], [])
            resolved = [rel for rel in named if rel == suffix or rel.endswith("/" + suffix)]
            if resolved:
                for rel in resolved:
                    p = parts.setdefault(rel, _Parts())
                    p.path = max(p.path, DOTTED_SHARE / len(resolved))
                break


def _stem_parts(parts: dict[str, _Parts], mentions: Mentions, files: list[str]) -> None:
    """Files whose name (without extension) is a code name of the message, shared among
    at most `MAX_STEM_FILES` such files."""
    stems: dict[str, list[str]] = {}
    for rel in files:
        stems.setdefault(_path_of(rel)[1].lower(), []).append(rel)
    for name in sorted(mentions.code):
        if name.startswith("__"):
            continue  # `__init__`, `__pkginfo__`: names every package has
        named = stems.get(name.lower(), [])
        if 0 < len(named) <= MAX_STEM_FILES:
            for rel in named:
                parts.setdefault(rel, _Parts()).stem += 1.0 / len(named)


def _definition_parts(
    parts: dict[str, _Parts],
    mentions: Mentions,
    facts: Mapping[str, FileFacts],
    files: list[str],
    weights: WhereWeights,
) -> None:
    """The message's identifiers each file defines, weighted by how rare the definition is
    (plain words count `weights.plain_word` of a code name)."""
    definers: Counter[str] = Counter()
    holding: dict[str, frozenset[str]] = {}  # the mentioned names each file defines
    for rel in files:
        found = mentions.identifiers.intersection(facts[rel].names)
        if found:
            holding[rel] = found
            definers.update(found)
    idf = definition_idf(definers, len(files))
    mentioned = sorted(name for name in mentions.identifiers if definers.get(name))
    for rel in holding:
        names = holding[rel]
        hits = [
            (idf(name) * (1.0 if name in mentions.code else weights.plain_word), name)
            for name in mentioned
            if name in names
        ]
        if hits:
            p = parts.setdefault(rel, _Parts())
            p.defines = sum(score for score, _ in hits)
            p.defined = sorted(hits, key=lambda h: (-h[0], h[1]))


def _path_word_parts(parts: dict[str, _Parts], mentions: Mentions, files: list[str]) -> None:
    """The message's words found among each file's path words, IDF-weighted over paths."""
    wanted = set(mentions.words)
    if not wanted:
        return
    words_of: dict[str, frozenset[str]] = {}
    frequency: Counter[str] = Counter()
    for rel in files:
        words = _path_words(rel) & wanted
        if words:
            words_of[rel] = words
            frequency.update(words)
    total = len(files)
    for rel, words in words_of.items():
        score = sum(math.log(1.0 + total / frequency[w]) for w in words)
        parts.setdefault(rel, _Parts()).path_words = score


@lru_cache(maxsize=PATH_CACHE_SIZE)
def _part_words(part: str) -> tuple[str, ...]:
    return tuple(split_identifier(part))


def _path_of(rel: str) -> tuple[list[str], str]:
    """A workspace path's folders and file stem (`PurePosixPath`'s parts and stem, for the
    normalised paths the map holds, without building one)."""
    *folders, name = rel.split("/")
    dot = name.rfind(".")
    return folders, name[:dot] if 0 < dot < len(name) - 1 else name


@lru_cache(maxsize=PATH_CACHE_SIZE)
def _path_words(rel: str) -> frozenset[str]:
    """The words of a path's folder and file-name parts (split snake/camel)."""
    folders, stem = _path_of(rel)
    return frozenset(w for part in [*folders, stem] for w in _part_words(part))


def _scored(
    parts: dict[str, _Parts],
    facts: Mapping[str, FileFacts],
    prior: Mapping[str, float],
    in_play: set[str],
    weights: WhereWeights,
) -> list[tuple[float, str]]:
    """(-score, path) of every file with a positive score, sorted: the weighted parts,
    times the role's factor unless the message names the file."""
    # A code name defined in one file scores about 1 (never more than DEFINES_CAP): plain
    # words alone stay small, whatever the best file has.
    unique = math.log(1.0 + len(facts)) or 1.0
    top_lexical = max((p.lexical for p in parts.values()), default=0.0) or 1.0
    top_prior = max(prior.values(), default=0.0) or 1.0
    top_path_words = max((p.path_words for p in parts.values()), default=0.0) or 1.0
    scored: list[tuple[float, str]] = []
    for rel in sorted(set(parts) | in_play):
        if rel not in facts:
            continue
        p = parts.setdefault(rel, _Parts())
        score = (
            weights.path * p.path
            + weights.stem * p.stem
            + weights.defines * min(p.defines / unique, DEFINES_CAP)
            + weights.lexical * p.lexical / top_lexical
            + weights.prior * prior.get(rel, 0.0) / top_prior
            + weights.path_words * p.path_words / top_path_words
            + (weights.session if rel in in_play else 0.0)
        )
        if not p.named:
            score *= weights.role_factors.get(role_of(rel), 1.0)
        if score > 0.0:
            scored.append((-round(score, 9), rel))
    scored.sort()
    return scored


def _symbols(p: _Parts, facts: FileFacts) -> tuple[str, ...]:
    chosen = [*p.line_symbols, *(name for _, name in p.defined)]
    if len(chosen) < MAX_SYMBOLS and p.words:
        wanted = set(p.words)
        chosen += [n for n in facts.names if not wanted.isdisjoint(_part_words(n))]
    return tuple(dict.fromkeys(chosen))[:MAX_SYMBOLS]


def _reason(p: _Parts, in_play: bool) -> str:
    reasons: list[str] = []
    if p.frames:
        lines = ", ".join(dict.fromkeys(p.frames))
        where = f" (`{p.line_symbols[0]}`)" if p.line_symbols else ""
        reasons.append(f"traceback line {lines}{where}")
    elif p.named:
        reasons.append("named in the message")
    elif p.path:
        reasons.append("module of a dotted name in the message")
    elif p.stem:
        reasons.append("its name is in the message")
    if p.defined:
        names = ", ".join(f"`{name}`" for _, name in p.defined[:MAX_SYMBOLS])
        reasons.append(f"defines {names} (named in the message)")
    if p.words and not p.defined:
        reasons.append("matches " + ", ".join(f"`{w}`" for w in p.words[:MAX_REASON_WORDS]))
    if in_play:
        reasons.append("in play")
    return "; ".join(reasons) or "central in the repository"


def render_where(candidates: Iterable[RankedFile]) -> str:
    """The block's lines: `N. path — reason; symbols: …` (same input, same bytes)."""
    lines: list[str] = []
    for index, c in enumerate(candidates, start=1):
        symbols = f"; look at {', '.join(f'`{s}`' for s in c.symbols)}" if c.symbols else ""
        lines.append(f"{index}. {c.rel} — {c.reason}{symbols}")
    return "\n".join(lines) + ("\n" if lines else "")
