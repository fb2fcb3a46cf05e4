"""`@path` / `@dir` mentions in a user message, parsed by the server for every client.

`mentions(text)` finds the candidates; `mentioned_references(workspace, text)`
keeps those meant as paths; `turn_references(workspace, text, explicit)` is
what a turn references: the explicit list (a client's `references`, the
CLI's `--file`), then the mentions, without repeats. Each kept mention goes
through the same path guard as an explicit reference, with the same refusal
reasons (`cairn.context.references`).

The rule (a message is prose with code in it; only what was meant as a path
may be refused in the manifest):
- a mention is `@` followed by path characters, or `@"a path with spaces"`,
  at the start of the text or after a space or an opening bracket or quote —
  so `alice@example.com`, `user@host:path` and `x@2x.png` are not mentions;
- nothing inside fenced code blocks (```` ``` ```` / `~~~`) or inline code
  spans (`` `@decorator` ``) is a mention: code is quoted, not referenced;
- trailing sentence punctuation and closing brackets are not part of it
  (`see @app.py.` names `app.py`);
- a mention is kept when it names something that exists in the workspace
  (a file, a folder, an open buffer — even one the guard then refuses, a
  secret or an ignored file, whose refusal is reported as for `--file`), or
  when it is clearly meant as a path though missing: it ends in `/`, its
  file name has a known source, text or log suffix (`@pkg/aap.py`), or its
  first folder exists (`@src/gone`). Anything else (`@dataclass`,
  `@pytest.fixture`, `@alice`, `@types/node` without a `types/` folder) is
  ordinary prose and ignored silently.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Sequence
from pathlib import PurePosixPath

from cairn.errors import CairnError
from cairn.files.languages import language_of
from cairn.files.workspace import Workspace

# Fenced code blocks (``` or ~~~, to the closing fence or the end) and inline code spans.
_FENCE = re.compile(r"^[ \t]*(```|~~~).*?(?:^[ \t]*\1[^\n]*$|\Z)", re.MULTILINE | re.DOTALL)
# Backtick runs; an inline code span runs from one to the next run of the same length.
_BACKTICKS = re.compile(r"`+")
# `@` at the start or after whitespace or an opening bracket/quote; a quoted or a bare path.
_MENTION = re.compile(r"""(?:^|(?<=[\s(\[{<'"]))@(?:"([^"\n]+)"|([^\s"'`<>()\[\]{},;|]+))""")
# Characters that end a sentence or close a bracket, never the end of a mentioned path.
TRAILING_PUNCTUATION = ".,;:!?)]}>'\""
# Suffixes of files that are not a programming language but are clearly files.
TEXT_SUFFIXES: frozenset[str] = frozenset(
    {
        ".md",
        ".rst",
        ".txt",
        ".json",
        ".jsonl",
        ".toml",
        ".yaml",
        ".yml",
        ".ini",
        ".cfg",
        ".conf",
        ".env",
        ".lock",
        ".csv",
        ".tsv",
        ".xml",
        ".html",
        ".css",
        ".scss",
        ".sql",
        ".sh",
        ".log",
        ".out",
        ".err",
        ".trace",
        ".ipynb",
        ".proto",
        ".graphql",
    }
)


def _without_code(text: str) -> str:
    """`text` with fenced blocks and inline code spans blanked (offsets are not needed)."""
    return _without_inline_code(_FENCE.sub(" ", text))


def _without_inline_code(text: str) -> str:
    """`text` with each inline code span replaced by a space, in one pass over its backtick runs.

    A span opens at a run of backticks (or, when no later run has its length, at the
    longest tail of it that a later run matches) and closes at the next run of exactly
    that length — what the pattern `(`+)(?!`).+?(?<!`)\\1(?!`)` finds, without retrying
    every position (quadratic on a long line of unmatched runs)."""
    runs = [(m.start(), m.end()) for m in _BACKTICKS.finditer(text)]
    by_length: dict[int, list[int]] = {}
    for index, (start, end) in enumerate(runs):
        by_length.setdefault(end - start, []).append(index)
    pieces: list[str] = []
    kept = 0
    index = 0
    while index < len(runs):
        start, end = runs[index]
        closer = _closer(by_length, index, end - start)
        if closer is None:
            index += 1
            continue
        close_index, length = closer
        pieces += [text[kept : end - length], " "]
        kept = runs[close_index][1]
        index = close_index + 1
    return "".join([*pieces, text[kept:]])


def _closer(by_length: dict[int, list[int]], index: int, width: int) -> tuple[int, int] | None:
    """(the run closing a span opened at run `index`, the span's backtick count), or None."""
    for length in range(width, 0, -1):
        later = by_length.get(length, [])
        position = bisect.bisect_right(later, index)
        if position < len(later):
            return later[position], length
    return None


def mentions(text: str) -> list[str]:
    """The `@` mentions of `text` outside code, in order, each once (without the `@`)."""
    found: list[str] = []
    for match in _MENTION.finditer(_without_code(text)):
        quoted, bare = match.group(1), match.group(2)
        mention = quoted.strip() if quoted is not None else bare.rstrip(TRAILING_PUNCTUATION)
        if mention and mention not in found:
            found.append(mention)
    return found


def _known_suffix(name: str) -> bool:
    pure = PurePosixPath(name)
    suffix = pure.suffix.lower()
    return bool(suffix) and (suffix in TEXT_SUFFIXES or language_of(pure) is not None)


def _exists(workspace: Workspace, ref: str) -> bool:
    try:
        path = workspace.resolve(ref)
    except CairnError:
        return False
    return path in workspace.buffers or path.exists() or path.is_symlink()


def meant_as_path(workspace: Workspace, mention: str) -> bool:
    """Whether a mention names a path (see the module docstring for the rule)."""
    if _exists(workspace, mention):
        return True
    if mention.endswith("/") or _known_suffix(mention.rstrip("/").rsplit("/", 1)[-1]):
        return True
    first, sep, _rest = mention.partition("/")
    return bool(sep and first and first not in (".", "..") and _exists(workspace, first))


def mentioned_references(workspace: Workspace, text: str) -> list[str]:
    """The mentions of `text` meant as paths (to be guarded like explicit references)."""
    return [m for m in mentions(text) if meant_as_path(workspace, m)]


def _key(workspace: Workspace, ref: str) -> str:
    """What two references are the same by: the resolved path, else the text without `@`."""
    cleaned = ref.strip().removeprefix("@")
    try:
        return str(workspace.resolve(cleaned))
    except CairnError:
        return cleaned


def merged(workspace: Workspace, groups: Iterable[Sequence[str]]) -> tuple[str, ...]:
    """References of several lists in order, each path once (`a.py` and `./a.py` are one)."""
    out: list[str] = []
    seen: set[str] = set()
    for group in groups:
        for ref in group:
            key = _key(workspace, ref)
            if ref.strip() and key not in seen:
                seen.add(key)
                out.append(ref)
    return tuple(out)


def turn_references(workspace: Workspace, text: str, explicit: Sequence[str]) -> tuple[str, ...]:
    """What a turn (or dry run) references: `explicit` first, then the message's mentions."""
    return merged(workspace, (explicit, mentioned_references(workspace, text)))
