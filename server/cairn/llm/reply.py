"""What one model call returns: streamed text, reasoning, tool calls and usage.

`ToolCall.arguments` is the parsed JSON object, or None when the model sent
arguments that are not a JSON object; then `error` says why and
`raw_arguments` keeps the text verbatim so the turn loop can show the model
its mistake once. `ModelReply.requests` counts the HTTP requests the call
took, retries included.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cairn.models.session import Usage


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call the model asked for."""

    call_id: str
    name: str
    arguments: dict[str, Any] | None
    raw_arguments: str
    error: str | None = None


@dataclass(frozen=True, slots=True)
class ModelReply:
    """The complete answer of one model call."""

    text: str
    reasoning: str
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    finish_reason: str = "stop"
    # HTTP requests the call took (retries included).
    requests: int = 1
    # Whether the provider reported the usage (else it was counted here, and says nothing
    # about how the provider counts: no calibration learns from it).
    usage_reported: bool = False
