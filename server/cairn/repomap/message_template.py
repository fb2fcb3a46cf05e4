"""The parts of an issue-like message that every issue of a repository shares: headings of
its template and the environment it was seen in (pure, linear in the text).

`without_boilerplate` drops markdown headings (`## Steps to Reproduce`, `**Crash
Report**`) and whole environment sections (a heading naming the environment, versions,
system, platform or configuration, up to the next heading): their words would otherwise
point every message of the template at the same files (`crash`, `report`, `config`).
Lines that merely mention a version stay (on the development set, dropping them lost more
than it gained: "not present in prior versions" carries the issue's words).
"""

from __future__ import annotations

import re

_HEADING = re.compile(r"^\s{0,3}(?:#{1,6}\s+(?P<hash>[^\n]*)|\*\*(?P<bold>[^*\n]{1,80})\*\*:?\s*)$")
_ENVIRONMENT_WORDS = frozenset(
    {"environment", "version", "versions", "system", "platform", "configuration", "setup"}
)
_WORD = re.compile(r"[A-Za-z]+")


def without_boilerplate(text: str) -> str:
    """`text` without template headings and environment sections (code fences kept)."""
    kept: list[str] = []
    in_environment = False
    fenced = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        heading = None if fenced else _HEADING.match(line)
        if heading is not None:
            title = heading["hash"] if heading["hash"] is not None else heading["bold"]
            words = {w.lower() for w in _WORD.findall(title or "")}
            in_environment = bool(words & _ENVIRONMENT_WORDS)
            continue
        if in_environment:
            continue
        kept.append(line)
    return "\n".join(kept)
