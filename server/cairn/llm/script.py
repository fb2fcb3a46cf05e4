"""The scripted model's JSONL format, and which line answers which call.

One line per model call:
`{"text": "...", "toolCalls": [{"name": "goal", "arguments": {...}}]}`, both
keys optional. `arguments` may be a string: it is passed through verbatim (to
script malformed JSON). Optional keys: `"agent"` (the lane: an explore
branch's index or name, or "compaction"; absent = the main agent),
`"reasoning"`, `"error"` (the call fails with that provider error),
`"delay"` (seconds before the first chunk) and `"chunkDelay"` (seconds
between chunks). Each lane consumes its own lines in file order; a cursor
per (file, lane) lives in the `ScriptBook`.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Literal

from pydantic import ConfigDict, Field, TypeAdapter, ValidationError, field_validator

from cairn.models.base import WireModel

MAIN_LANE = "main"
COMPACTION_LANE = "compaction"
# Key of litellm's `metadata` that carries the agent lane from the runtime to the provider.
AGENT_METADATA_KEY = "cairn_agent"

ScriptedErrorName = Literal[
    "rate_limit", "server_error", "unavailable", "timeout", "connection", "auth", "bad_request"
]


class ScriptError(Exception):
    """A script cannot answer a call: unreadable file, bad line, or no reply left."""


class ScriptedToolCall(WireModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    arguments: dict[str, Any] | str = Field(default_factory=dict)
    id: str | None = None


class ScriptLine(WireModel):
    """One scripted model reply."""

    model_config = ConfigDict(extra="forbid")

    text: str = ""
    tool_calls: list[ScriptedToolCall] = Field(default_factory=list)
    reasoning: str = ""
    agent: str = MAIN_LANE
    error: ScriptedErrorName | None = None
    delay: float = Field(default=0.0, ge=0)
    chunk_delay: float = Field(default=0.0, ge=0)

    @field_validator("agent", mode="before")
    @classmethod
    def _lane_name(cls, value: Any) -> Any:
        """Branch indexes may be written as numbers: `"agent": 0` is lane "0"."""
        if value is None:
            return MAIN_LANE
        return str(value) if isinstance(value, int) else value


_LINE = TypeAdapter(ScriptLine)


def parse_script(path: Path) -> list[ScriptLine]:
    """Every reply line of a script file (blank lines skipped); raises `ScriptError`."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ScriptError(f"scripted model {path}: cannot read: {exc.strerror or exc}") from None
    lines: list[ScriptLine] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            lines.append(_LINE.validate_json(raw))
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "line"
            raise ScriptError(
                f"scripted model {path}: line {number}: {where}: {first['msg']}"
            ) from None
    return lines


class ScriptBook:
    """Hands out each lane's next line; one cursor per (script path, lane)."""

    def __init__(self) -> None:
        self._cursors: dict[tuple[str, str], int] = {}
        self._lock = threading.Lock()

    def next_line(self, path: Path, lane: str) -> ScriptLine | None:
        """The lane's next unused line, or None when the lane has no line left."""
        lines = [line for line in parse_script(path) if line.agent == lane]
        key = (str(path), lane)
        with self._lock:
            position = self._cursors.get(key, 0)
            self._cursors[key] = position + 1
        return lines[position] if position < len(lines) else None

    def calls_made(self, path: Path, lane: str) -> int:
        """How many calls the lane has made against the script so far."""
        with self._lock:
            return self._cursors.get((str(path), lane), 0)

    def reset(self) -> None:
        """Forget every cursor: every script starts again at its first line."""
        with self._lock:
            self._cursors.clear()
