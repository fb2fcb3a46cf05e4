"""Where to look: the workspace's files ranked for one message (pure; no I/O).

A file's score is a weighted sum of five parts, times the factor of its role:
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
- the structural prior: the file's rank in the map's PageRank, as a share of the best;
- the session: files in play (read, edited, open).
Tests, fixtures, docs, examples, vendored and generated files (`role_of`) are demoted
unless the message names them by path. Every sum runs in a fixed order and ties break
by path, so the same tags and message give the same ranking, and `render_where` the same
bytes.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import PurePosixPath

from cairn.code.languages import language_for_path

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
ROLE_CACHE_SIZE = 65_536
MAX_SYMBOLS = 3
"""Best symbols shown per file."""
MAX_REASON_WORDS = 4
"""Matched words named in a lexical reason."""
BM25_K1 = 1.2
BM25_B = 0.75
DEFINED_REPEAT = 2
"""A defined name's parts count this many times in a file's lexical document."""
PATH_REPEAT = 3
"""A path part counts this many times in a file's lexical document."""
MIN_WORD = 3
"""Shorter word parts are ignored by the lexical score."""
DOTTED_SHARE = 0.5
"""A dotted name's module counts this share of a path mention."""
DEFINES_CAP = 2.0
"""The most the specificity part adds, in units of one code name defined in one file."""
MAX_STEM_FILES = 3
"""A mentioned name matching more file names than this names none of them."""
MIN_IDENTIFIER = 3
"""Shorter identifiers never count as mentioned."""

# ---------------------------------------------------------------------------- mentions

_PY_FRAME = re.compile(r'File "(?P<path>[^"\n]+)", line (?P<line>\d+)')
_PATH = re.compile(
    r"(?P<path>(?:[A-Za-z]:)?[\w.@~+-]*(?:[/\\][\w.@+-]+)*\.[A-Za-z][A-Za-z0-9]{0,4})"
    r"(?:[:(](?P<line>\d+))?"
)
# `_PATH` is tried only inside one run of path characters at a time, and only in runs
# that hold an extension and are no longer than a path can be: tried over a whole
# paste, it rescans a long run from every position (a 1 MB blob took minutes).
_PATH_RUN = re.compile(r"(?:[A-Za-z]:)?[\w.@~+/\\-]+(?:[:(]\d+)?")
_EXTENSION = re.compile(r"\.[A-Za-z]")
MAX_PATH_CHARS = 1024
"""A run of path characters longer than this (a blob, a token) names no file."""
_DOTTED = re.compile(r"\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\b")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_BACKQUOTED = re.compile(r"(?<!`)`([^`\n]{1,80})`(?!`)")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z]|\d|\b)|[A-Z]?[a-z]+|[A-Z]+|\d+")
STOP_WORDS = frozenset(
    [
        "the",
        "and",
        "for",
        "not",
        "but",
        "with",
        "this",
        "that",
        "from",
        "have",
        "has",
        "was",
        "were",
        "are",
        "you",
        "your",
        "our",
        "its",
        "can",
        "could",
        "should",
        "would",
        "will",
        "when",
        "then",
        "than",
        "there",
        "here",
        "what",
        "which",
        "who",
        "how",
        "why",
        "all",
        "any",
        "some",
        "one",
        "two",
        "use",
        "used",
        "using",
        "get",
        "got",
        "set",
        "also",
        "just",
        "like",
        "into",
        "out",
        "about",
        "after",
        "before",
        "does",
        "did",
        "done",
        "been",
        "being",
        "only",
        "same",
        "other",
        "more",
        "most",
        "very",
        "such",
        "each",
        "them",
        "they",
        "their",
        "these",
        "those",
        "error",
        "issue",
        "bug",
        "expected",
        "behaviour",
        "behavior",
        "version",
        "python",
        "def",
        "return",
        "none",
        "true",
        "false",
        "self",
        "cls",
        "class",
        "import",
        "file",
        "line",
    ]
)


@dataclass(frozen=True)
class PathMention:
    """A path (or path suffix) named in the message, with the line it names if any."""

    path: str
    line: int | None
    frame: bool
    """Part of a traceback or log line (a line number was given)."""


@dataclass(frozen=True)
class Mentions:
    """What a message names: paths, dotted names and identifiers."""

    paths: tuple[PathMention, ...]
    dotted: tuple[str, ...]
    identifiers: frozenset[str]
    code: frozenset[str]
    """The identifiers that read as code: in backquotes, dotted, snake_case, camelCase or
    with digits (`L060`); the others may be plain words (`rules`, `fix`)."""
    words: tuple[str, ...]
    """The message's lexical words (split, lower-cased, stop words out), in order."""


def _normal(path: str) -> str:
    return path.replace("\\", "/").strip("./") if path else path


def _paths_in(text: str) -> Iterator[re.Match[str]]:
    """`_PATH`'s matches in a text, found in linear time: one scan for runs of path
    characters, `_PATH` searched only inside the short runs that hold an extension."""
    for run in _PATH_RUN.finditer(text):
        start, end = run.span()
        if end - start > MAX_PATH_CHARS or not _EXTENSION.search(text, start, end):
            continue
        yield from _PATH.finditer(text, start, end)


def mentions_in(text: str) -> Mentions:
    """The paths, traceback frames, dotted names and identifiers of a message."""
    seen: set[tuple[str, int | None]] = set()
    paths: list[PathMention] = []
    for match in _PY_FRAME.finditer(text):
        key = (_normal(match["path"]), int(match["line"]))
        if key not in seen:
            seen.add(key)
            paths.append(PathMention(key[0], key[1], True))
    for match in _paths_in(text):
        raw = _normal(match["path"])
        if language_for_path(raw) is None:
            continue
        line = int(match["line"]) if match["line"] else None
        key = (raw, line)
        if key in seen or (line is None and any(p.path == raw for p in paths)):
            continue
        seen.add(key)
        paths.append(PathMention(raw, line, line is not None))
    dotted = tuple(dict.fromkeys(m.group(0) for m in _DOTTED.finditer(text)))
    identifiers = {w for w in _WORD.findall(text) if len(w) >= MIN_IDENTIFIER}
    code = {w for w in identifiers if looks_like_code(w)}
    for quoted in _BACKQUOTED.findall(text):
        code.update(w for w in _WORD.findall(quoted) if len(w) >= MIN_IDENTIFIER)
    for name in dotted:
        parts = [part for part in name.split(".") if len(part) >= MIN_IDENTIFIER]
        identifiers.update(parts)
        code.update(parts)
    return Mentions(
        tuple(paths),
        dotted,
        frozenset(identifiers),
        frozenset(code & identifiers),
        tuple(query_words(text)),
    )


def looks_like_code(word: str) -> bool:
    """Whether a word reads as an identifier rather than prose: snake_case, camelCase or
    PascalCase with an inner capital, or letters with digits."""
    inner = word.strip("_")
    if "_" in inner or (word.startswith("_") and inner):
        return True
    if any(c.isupper() for c in inner[1:]) and any(c.islower() for c in inner):
        return True
    return any(c.isdigit() for c in inner) and any(c.isalpha() for c in inner)


def split_identifier(name: str) -> list[str]:
    """The lower-cased parts of an identifier: snake_case and camelCase split, digits apart
    (`HTTPServer_error2` → http, server, error, 2)."""
    parts: list[str] = []
    for chunk in name.split("_"):
        parts.extend(p.lower() for p in _CAMEL.findall(chunk))
    return parts


def query_words(text: str) -> list[str]:
    """The lexical words of a text: identifier parts, lower-cased, without stop words."""
    out: list[str] = []
    for word in _WORD.findall(text):
        for part in split_identifier(word):
            if len(part) >= MIN_WORD and part not in STOP_WORDS and not part.isdigit():
                out.append(part)
    return out


def resolve_path(mention: str, files: Collection[str]) -> list[str]:
    """The workspace files a mentioned path names: those sharing its longest path suffix
    (at least the file name), best first by path. `…/site-packages/pkg/io/card.py` names
    `src/pkg/io/card.py`."""
    parts = [p for p in mention.split("/") if p and p not in (".", "..")]
    if not parts:
        return []
    best: list[str] = []
    best_len = 0
    for rel in files:
        rel_parts = rel.split("/")
        common = 0
        while (
            common < len(parts)
            and common < len(rel_parts)
            and parts[-1 - common] == rel_parts[-1 - common]
        ):
            common += 1
        if common == 0:
            continue
        if common > best_len:
            best, best_len = [rel], common
        elif common == best_len:
            best.append(rel)
    return sorted(best)


def module_paths(dotted: str) -> list[str]:
    """Path suffixes a dotted name may name: `a.b.C.m` → a/b/C/m.py, a/b/C.py, a/b.py,
    and the same as packages (`…/__init__.py`); two parts at least."""
    parts = dotted.split(".")
    out: list[str] = []
    for end in range(len(parts), 1, -1):
        stem = "/".join(parts[:end])
        out += [stem + ".py", stem + "/__init__.py"]
    return out


# ---------------------------------------------------------------------------- roles

_TEST_DIRS = frozenset({"test", "tests", "testing", "__tests__", "spec", "specs"})
_FIXTURE_DIRS = frozenset({"fixtures", "fixture", "testdata", "test_data", "snapshots"})
_DOC_DIRS = frozenset({"doc", "docs", "documentation", "site"})
_EXAMPLE_DIRS = frozenset({"example", "examples", "demo", "demos", "samples", "sample"})
_VENDORED_DIRS = frozenset({"vendor", "vendored", "_vendor", "third_party", "node_modules"})
_GENERATED = re.compile(r"(_pb2(_grpc)?\.py|\.min\.js|\.generated\.\w+|_generated\.\w+)$")


@lru_cache(maxsize=ROLE_CACHE_SIZE)
def role_of(rel: str) -> str:
    """The file's role: test, fixture, docs, example, vendored, generated or source."""
    path = PurePosixPath(rel)
    dirs = {part.lower() for part in path.parts[:-1]}
    name = path.name.lower()
    if dirs & _VENDORED_DIRS:
        return "vendored"
    if _GENERATED.search(name):
        return "generated"
    if dirs & _FIXTURE_DIRS:
        return "fixture"
    if (
        dirs & _TEST_DIRS
        or name.startswith("test_")
        or path.stem.lower().endswith(("_test", ".test", ".spec"))
        or name == "conftest.py"
    ):
        return "test"
    if dirs & _DOC_DIRS:
        return "docs"
    if dirs & _EXAMPLE_DIRS:
        return "example"
    return "source"


# ---------------------------------------------------------------------------- scores


def definition_idf(definers: Mapping[str, int], total_files: int) -> Callable[[str], float]:
    """The specificity of a defined name: log(1 + files / files defining it); 0 for a
    name nothing defines."""

    def idf(name: str) -> float:
        count = definers.get(name, 0)
        return math.log(1.0 + total_files / count) if count else 0.0

    return idf


@dataclass(frozen=True)
class FileFacts:
    """What the ranking knows of one file (from the map's tag scan)."""

    names: tuple[str, ...]
    """The names it defines."""
    references: Mapping[str, int]
    """The identifiers it uses, with their counts."""


class Lexicon:
    """BM25 over the files' lexical documents (path parts, defined names, used
    identifiers, split into parts); built once per set of facts."""

    def __init__(self, facts: Mapping[str, FileFacts]) -> None:
        self.files = sorted(facts)
        self._docs: list[Counter[str]] = []
        frequency: Counter[str] = Counter()
        for rel in self.files:
            doc = lexical_document(rel, facts[rel])
            self._docs.append(doc)
            frequency.update(doc.keys())
        self._frequency = frequency
        lengths = [sum(d.values()) for d in self._docs]
        self._lengths = lengths
        self._average = (sum(lengths) / len(lengths)) if lengths else 0.0

    def scores(self, words: Sequence[str]) -> dict[str, tuple[float, tuple[str, ...]]]:
        """Each file with a positive score: (score, the query words it matched)."""
        terms = sorted(set(words))
        total = len(self.files)
        idf = {
            t: math.log(1.0 + (total - self._frequency[t] + 0.5) / (self._frequency[t] + 0.5))
            for t in terms
        }
        out: dict[str, tuple[float, tuple[str, ...]]] = {}
        for rel, doc, length in zip(self.files, self._docs, self._lengths, strict=True):
            norm = (
                BM25_K1 * (1.0 - BM25_B + BM25_B * length / self._average) if self._average else 0
            )
            score = 0.0
            matched: list[tuple[float, str]] = []
            for t in terms:
                tf = doc.get(t, 0)
                if tf:
                    part = idf[t] * tf * (BM25_K1 + 1.0) / (tf + norm)
                    score += part
                    matched.append((-part, t))
            if score > 0.0:
                out[rel] = (score, tuple(t for _, t in sorted(matched)))
        return out


def lexical_document(rel: str, facts: FileFacts) -> Counter[str]:
    """The word counts BM25 sees for one file."""
    doc: Counter[str] = Counter()
    stem = PurePosixPath(rel)
    for part in [*stem.parts[:-1], stem.stem]:
        for word in split_identifier(part):
            if len(word) >= MIN_WORD:
                doc[word] += PATH_REPEAT
    for name in facts.names:
        for word in split_identifier(name):
            if len(word) >= MIN_WORD:
                doc[word] += DEFINED_REPEAT
    for name, uses in facts.references.items():
        for word in split_identifier(name):
            if len(word) >= MIN_WORD:
                doc[word] += min(uses, 3)
    return doc


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

    def part(rel: str) -> _Parts:
        return parts.setdefault(rel, _Parts())

    frames = [m for m in mentions.paths if m.frame]
    last_frame = frames[-1] if frames else None
    for mention in mentions.paths:
        resolved = resolve_path(mention.path, files)
        if not resolved:
            continue
        share = (1.0 + weights.last_frame * (mention is last_frame)) / len(resolved)
        for rel in resolved:
            p = part(rel)
            p.path = max(p.path, share)  # many frames in one file count as its best one
            p.named = True
            if mention.line is not None:
                p.frames.append(str(mention.line))
                symbol = symbol_at(rel, mention.line) if symbol_at is not None else None
                if symbol is not None and symbol not in p.line_symbols:
                    p.line_symbols.append(symbol)
    for dotted in mentions.dotted:
        for suffix in module_paths(dotted):
            resolved = [rel for rel in files if rel == suffix or rel.endswith("/" + suffix)]
            if resolved:
                for rel in resolved:
                    p = part(rel)
                    p.path = max(p.path, DOTTED_SHARE / len(resolved))
                break
    stems: dict[str, list[str]] = {}
    for rel in files:
        stems.setdefault(PurePosixPath(rel).stem.lower(), []).append(rel)
    for name in sorted(mentions.code):
        if name.startswith("__"):
            continue  # `__init__`, `__pkginfo__`: names every package has
        named = stems.get(name.lower(), [])
        if 0 < len(named) <= MAX_STEM_FILES:
            for rel in named:
                part(rel).stem += 1.0 / len(named)
    definers: Counter[str] = Counter()
    for rel in files:
        definers.update(set(facts[rel].names))
    idf = definition_idf(definers, len(files))
    mentioned = sorted(name for name in mentions.identifiers if definers.get(name))
    for rel in files:
        names = set(facts[rel].names)
        hits = [
            (idf(name) * (1.0 if name in mentions.code else weights.plain_word), name)
            for name in mentioned
            if name in names
        ]
        if hits:
            p = part(rel)
            p.defines = sum(score for score, _ in hits)
            p.defined = sorted(hits, key=lambda h: (-h[0], h[1]))
    lexical = (lexicon or Lexicon(facts)).scores(mentions.words)
    for rel, (score, words) in lexical.items():
        p = part(rel)
        p.lexical, p.words = score, words
    # A code name defined in one file scores about 1 (never more than DEFINES_CAP): plain
    # words alone stay small, whatever the best file has.
    unique = math.log(1.0 + len(files)) or 1.0
    top_lexical = max((p.lexical for p in parts.values()), default=0.0) or 1.0
    top_prior = max(prior.values(), default=0.0) or 1.0
    in_play_set = set(in_play)
    scored: list[tuple[float, str]] = []
    for rel in sorted(set(parts) | in_play_set):
        if rel not in facts:
            continue
        p = part(rel)
        score = (
            weights.path * p.path
            + weights.stem * p.stem
            + weights.defines * min(p.defines / unique, DEFINES_CAP)
            + weights.lexical * p.lexical / top_lexical
            + weights.prior * prior.get(rel, 0.0) / top_prior
            + (weights.session if rel in in_play_set else 0.0)
        )
        if not p.named:
            score *= weights.role_factors.get(role_of(rel), 1.0)
        if score > 0.0:
            scored.append((-round(score, 9), rel))
    scored.sort()
    out: list[RankedFile] = []
    for index, (negative, rel) in enumerate(scored):
        if index < DETAILED:
            p, in_play_now = part(rel), rel in in_play_set
            out.append(RankedFile(rel, -negative, _symbols(p, facts[rel]), _reason(p, in_play_now)))
        else:
            out.append(RankedFile(rel, -negative, (), ""))
    return out


def _symbols(p: _Parts, facts: FileFacts) -> tuple[str, ...]:
    chosen = [*p.line_symbols, *(name for _, name in p.defined)]
    if len(chosen) < MAX_SYMBOLS and p.words:
        wanted = set(p.words)
        chosen += [n for n in facts.names if wanted & set(split_identifier(n))]
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
