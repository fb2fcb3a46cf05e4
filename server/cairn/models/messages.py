"""Messages and their typed parts, as recorded append-only in `messages.jsonl`.

A message is never edited after it is appended. Pruning, goal folding and
summaries are recorded as new messages carrying a `CompactionPart`; the
context builder applies them when it renders history. A change the user
makes to the goal tree is recorded as a system message carrying a
`GoalOpPart` (the model's changes are its `goal` tool results): replaying
them gives the tree as it was at any message (`cairn.goals.replay_goals`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import Field, TypeAdapter

from cairn.models.base import WireModel, utc_now
from cairn.models.goals import GoalTree, GoalVerb
from cairn.models.summary import SessionSummary

Role = Literal["system", "user", "assistant", "tool"]


def _absent(value: object) -> bool:
    return value is None


class TextPart(WireModel):
    type: Literal["text"] = "text"
    text: str


class ReasoningPart(WireModel):
    type: Literal["reasoning"] = "reasoning"
    text: str


class ToolCallPart(WireModel):
    """A tool call the model made. `arguments` is the parsed JSON object."""

    type: Literal["tool_call"] = "tool_call"
    call_id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class ToolResultPart(WireModel):
    """The result of one tool call; large output lives in an artifact."""

    type: Literal["tool_result"] = "tool_result"
    call_id: str
    name: str
    output: str
    ok: bool = True
    artifact_id: str | None = None
    # Structured facts the agent recorded about the call (path + content hash read,
    # patch artifact of an edit, command + exit code): the compaction ledger's source.
    data: dict[str, Any] | None = None


class FilePart(WireModel):
    """A file attached to a message, by path and content hash.

    On the user's message it names an `@file` reference. On an attachment
    (a harness message recorded before a call, `cairn.context.attachments`)
    it carries the text the model was shown once: a referenced file or
    directory listing (`source` "reference"), a file in play ("buffer") or a
    rules file that came into play after the turn's preamble ("rules").
    """

    type: Literal["file"] = "file"
    path: str
    hash: str
    text: str | None = None
    source: Literal["reference", "buffer", "rules"] = "reference"
    # How the text is headed in the context ("editor buffer", "disk", "directory").
    origin: str | None = None
    # False for an open editor buffer that is not one of the files in play (low relevance).
    in_play: bool = True
    # Why `text` is not the whole file (a streamed excerpt of a file over the read limit:
    # how many of its lines it shows); absent when it is the whole file.
    reason: str | None = Field(default=None, exclude_if=_absent)


CompactionKind = Literal["prune", "summary", "goal"]


class CompactionPart(WireModel):
    """A record that some history is represented differently in the context.

    - `prune`: the tool results with `pruned_call_ids` are shown as one-line stubs.
    - `goal`: the messages `covers` (a finished or abandoned goal) are shown as `text`.
    - `summary`: every message up to `summary.covered_until_message_id` is shown
      as the structured `summary`.
    """

    type: Literal["compaction"] = "compaction"
    kind: CompactionKind
    covers: list[str] = Field(default_factory=list)
    pruned_call_ids: list[str] = Field(default_factory=list)
    goal_id: str | None = None
    text: str | None = None
    summary: SessionSummary | None = None
    tokens_before: int = 0
    tokens_after: int = 0


class SubtaskPart(WireModel):
    """One explore branch launched from a message; its trace lives under the parent's."""

    type: Literal["subtask"] = "subtask"
    branch: str
    trace_id: str
    status: Literal["running", "completed", "failed", "cancelled"] = "running"
    conclusion: str | None = None


class GoalOpPart(WireModel):
    """A change to the goal tree made outside the model's `goal` tool.

    `verb` + `text`: the user's edit from the editor (`cairn/goal`), recorded
    before `goal.json` is saved. `seed`: the whole `tree` an explore branch
    starts from (its parent's plan). Never shown to the model: the plan is.
    """

    type: Literal["goal_op"] = "goal_op"
    verb: GoalVerb | Literal["seed"]
    text: str = ""
    tree: GoalTree | None = None
    by: Literal["user", "harness"] = "user"


Part = Annotated[
    TextPart
    | ReasoningPart
    | ToolCallPart
    | ToolResultPart
    | FilePart
    | CompactionPart
    | SubtaskPart
    | GoalOpPart,
    Field(discriminator="type"),
]


class Message(WireModel):
    """One message. `goal_id` is the goal focused when it was written."""

    id: str
    role: Role
    parts: list[Part] = Field(default_factory=list)
    goal_id: str | None = None
    turn_id: str | None = None
    agent: str | None = None
    created_at: datetime = Field(default_factory=utc_now)

    def text(self) -> str:
        """The concatenated text parts."""
        return "".join(p.text for p in self.parts if isinstance(p, TextPart))


MESSAGE_ADAPTER: TypeAdapter[Message] = TypeAdapter(Message)
