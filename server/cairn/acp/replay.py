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
Explore branches live in their own traces and are not replayed.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from cairn.acp.updates import (
    Locate,
    chunk,
    tool_call_cancelled,
    tool_call_finished,
    tool_call_started,
)
from cairn.files.workspace import path_to_uri
from cairn.models.messages import (
    CompactionPart,
    FilePart,
    Message,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)

# Compaction kinds shown in the editor (goal folds show in the plan instead).
SHOWN_COMPACTIONS = frozenset({"summary", "prune"})


def _user(message: Message, locate: Locate) -> Iterator[dict[str, Any]]:
    for part in message.parts:
        if isinstance(part, TextPart) and part.text:
            yield chunk("user_message_chunk", part.text, message.id)
        elif isinstance(part, FilePart) and (path := locate(part.path)) and path.exists():
            link = {"type": "resource_link", "uri": path_to_uri(path), "name": part.path}
            yield {"sessionUpdate": "user_message_chunk", "content": link, "messageId": message.id}


def _compaction(message: Message, part: CompactionPart) -> dict[str, Any]:
    meta: dict[str, Any] = {"kind": part.kind, "tokensBefore": part.tokens_before}
    meta["tokensAfter"] = part.tokens_after
    return {
        "sessionUpdate": "compaction_update",
        "compactionId": message.id,
        "status": "completed",
        "_meta": {"cairn": meta},
    }


class _Calls:
    """Tool calls seen but not yet answered: each is announced with its result, as live."""

    def __init__(self, locate: Locate) -> None:
        self.locate = locate
        self.pending: dict[str, ToolCallPart] = {}

    def result(self, part: ToolResultPart) -> list[dict[str, Any]]:
        call = self.pending.pop(part.call_id, None)
        if call is None:
            return []
        return [tool_call_started(call, self.locate), tool_call_finished(call, part, self.locate)]

    def unanswered(self) -> list[dict[str, Any]]:
        """Calls a cancelled turn never answered: announced and closed as cancelled."""
        out: list[dict[str, Any]] = []
        for call in self.pending.values():
            out += [tool_call_started(call, self.locate), tool_call_cancelled(call.call_id)]
        self.pending.clear()
        return out


def _assistant(message: Message, calls: _Calls) -> Iterator[dict[str, Any]]:
    for part in message.parts:
        if isinstance(part, ReasoningPart) and part.text:
            yield chunk("agent_thought_chunk", part.text, message.id)
        elif isinstance(part, TextPart) and part.text:
            yield chunk("agent_message_chunk", part.text, message.id)
        elif isinstance(part, ToolCallPart):
            calls.pending[part.call_id] = part


def replay_updates(
    messages: Sequence[Message], locate: Locate, compaction_updates: bool
) -> list[dict[str, Any]]:
    """The updates that replay `messages`, in order."""
    calls = _Calls(locate)
    out: list[dict[str, Any]] = []
    for message in messages:
        if message.agent is not None:
            continue
        if message.role == "user":
            out += calls.unanswered()
            out.extend(_user(message, locate))
        elif message.role == "assistant":
            out.extend(_assistant(message, calls))
        for part in message.parts:
            if isinstance(part, ToolResultPart):
                out += calls.result(part)
            elif (
                isinstance(part, CompactionPart)
                and compaction_updates
                and part.kind in SHOWN_COMPACTIONS
            ):
                out.append(_compaction(message, part))
    return out + calls.unanswered()
