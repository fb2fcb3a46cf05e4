"""The faithful smaller form of a large tool output for the summarizer's transcript.

`cairn.compaction.transcript` is pure and takes the shortener as a function;
this module builds it on the context's degrade ladder (`cairn.context.degrade`:
the one place outlines and log excerpts are made), so the compaction model
reads a large file as its outline and a long command output as its head,
tail and error lines, each naming the artifact that holds the whole, rather
than a one-line stub:
- a `read_file` of a code file from its first line: the outline of its text
  (the line numbers `read_file` added are taken off first, so the outline's
  line ranges are the file's);
- anything else, or code without an outline: a log excerpt of the output.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from cairn.compaction.ledger import KEY_PATH, READ_TOOL
from cairn.compaction.transcript import Shorten
from cairn.context.blocks import Candidate, Count, section
from cairn.context.degrade import DegradeContext, degrade
from cairn.context.priorities import PRIORITY_OLD_TOOL_OUTPUT
from cairn.context.references import block_kind
from cairn.files.text import content_hash
from cairn.models.manifest import BlockKind
from cairn.models.messages import ToolResultPart

# `read_file`'s `cat -n` numbering: spaces, the number, a tab.
NUMBERED_LINE = re.compile(r"^ *\d+\t")
KEY_START_LINE = "start_line"


def unnumbered(output: str) -> str | None:
    """The text of a numbered `read_file` output (its trailing notes left out), or None."""
    lines = output.splitlines()
    numbered = [line for line in lines if NUMBERED_LINE.match(line)]
    if not numbered or any(NUMBERED_LINE.match(line) is None for line in lines[: len(numbered)]):
        return None
    return "\n".join(NUMBERED_LINE.sub("", line, count=1) for line in numbered)


def _candidate(text: str, kind: BlockKind, ref: str | None, count: Count) -> Candidate:
    return section("tool", PRIORITY_OLD_TOOL_OUTPUT, None, text, count=count, ref=ref, kind=kind)


def _context(part: ToolResultPart, texts: list[str], count: Count) -> DegradeContext:
    """A degrade context whose 'stored' texts point at the artifact the tool already wrote."""
    stored = {content_hash(t): part.artifact_id for t in texts} if part.artifact_id else {}
    return DegradeContext(count=count, stored=stored)


def shorten_for(count: Count) -> Shorten:
    """The transcript's shortener: the output's outline or excerpt within `limit` tokens."""

    def shorten(part: ToolResultPart, limit: int) -> str | None:
        data = part.data or {}
        path = str(data.get(KEY_PATH) or "")
        text = unnumbered(part.output) if part.name == READ_TOOL and path else None
        from_start = data.get(KEY_START_LINE) in (None, 1)
        ctx = _context(part, [part.output, *([text] if text else [])], count)
        if text is not None and from_start and block_kind(PurePosixPath(path)) == "code":
            outlined = degrade(_candidate(text, "code", path, count), limit, ctx)
            if outlined is not None:
                return outlined.body
        excerpted = degrade(_candidate(part.output, "log", path or None, count), limit, ctx)
        return excerpted.body if excerpted is not None else None

    return shorten
