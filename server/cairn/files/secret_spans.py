"""Where a secret value starts and ends once a detect-secrets plugin matched it.

For a match the plugin confirmed (`cairn.files.redaction`), the span
replaced is the value group when the pattern captures one of at least
`VALUE_GROUP_MIN_CHARS`, else the whole match, widened over the token's
adjacent characters (a JWT's signature, the rest of a token a pattern matched
only the start of); for a private key, its header widened to the whole PEM
block through its `END` line (or over the base64 body of a truncated key),
and only when the block has a key's body (`PEM_MIN_RUN`,
`PEM_MIN_BODY_SHARE`): a lone header in code that parses PEM files is not a
secret. `cairn.files.redaction` runs the plugins, merges the spans and
replaces them.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass

# A captured group at least this long is the value (shorter ones are a prefix like `ghp`).
VALUE_GROUP_MIN_CHARS = 16
# Characters a token continues with after a match (forwards) and before it (backwards).
TOKEN_TAIL_CHARS = frozenset(string.ascii_letters + string.digits + "-_+/=.")
TOKEN_HEAD_CHARS = frozenset(string.ascii_letters + string.digits + "-_")
# Private keys: how far the END line is looked for, and what a key's body looks like.
PEM_MAX_CHARS = 64 * 1024
PEM_DASHES = "-----"
PEM_END = "-----END"
PEM_BODY_CHARS = frozenset(string.ascii_letters + string.digits + "+/=")
# Characters a truncated key's body may hold besides base64 (line breaks, escapes, quotes).
PEM_FILLER_CHARS = frozenset(" \t\r\n\\\"'")
PEM_MIN_RUN = 40
PEM_MIN_BODY_SHARE = 0.8


@dataclass(frozen=True, slots=True)
class Span:
    """Where one secret value is, and its kind (the detector's name)."""

    start: int
    end: int
    kind: str


def value_span(match: re.Match[str]) -> tuple[int, int]:
    """The captured value (the longest group, when long enough) or the whole match."""
    best = (match.start(), match.end())
    longest = 0
    for index in range(1, (match.re.groups or 0) + 1):
        start, end = match.span(index)
        if start >= 0 and end - start > longest:
            longest, candidate = end - start, (start, end)
            if longest >= VALUE_GROUP_MIN_CHARS:
                best = candidate
    return best


def widen(text: str, start: int, end: int) -> tuple[int, int]:
    """The span grown over the token characters around it."""
    while start > 0 and text[start - 1] in TOKEN_HEAD_CHARS:
        start -= 1
    while end < len(text) and text[end] in TOKEN_TAIL_CHARS:
        end += 1
    return start, end


def _looks_like_key_body(body: str) -> bool:
    """True when `body` holds a key: a long base64 run, and mostly base64 apart from filler."""
    lines = [line for line in re.split(r"\\n|\n", body) if ":" not in line]
    useful = [char for char in "".join(lines) if char not in PEM_FILLER_CHARS]
    if not useful:
        return False
    encoded = sum(1 for char in useful if char in PEM_BODY_CHARS)
    longest = run = 0
    for char in useful:
        run = run + 1 if char in PEM_BODY_CHARS else 0
        longest = max(longest, run)
    return longest >= PEM_MIN_RUN and encoded / len(useful) >= PEM_MIN_BODY_SHARE


def pem_span(text: str, match: re.Match[str]) -> tuple[int, int] | None:
    """The whole PEM block a private-key header starts, or None when it has no key body."""
    start = match.start()
    if text.startswith(PEM_DASHES, start - len(PEM_DASHES)):
        start -= len(PEM_DASHES)
    body_start = match.end()
    if text.startswith(PEM_DASHES, body_start):
        body_start += len(PEM_DASHES)
    end_line = text.find(PEM_END, body_start, body_start + PEM_MAX_CHARS)
    if end_line >= 0:
        close = text.find(PEM_DASHES, end_line + len(PEM_END))
        end = close + len(PEM_DASHES) if close >= 0 else end_line + len(PEM_END)
        body = text[body_start:end_line]
    else:  # truncated: the body runs as far as base64, line breaks and quotes go
        end = body_start
        limit = min(len(text), body_start + PEM_MAX_CHARS)
        while end < limit and (text[end] in PEM_BODY_CHARS or text[end] in PEM_FILLER_CHARS):
            end += 1
        body = text[body_start:end]
    return (start, end) if _looks_like_key_body(body) else None
