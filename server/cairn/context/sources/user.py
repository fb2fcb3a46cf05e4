"""Source: the current user message, a required block (never dropped).

Where it sits in the conversation is decided by `cairn.context.history`
(in place when the engine already recorded it, else at the end).
"""

from __future__ import annotations

from cairn.context.blocks import Candidate, Count, chat_candidate
from cairn.context.priorities import PRIORITY_USER


def user_candidate(text: str, count: Count, seq: float, ref: str | None) -> Candidate:
    """The current user message as a required chat block at position `seq`."""
    return chat_candidate(
        "user",
        PRIORITY_USER,
        [{"role": "user", "content": text}],
        count=count,
        seq=seq,
        ref=ref,
        kind="text",
        required=True,
    )
