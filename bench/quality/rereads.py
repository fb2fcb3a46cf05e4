"""Edits made blind: the scripted model's `edit_file` calls whose text was not in view.

The scripted model replies the same whatever it receives, so a context that
lost a file's text costs nothing in the bench, where a real model would read
the file again (one more call, and the file in every call after). This
finds, per side, the edits whose request did not show every line of the
`old` text being replaced (`blind_edits`): the re-reads a real model would
have made, priced at least one more request of the same size each
(`reread_tokens`). A harsher compaction setting that makes more edits blind
pays for it there.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from cairn.llm.usage import prompt_text

EDIT_TOOL = "edit_file"


def edit_olds(reply: Mapping[str, Any]) -> list[str]:
    """The `old` texts of the replacing edits one scripted reply makes."""
    return [
        str(call["arguments"]["old"])
        for call in reply.get("toolCalls", [])
        if call.get("name") == EDIT_TOOL and "old" in call.get("arguments", {})
    ]


def in_view(old: str, request: Sequence[Mapping[str, Any]]) -> bool:
    """Whether every non-blank line of `old` appears in the request's text."""
    text = prompt_text(request, [])
    return all(line.strip() in text for line in old.splitlines() if line.strip())


def blind_edits(
    requests: Sequence[Sequence[Mapping[str, Any]]], replies: Sequence[Mapping[str, Any]]
) -> list[int]:
    """The request index of each edit of `replies` (the reply to each of `requests`, in
    order) made without its text in view."""
    return [
        index
        for index, (request, reply) in enumerate(zip(requests, replies, strict=True))
        for old in edit_olds(reply)
        if not in_view(old, request)
    ]


def reread_tokens(blind: Sequence[int], sizes: Sequence[int]) -> int:
    """A lower bound on what the re-reads cost: one more request of the same size per
    blind edit (the call that reads the file again), not the file in the calls after."""
    return sum(sizes[index] for index in blind)
