"""A recorded session as the `session/update`s that replay it (`session/load`).

The trace keeps every message, so the replay is the conversation as it
happened, not its compacted form: the user's messages (text, and the files
they referenced as resource links), the agent's reasoning and text, and
every tool call with its result, rendered by the same functions as a live
turn (`updates.py`) and in the same order (each call announced with its
result; a call a cancelled turn left unanswered is closed as cancelled).
Chunks carry the recorded message id. Compaction
boundaries (summaries and prunes, not goal folds) are replayed as finished
`compaction_update`s to clients that advertise them and left out otherwise.
Explore branches live in their own traces and are not replayed. The walk of
the records is the one the transcript and `cairn trace show` translate too
(`cairn.agent.sessions.replay`); this module only turns its steps into updates.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from cairn.acp.updates import (
    ChunkKind,
    Locate,
    chunk,
    tool_call_cancelled,
    tool_call_finished,
    tool_call_started,
)
from cairn.agent.sessions.replay import (
    Answered,
    Attached,
    Compacted,
    Said,
    Step,
    Thought,
    Unanswered,
    replay_steps,
)
from cairn.files.workspace import path_to_uri

if TYPE_CHECKING:
    from cairn.models.messages import Message

# Compaction kinds shown in the editor (goal folds show in the plan instead).
SHOWN_COMPACTIONS = frozenset({"summary", "prune"})
# The chunk of text said, by the role of its message (other roles' text is not replayed).
SAID_CHUNKS: dict[str, ChunkKind] = {
    "user": "user_message_chunk",
    "assistant": "agent_message_chunk",
}


def _link(step: Attached, locate: Locate) -> Iterator[dict[str, Any]]:
    if step.message.role != "user":
        return  # an attachment the harness recorded, not the user's reference
    path = locate(step.part.path)
    if path is not None and path.exists():
        link = {"type": "resource_link", "uri": path_to_uri(path), "name": step.part.path}
        yield {"sessionUpdate": "user_message_chunk", "content": link, "messageId": step.message.id}


def _compaction(step: Compacted) -> dict[str, Any]:
    part = step.part
    meta: dict[str, Any] = {"kind": part.kind, "tokensBefore": part.tokens_before}
    meta["tokensAfter"] = part.tokens_after
    return {
        "sessionUpdate": "compaction_update",
        "compactionId": step.message.id,
        "status": "completed",
        "_meta": {"cairn": meta},
    }


def _updates(
    step: Step, locate: Locate, compaction_updates: bool, named: bool
) -> Iterator[dict[str, Any]]:
    role = step.message.role
    if isinstance(step, Said) and step.part.text and role in SAID_CHUNKS:
        yield chunk(SAID_CHUNKS[role], step.part.text, step.message.id)
    elif isinstance(step, Thought) and step.part.text and role == "assistant":
        yield chunk("agent_thought_chunk", step.part.text, step.message.id)
    elif isinstance(step, Attached):
        yield from _link(step, locate)
    elif isinstance(step, Answered) and step.call is not None:
        yield tool_call_started(step.call, locate, named)
        yield tool_call_finished(step.call, step.part, locate)
    elif isinstance(step, Unanswered):
        yield tool_call_started(step.part, locate, named)
        yield tool_call_cancelled(step.part.call_id)
    elif isinstance(step, Compacted) and compaction_updates and step.part.kind in SHOWN_COMPACTIONS:
        yield _compaction(step)


def replay_updates(
    messages: Sequence[Message], locate: Locate, compaction_updates: bool, named: bool = False
) -> list[dict[str, Any]]:
    """The updates that replay `messages`, in order (tool calls with their `name` when
    `named`, as live ones)."""
    return [
        update
        for step in replay_steps(messages)
        for update in _updates(step, locate, compaction_updates, named)
    ]
