"""The structured session summary written by full compaction.

Narrative fields (objective, facts, decisions, open questions) come from the
compaction model call; ledger fields (files read and changed, tests, goal
summaries) are filled from the trace's records, never left to the model.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from cairn.models.base import WireModel


class Decision(WireModel):
    decision: str
    reason: str


class FileRead(WireModel):
    path: str
    hash: str
    # The artifact holding the text as read (None for a read too small to store).
    artifact_id: str | None = None


class FileChanged(WireModel):
    path: str
    patch_artifact_id: str | None = None


class TestRecord(WireModel):
    command: str
    status: Literal["passed", "failed", "error", "unknown"]
    artifact_id: str | None = None


class GoalSummary(WireModel):
    goal_id: str
    description: str
    status: Literal["completed", "abandoned"]
    summary: str


class SessionSummary(WireModel):
    objective: str = ""
    confirmed_facts: list[str] = Field(default_factory=list)
    decisions: list[Decision] = Field(default_factory=list)
    files_read: list[FileRead] = Field(default_factory=list)
    files_changed: list[FileChanged] = Field(default_factory=list)
    tests: list[TestRecord] = Field(default_factory=list)
    goal_summaries: list[GoalSummary] = Field(default_factory=list)
    open_questions: list[str] = Field(default_factory=list)
    covered_until_message_id: str | None = None
