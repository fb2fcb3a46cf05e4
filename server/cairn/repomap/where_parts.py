"""The parts of a file's where-to-look score, before weighting (pure; I/O only through the
`read_text` a caller passes).

`file_parts` measures, for every file the message points at in any way:
- `path`, `last_frame`, `weak_path`: the workspace paths, path suffixes and traceback
  frames the message names, resolved by the longest matching path suffix; a mention
  sharing only its file name with a workspace file counts as weak;
- `dotted`: the module a dotted name names (`pkg.mod.func` → `pkg/mod.py`);
- `stem`: a code name of the message that is the file's name (`L060` → `L060.py`);
- `defines_code`, `defines_plain`: the message's identifiers the file defines, by IDF;
- `qualified`: a name the message qualifies (`Class.method`, `pkg.mod.func`, `from pkg.mod
  import func`) that the file defines next to its qualifier — in the same file as the
  class, or under the module's path;
- `phrase`: error messages and quoted texts of the message whose words the file holds in
  a row (read through `read_text`, only for files whose words hold a whole window);
- `lexical` (BM25) and `path_words` (the message's words among path parts, by IDF).
Every loop runs over sorted files and names, so the same input gives the same parts.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field

from cairn.repomap.file_roles import path_stem
from cairn.repomap.lexicon import FileFacts, Lexicon, definition_idf
from cairn.repomap.message_code import (
    imports,
    phrase_pattern,
    phrase_windows,
    qualified_names,
    quoted_phrases,
)
from cairn.repomap.message_mentions import (
    MIN_IDENTIFIER,
    MIN_WORD,
    Mentions,
    module_paths,
    resolve_path_depth,
    split_identifier,
)

SymbolAt = Callable[[str, int], str | None]
"""The innermost definition holding a line of a file (None: none, or unknown)."""
ReadText = Callable[[str], str | None]
"""A workspace file's text (None: unreadable or refused)."""
DefinersOf = Callable[[Collection[str]], dict[str, list[str]]]
"""For some names, the files defining each, sorted (names no file defines left out): the
map's reference graph answers without reading every file's names (`definers_in` does)."""

MAX_STEM_FILES = 3
"""A mentioned name matching more file names than this names none of them."""
MAX_QUALIFIED_FILES = 4
"""A qualified name defined next to its qualifier in more files than this points at none."""
MAX_PHRASE_FILES = 4
"""A phrase found in more files than this points at none of them."""
MAX_PHRASE_READS = 64
"""Files read to look for the message's phrases (those holding the most windows first)."""
MIN_WINDOW_WORDS = 2
"""A phrase window is looked for only when it has this many words the index knows."""


@dataclass
class FileParts:
    """One file's unweighted score parts and what the reasons name."""

    path: float = 0.0
    last_frame: float = 0.0
    weak_path: float = 0.0
    dotted: float = 0.0
    stem: float = 0.0
    defines_code: float = 0.0
    defines_plain: float = 0.0
    qualified: float = 0.0
    phrase: float = 0.0
    lexical: float = 0.0
    path_words: float = 0.0
    named: bool = False
    """Named by a path of the message (its role does not demote it)."""
    frames: list[str] = field(default_factory=list)
    line_symbols: list[str] = field(default_factory=list)
    defined: list[tuple[float, str, bool]] = field(default_factory=list)
    """(IDF, name, named as code) of the message's identifiers the file defines."""
    qualified_names: list[str] = field(default_factory=list)
    phrases: list[str] = field(default_factory=list)
    words: tuple[str, ...] = ()


def file_parts(
    facts: Mapping[str, FileFacts],
    mentions: Mentions,
    message: str,
    lexicon: Lexicon,
    symbol_at: SymbolAt | None = None,
    read_text: ReadText | None = None,
    definers_of: DefinersOf | None = None,
) -> dict[str, FileParts]:
    """Every file with some part, with its parts (see the module docstring);
    `definers_of`: which files define a name (None: read from `facts`)."""
    files = sorted(facts)
    parts: dict[str, FileParts] = {}
    definers_of = definers_of or definers_in(facts)
    _path_parts(parts, mentions, files, symbol_at)
    _dotted_parts(parts, mentions, files)
    _stem_parts(parts, mentions, files)
    _definition_parts(parts, mentions, files, definers_of)
    _qualified_parts(parts, mentions, message, facts, definers_of)
    if read_text is not None:
        _phrase_parts(parts, message, lexicon, read_text)
    _path_word_parts(parts, mentions, files)
    for rel, (score, words) in lexicon.scores(mentions.words).items():
        p = parts.setdefault(rel, FileParts())
        p.lexical, p.words = score, words
    return parts


def _path_parts(
    parts: dict[str, FileParts], mentions: Mentions, files: list[str], symbol_at: SymbolAt | None
) -> None:
    """Paths and traceback frames (the last frame, where the error was raised, counts
    more; a frame's line names its symbol)."""
    frames = [m for m in mentions.paths if m.frame]
    last = frames[-1] if frames else None
    for mention in mentions.paths:
        resolved, common = resolve_path_depth(mention.path, files)
        if not resolved:
            continue
        share = 1.0 / len(resolved)
        weak = common < 2 <= len([p for p in mention.path.split("/") if p])
        for rel in resolved:
            p = parts.setdefault(rel, FileParts())
            if weak:
                p.weak_path = max(p.weak_path, share)
                continue
            p.path = max(p.path, share)  # many frames in one file count as its best one
            p.named = True
            if mention is last:
                p.last_frame = share
            if mention.line is not None:
                p.frames.append(str(mention.line))
                symbol = symbol_at(rel, mention.line) if symbol_at is not None else None
                if symbol is not None and symbol not in p.line_symbols:
                    p.line_symbols.append(symbol)


def _dotted_parts(parts: dict[str, FileParts], mentions: Mentions, files: list[str]) -> None:
    """The module of each dotted name (its longest prefix that is a workspace module)."""
    for dotted in mentions.dotted:
        for suffix in module_paths(dotted):
            resolved = [rel for rel in files if rel == suffix or rel.endswith("/" + suffix)]
            if resolved:
                for rel in resolved:
                    p = parts.setdefault(rel, FileParts())
                    p.dotted = max(p.dotted, 1.0 / len(resolved))
                break


def definers_in(facts: Mapping[str, FileFacts]) -> DefinersOf:
    """`DefinersOf` read from every file's names."""

    def definers_of(names: Collection[str]) -> dict[str, list[str]]:
        wanted = frozenset(names)
        found: dict[str, list[str]] = {}
        for rel in sorted(facts):
            for name in wanted.intersection(facts[rel].names):
                found.setdefault(name, []).append(rel)
        return found

    return definers_of


def _stem_parts(parts: dict[str, FileParts], mentions: Mentions, files: list[str]) -> None:
    """Files whose name (without extension) is a code name of the message, shared among
    at most `MAX_STEM_FILES` such files."""
    # `__init__`, `__pkginfo__`: names every package has
    wanted = {name.lower() for name in mentions.code if not name.startswith("__")}
    stems: dict[str, list[str]] = {}
    for rel in files:
        stem = path_stem(rel).lower()
        if stem in wanted:
            stems.setdefault(stem, []).append(rel)
    for name in sorted(mentions.code):
        if name.startswith("__"):
            continue
        named = stems.get(name.lower(), [])
        if 0 < len(named) <= MAX_STEM_FILES:
            for rel in named:
                parts.setdefault(rel, FileParts()).stem += 1.0 / len(named)


def _definition_parts(
    parts: dict[str, FileParts],
    mentions: Mentions,
    files: list[str],
    definers_of: DefinersOf,
) -> None:
    """The message's identifiers each file defines, each by how rare its definition is."""
    code = set(mentions.code)
    identifiers = set(mentions.identifiers)
    bases = {name.rstrip("0123456789") for name in code}
    defining = definers_of(identifiers | code | bases)
    definers = Counter({name: len(rels) for name, rels in defining.items()})
    idf = definition_idf(definers, len(files))
    for name in sorted(mentions.code):
        base = name.rstrip("0123456789")
        if base != name and len(base) >= MIN_IDENTIFIER and not definers.get(name):
            identifiers.add(base)  # `PersonName3` names `PersonName` when it is not defined
            code.add(base)
    mentioned = sorted(name for name in identifiers if definers.get(name))
    found: dict[str, list[tuple[float, str, bool]]] = {}
    for n in mentioned:
        hit = (idf(n), n, n in code)
        for rel in defining[n]:
            found.setdefault(rel, []).append(hit)
    for rel in sorted(found):
        hits = found[rel]
        if hits:
            p = parts.setdefault(rel, FileParts())
            p.defines_code = sum(score for score, _, code in hits if code)
            p.defines_plain = sum(score for score, _, code in hits if not code)
            p.defined = sorted(hits, key=lambda h: (not h[2], -h[0], h[1]))


def _qualified_parts(
    parts: dict[str, FileParts],
    mentions: Mentions,
    message: str,
    facts: Mapping[str, FileFacts],
    definers_of: DefinersOf,
) -> None:
    """Qualified names: the files defining `name` with its qualifier class, or under its
    qualifier's module path, shared among at most `MAX_QUALIFIED_FILES` of them."""
    pairs = qualified_names(mentions.dotted, imports(message))
    defining = definers_of({name for _, name in pairs})
    for qualifier, name in pairs:
        definers = defining.get(name, [])
        if not definers:
            continue
        last = qualifier.rsplit(".", 1)[-1]
        module = qualifier.replace(".", "/")
        matched = [
            rel for rel in definers if last in facts[rel].names or _under_module(rel, module)
        ]
        if 0 < len(matched) <= MAX_QUALIFIED_FILES:
            for rel in matched:
                p = parts.setdefault(rel, FileParts())
                p.qualified += 1.0 / len(matched)
                p.qualified_names.append(f"{qualifier}.{name}")


def _under_module(rel: str, module: str) -> bool:
    """Whether `rel` is the module `module` (a/b → a/b.py, …/a/b/__init__.py) or lies in
    its package folder."""
    stem = rel.rsplit(".", 1)[0]
    return (
        stem == module
        or stem.endswith("/" + module)
        or rel.startswith(module + "/")
        or ("/" + module + "/") in rel
    )


def _phrase_parts(
    parts: dict[str, FileParts], message: str, lexicon: Lexicon, read_text: ReadText
) -> None:
    """Phrases of the message found in a file's text, shared among at most
    `MAX_PHRASE_FILES` files; only files whose index words hold a whole window are read."""
    phrases = quoted_phrases(message)
    windows = [
        (index, window, needed)
        for index, phrase in enumerate(phrases)
        for window in phrase_windows(phrase)
        if len(needed := frozenset(w for w in window if len(w) >= MIN_WORD)) >= MIN_WINDOW_WORDS
    ]
    if not windows:
        return
    holding = lexicon.files_holding([needed for _, _, needed in windows])
    ranked = sorted(holding.items(), key=lambda item: (-len(item[1]), item[0]))
    found: dict[int, list[str]] = {}
    for rel, window_indexes in ranked[:MAX_PHRASE_READS]:
        text = read_text(rel)
        if text is None:
            continue
        for phrase_index in sorted({windows[i][0] for i in window_indexes}):
            if any(
                phrase_pattern(windows[i][1]).search(text)
                for i in window_indexes
                if windows[i][0] == phrase_index
            ):
                found.setdefault(phrase_index, []).append(rel)
    for phrase_index, holders in sorted(found.items()):
        if len(holders) <= MAX_PHRASE_FILES:
            for rel in holders:
                p = parts.setdefault(rel, FileParts())
                p.phrase += 1.0 / len(holders)
                p.phrases.append(" ".join(phrases[phrase_index]))


def _path_word_parts(parts: dict[str, FileParts], mentions: Mentions, files: list[str]) -> None:
    """The message's words found among each file's path words, IDF-weighted over paths."""
    wanted = set(mentions.words)
    if not wanted:
        return
    words_in = _part_words(wanted)
    folders: dict[str, frozenset[str]] = {"": frozenset()}

    def folder_words(folder: str) -> frozenset[str]:
        found = folders.get(folder)
        if found is None:
            parent, _, last = folder.rpartition("/")
            found = folders[folder] = folder_words(parent) | words_in(last)
        return found

    words_of: dict[str, set[str]] = {}
    frequency: Counter[str] = Counter()
    for rel in files:
        folder, _, name = rel.rpartition("/")
        words = folder_words(folder) | words_in(path_stem(name))
        if words:
            words_of[rel] = set(words)
            frequency.update(words)
    total = len(files)
    for rel, words in words_of.items():
        score = sum(math.log(1.0 + total / frequency[w]) for w in sorted(words))
        parts.setdefault(rel, FileParts()).path_words = score


def _part_words(wanted: Collection[str]) -> Callable[[str], frozenset[str]]:
    """The words of `wanted` among a path part's identifier parts. A part's words are
    lower-cased pieces of it: an ASCII part holding none of the words is not split."""
    pattern = re.compile("|".join(map(re.escape, sorted(wanted, key=lambda w: (-len(w), w)))))
    chosen = frozenset(wanted)

    def words_in(part: str) -> frozenset[str]:
        if part.isascii() and pattern.search(part.lower()) is None:
            return frozenset()
        return chosen.intersection(split_identifier(part))

    return words_in


def in_play_parts(parts: dict[str, FileParts], in_play: Collection[str]) -> None:
    """Files in play get an entry even when the message names nothing in them."""
    for rel in sorted(in_play):
        parts.setdefault(rel, FileParts())
