"""What a text is, judged by its content: a log, minified or generated code, code, or prose.

Which smaller form a block gets (`context.degrade`) and how a tool shortens a
long output (`agent/tools`) depend on what the text is, wherever it came
from: a referenced file, an editor buffer, a command's output, a file the
agent read. The name alone is not enough (a log saved as `out.txt`, a build
output opened in the editor, a bundle named `app.js`), so:

- **log**: at least `LOG_MIN_LINES` and `LOG_LINE_SHARE` of the sampled
  non-blank lines (the first and last `LOG_SNIFF_LINES`, from each end's
  `LOG_SNIFF_CHARS`) look like log or
  tool output — a leading timestamp, a level word (`INFO`, `[ERROR]`,
  `level=warn`), a test runner's verdict (`PASSED`, `FAILED`, `ok 3`,
  `--- FAIL`, `test x ... ok`), a compiler diagnostic (`src/a.c:3:5: error:`),
  a stack frame (`File "x.py", line 3`, `at pkg.Cls.method(`), a build
  tool's prefix (`npm ERR!`, `make[1]:`, `error[E0308]`, `==> `), a
  pytest/unittest banner; a block already marked "log" is one;
- **minified** / **generated**: `cairn.code.generated` (very long lines, a
  `.min.` name; a generator's marker in the header) — the one definition the
  repository map uses too;
- **code**: a file of a programming language (`cairn.files.languages`);
- **text**: anything else.
"""

from __future__ import annotations

import math
import re
import threading
from collections import OrderedDict
from typing import Literal

from cairn.code.generated import text_refusal
from cairn.files.languages import language_of
from cairn.files.text import content_hash
from cairn.models.manifest import BlockKind

TextKind = Literal["log", "minified", "generated", "code", "text"]

# Non-blank lines sampled from each end of a text to judge whether it is a log ...
LOG_SNIFF_LINES = 60
# ... from at most this many characters at each end.
LOG_SNIFF_CHARS = 32 * 1024
# A log has at least this share of sampled lines that look like log lines ...
LOG_LINE_SHARE = 0.3
# ... and at least this many of them.
LOG_MIN_LINES = 3
# Only this many leading characters of a line are searched for log markers.
LOG_LINE_PREFIX_CHARS = 160
# Texts whose kind is remembered (by content hash), least recently used out first.
KIND_MEMO_ENTRIES = 4096

_LEVEL = r"(?:TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|ERR|FATAL|CRITICAL|SEVERE|PANIC)"
# Log and tool-output lines recognised by how they start (matched at the line's start) ...
LOG_LINE_START = re.compile(
    "|".join(
        (
            r"\s*[\[(]?\d{4}-\d{2}-\d{2}[ T_]\d{2}:\d{2}",  # ISO timestamp
            r"\s*[\[(]?\d{1,2}:\d{2}:\d{2}",  # clock time
            r"\s*[\[(]?\d{2}/\d{2}/\d{4}[ :]\d{2}:\d{2}",  # 01/12/2026 10:00
            r"[A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2}",  # syslog
            r"\s*\[?\d+\.\d+\]\s",  # dmesg-style seconds
            r"(?:ok|not ok) \d+\b",  # TAP
            r"\s*--- (?:PASS|FAIL|SKIP):",  # go test
            r"test \S+ \.\.\. (?:ok|FAILED|ignored)",  # cargo test, unittest
            r"[^\s:]+:\d+(?::\d+)?:\s",  # compilers, linters: path:line:col: ...
            r"\s*--> \S+:\d+",  # rustc, ruff: --> path:line:col
            r"\S+\(\d+,\d+\): (?:error|warning)",  # tsc
            r"\s+File \"[^\"]+\", line \d+",  # Python frames
            r"\s+at [\w.$<>/:]+[(\s]",  # Java/JS frames
            r"(?:npm|yarn|pnpm) (?:ERR!|WARN|error|warn)",  # JS package managers
            r"make(?:\[\d+\])?: ",  # make
            r"error(?:\[E\d+\])?: ",  # rustc, cargo
            r"={3,} .+ ={3,}$",  # pytest/unittest banners
            r"(?:==>|\$ )",  # build steps, echoed commands
            r"Traceback \(most recent call last\)",
            rf"\s*[\[(]?{_LEVEL}[\]):|\s]",  # a leading level word
        )
    )
)
# ... or by what they hold among their first LOG_LINE_PREFIX_CHARS characters.
LOG_LINE_ANY = re.compile(
    "|".join(
        (
            rf"[\s\[(|]{_LEVEL}(?:[\]):|]|\s+-|\s*$|:?\s)",  # a level word
            r"\blevel=[a-z]+\b",  # logfmt
            r"::\S+ (?:PASSED|FAILED|SKIPPED|ERROR)",  # pytest -v
            r"\b(?:PASSED|FAILED|SKIPPED|XFAIL|XPASS)\b",  # test verdicts
        )
    )
)


def is_log_line(line: str) -> bool:
    """True for a line that looks like log or tool output (see the module docstring)."""
    return LOG_LINE_START.match(line) is not None or (
        LOG_LINE_ANY.search(line, 0, LOG_LINE_PREFIX_CHARS) is not None
    )


def _sampled_lines(text: str) -> list[str]:
    """The first and last `LOG_SNIFF_LINES` non-blank lines, from at most `LOG_SNIFF_CHARS`
    at each end of the text."""
    if len(text) <= 2 * LOG_SNIFF_CHARS:
        lines = text.split("\n")
    else:
        head = text[:LOG_SNIFF_CHARS].split("\n")[:-1]
        lines = head + text[-LOG_SNIFF_CHARS:].split("\n")[1:]
    nonblank = [line for line in lines if line.strip()]
    if len(nonblank) <= 2 * LOG_SNIFF_LINES:
        return nonblank
    return nonblank[:LOG_SNIFF_LINES] + nonblank[-LOG_SNIFF_LINES:]


def looks_like_log(text: str) -> bool:
    """True when enough of the text's sampled lines look like log or tool output (judged
    line by line until the answer is certain)."""
    lines = _sampled_lines(text)
    needed = max(LOG_MIN_LINES, math.ceil(LOG_LINE_SHARE * len(lines)))
    hits = 0
    for seen, line in enumerate(lines, start=1):
        hits += is_log_line(line)
        if hits >= needed:
            return True
        if hits + len(lines) - seen < needed:
            return False
    return False


_memo: OrderedDict[tuple[str, str, str], TextKind] = OrderedDict()
_memo_lock = threading.Lock()


def text_kind(path: str | None, text: str, kind: BlockKind = "text") -> TextKind:
    """What `text` (the content of `path`, when it is a file) is; `kind` is what its
    source said ("log" is trusted, anything else is checked). Remembered by content
    hash (`KIND_MEMO_ENTRIES` texts), as a build sees the same texts again."""
    key = (path or "", kind, content_hash(text))
    with _memo_lock:
        known = _memo.get(key)
        if known is not None:
            _memo.move_to_end(key)
            return known
    found = _judge(path, text, kind)
    with _memo_lock:
        _memo[key] = found
        while len(_memo) > KIND_MEMO_ENTRIES:
            _memo.popitem(last=False)
    return found


def _judge(path: str | None, text: str, kind: BlockKind) -> TextKind:
    if kind == "log" or looks_like_log(text):
        return "log"
    name = (path or "").rsplit("/", 1)[-1]
    refusal = text_refusal(name, text)
    if refusal is not None:
        return refusal
    if path and language_of(path) is not None:
        return "code"
    return "text"
