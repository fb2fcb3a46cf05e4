"""How each recorded message is shown in the history (`cairn.context.history` places them).

A user message: its text, plus a note for each attached file and explore
branch. A tool result: a pruned one as a one-line stub naming the exact call
that reads it again (`prune_stub`), a failed one as it is, a `goal` result
as its change line, a repeated one as a short reference to the earlier one
(`cairn.context.repeats`). An assistant message with tool calls: one entry
with each call's result paired (a call without a recorded result gets
`NO_RESULT_TEXT`). And where goal folds go: at the first shown message each
fold covers.
"""

from __future__ import annotations

from collections.abc import Sequence

from cairn.compaction.markers import CompactionState, compaction_parts, read_state
from cairn.context.blocks import ChatMessage, Count, tool_call_message
from cairn.context.excerpt import ARTIFACT_REF_PREFIX
from cairn.context.repeats import GOAL_TOOL, RepeatIndex, goal_history_text, repeat_stub
from cairn.models.messages import FilePart, Message, SubtaskPart, ToolCallPart, ToolResultPart

NO_RESULT_TEXT = "[no result: the call was interrupted before it finished]"


def prune_stub(tokens: int, artifact_id: str | None) -> str:
    """What the model sees of a pruned tool result: its size and the call that reads it."""
    if artifact_id is None:
        return f"[output pruned: {tokens} tokens; it was not stored: run the call again to see it]"
    return f'[output pruned: {tokens} tokens; read_file("{ARTIFACT_REF_PREFIX}{artifact_id}") shows it again]'


def user_content(message: Message) -> str:
    """A user message as shown: its text, and a note per attached file and explore branch."""
    pieces = [message.text()]
    for part in message.parts:
        if isinstance(part, FilePart):
            pieces.append(f"[attached @{part.path} (hash {part.hash})]")
        elif isinstance(part, SubtaskPart):
            pieces.append(f"[explore branch {part.branch}: {part.status}]")
    return "\n".join(p for p in pieces if p)


class MessageRenderer:
    """Shows the recorded messages of one build (compaction state and results read once)."""

    def __init__(self, messages: Sequence[Message], count: Count) -> None:
        self.messages = messages
        self.count = count
        self.state: CompactionState = read_state(messages)
        # Every recorded result, covered or not: a shown call always gets its result.
        self.results: dict[str, ToolResultPart] = {}
        for message in messages:
            for part in message.parts:
                if isinstance(part, ToolResultPart):
                    self.results.setdefault(part.call_id, part)
        self.repeats = RepeatIndex()

    def visible(self, index: int, message: Message) -> bool:
        return not self.state.is_covered(index, message)

    def tool_content(self, call: ToolCallPart, part: ToolResultPart) -> str:
        """A result as shown: pruned → stub; repeats (`cairn.context.repeats`) → short."""
        if part.call_id in self.state.pruned_call_ids:
            return prune_stub(self.count(part.output), part.artifact_id)
        if not part.ok:
            return part.output
        if part.name == GOAL_TOOL:
            return goal_history_text(part.output)
        earlier = self.repeats.shown(part.name, call.arguments, part.output, part.call_id)
        return part.output if earlier is None else repeat_stub(part.name, earlier, part.artifact_id)

    def assistant_entry(self, message: Message) -> tuple[list[ChatMessage], dict[int, str]]:
        calls = [p for p in message.parts if isinstance(p, ToolCallPart)]
        text = message.text()
        head: ChatMessage = {"role": "assistant", "content": text or None}
        if calls:
            head["tool_calls"] = [tool_call_message(c.call_id, c.name, c.arguments) for c in calls]
        out: list[ChatMessage] = [head]
        artifacts: dict[int, str] = {}
        for call in calls:
            result = self.results.get(call.call_id)
            content = NO_RESULT_TEXT if result is None else self.tool_content(call, result)
            if result is not None and result.artifact_id:
                artifacts[len(out)] = result.artifact_id
            out.append({"role": "tool", "tool_call_id": call.call_id, "content": content})
        return out, artifacts

    def fold_positions(self) -> dict[int, list[tuple[str, str]]]:
        """Index of the first shown covered message → [(goal ref, fold text)]."""
        positions: dict[int, list[tuple[str, str]]] = {}
        index_by_id = {m.id: i for i, m in enumerate(self.messages)}
        for index, message in enumerate(self.messages):
            if self.state.is_covered(index, message):
                continue
            for part in compaction_parts(message):
                if part.kind != "goal" or not part.text:
                    continue
                shown = [
                    index_by_id[c]
                    for c in part.covers
                    if c in index_by_id and index_by_id[c] > self.state.watermark_index
                ]
                if shown:
                    ref = f"goal {part.goal_id}" if part.goal_id else message.id
                    positions.setdefault(min(shown), []).append((ref, part.text))
        return positions
