"""One snapshot of everything a model call's context is made from (frozen, no I/O after it).

`cairn.context.gather.gather` takes it (the only I/O of a build: buffers,
files, `git diff`, rules files, references, the profile, the repository
map); `cairn.context.assemble.assemble` turns it into messages without
touching the world, so the same snapshot always gives the same bytes and
the compactor can measure a candidate marker by assembling the snapshot
again with the marker added to its history (`with_history`).

The candidates a snapshot holds are never changed by assembly (it copies
them before selection). `files` are the texts that may be attached to the
history once (`cairn.context.attachments`): the turn's references first,
then the files in play the agent did not edit itself. `rules` are the
rules files in play now (the preamble freezes the ones of the turn's first
call; later ones are attached). `profile` and `repomap` are empty when the
caller did not ask for the preamble (a frozen one is used instead).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from cairn.context.blocks import Candidate
from cairn.context.budget import Budget
from cairn.context.tool_schemas import ToolLine, offered_schemas
from cairn.models.goals import GoalTree
from cairn.models.manifest import BlockKind
from cairn.models.messages import Message
from cairn.settings import Mode
from cairn.tokens.calibration import ModelCalibration

AttachSource = Literal["reference", "buffer"]


@dataclass(frozen=True)
class FileView:
    """A referenced file (or directory listing) or a file in play, as read at gather time."""

    source: AttachSource
    rel: str
    text: str
    version: str
    kind: BlockKind
    priority: int
    # "editor buffer", "disk" or "directory"; "" for a refused file.
    origin: str
    # Why the guard refused it (nothing of it is shown), else None.
    refusal: str | None = None
    # Why `text` is not the whole file (a streamed excerpt), else None.
    reason: str | None = None
    # A refused reference whose name leads to another workspace file (a symlink): that file.
    target: str | None = None


@dataclass(frozen=True)
class ContextSnapshot:
    """The inputs of one assembly (see the module docstring)."""

    session_id: str
    model: str
    mode: Mode
    budget: Budget
    # Every tool the call knows (offered, deferred, refused), in the order sent, and each
    # one's schema tokens.
    tools: tuple[ToolLine, ...]
    tool_tokens: tuple[int, ...]
    user_message: str
    # The recorded message `user_message` is (None: not recorded, shown last).
    user_message_id: str | None
    goals: GoalTree
    history: tuple[Message, ...]
    system: tuple[Candidate, ...]
    rules: tuple[Candidate, ...]
    profile: tuple[Candidate, ...]
    repomap: tuple[Candidate, ...]
    diagnostics: tuple[Candidate, ...]
    diff: tuple[Candidate, ...]
    extra: tuple[Candidate, ...]
    files: tuple[FileView, ...]
    # Text-less rules blocks of rules files whose files left play (the manifest says why).
    out_of_play: tuple[Candidate, ...] = ()
    # Workspace-relative paths → text of the files the agent itself edited in this turn.
    edited: Mapping[str, str] = field(default_factory=dict)
    # The files in play (workspace-relative), which the preamble's rules and map depend on.
    in_play: tuple[str, ...] = ()
    # Whether `profile` and `repomap` were gathered (a fresh preamble can be made).
    has_preamble: bool = True
    call_id: str | None = None
    # The model's token calibration the budget was made with (shown in the stats).
    calibration: ModelCalibration = field(default_factory=ModelCalibration)
    # Lines the manifest carries about the call's settings (what an untrusted folder ignored).
    notes: tuple[str, ...] = ()

    @property
    def tool_schemas(self) -> tuple[Mapping[str, Any], ...]:
        """The schemas sent, in the order sent (the tools zone)."""
        return offered_schemas(self.tools)

    def with_history(self, messages: Sequence[Message]) -> ContextSnapshot:
        """The same snapshot over other messages (a probe marker added, or newer records)."""
        return replace(self, history=tuple(messages))
