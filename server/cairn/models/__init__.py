"""Pydantic data models shared by every layer (snake_case in Python, camelCase on the wire)."""

from cairn.models.base import WireModel, utc_now
from cairn.models.diagnostics import Diagnostic, Position, Range
from cairn.models.goals import Goal, GoalStatus, GoalTree
from cairn.models.manifest import (
    CompactionStats,
    ContextBlock,
    ContextStats,
    Manifest,
    ManifestBlock,
)
from cairn.models.messages import (
    MESSAGE_ADAPTER,
    CompactionPart,
    FilePart,
    Message,
    Part,
    ReasoningPart,
    SubtaskPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from cairn.models.profile import ProjectProfile, RulesFile
from cairn.models.session import FinishReason, SessionMeta, Turn, Usage
from cairn.models.summary import (
    Decision,
    FileChanged,
    FileRead,
    GoalSummary,
    SessionSummary,
    TestRecord,
)

__all__ = [
    "MESSAGE_ADAPTER",
    "CompactionPart",
    "CompactionStats",
    "ContextBlock",
    "ContextStats",
    "Decision",
    "Diagnostic",
    "FileChanged",
    "FilePart",
    "FileRead",
    "FinishReason",
    "Goal",
    "GoalStatus",
    "GoalSummary",
    "GoalTree",
    "Manifest",
    "ManifestBlock",
    "Message",
    "Part",
    "Position",
    "ProjectProfile",
    "Range",
    "ReasoningPart",
    "RulesFile",
    "SessionMeta",
    "SessionSummary",
    "SubtaskPart",
    "TestRecord",
    "TextPart",
    "ToolCallPart",
    "ToolResultPart",
    "Turn",
    "Usage",
    "WireModel",
    "utc_now",
]
