"""Shared helpers of the agent tests: a scripted workspace and a recording listener.

(Named `test_agent_*` so it lives with the agent tests; it defines no tests.)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cairn.agent.api import ToolCallEvent
from cairn.agent.engine import Engine
from cairn.llm import Timing
from cairn.models.events import CompactionEvent, GoalTreeView, TurnEvent
from cairn.models.manifest import ContextStats
from cairn.models.progress import ProgressEvent
from cairn.settings import Settings

SCRIPT = "script.jsonl"


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


def reply(text: str = "", *calls: dict[str, Any], **extra: Any) -> dict[str, Any]:
    line: dict[str, Any] = {"text": text, **extra}
    if calls:
        line["toolCalls"] = list(calls)
    return line


def write_script(root: Path, lines: list[dict[str, Any]], name: str = SCRIPT) -> str:
    (root / name).write_text("".join(json.dumps(line) + "\n" for line in lines))
    return f"scripted/{name}"


class Recorder:
    """An `EngineListener` that keeps every event."""

    def __init__(self) -> None:
        self.turn_events: list[TurnEvent] = []
        self.trees: list[GoalTreeView] = []
        self.compactions: list[CompactionEvent] = []
        self.stats: list[ContextStats] = []
        self.logs: list[str] = []
        self.tool_calls: list[ToolCallEvent] = []
        self.progress: list[ProgressEvent] = []

    def on_turn_event(self, event: TurnEvent) -> None:
        self.turn_events.append(event)

    def on_goal_tree_changed(self, view: GoalTreeView) -> None:
        self.trees.append(view)

    def on_compaction(self, event: CompactionEvent) -> None:
        self.compactions.append(event)

    def on_context_stats(self, stats: ContextStats) -> None:
        self.stats.append(stats)

    def on_log(self, message: str) -> None:
        self.logs.append(message)

    def on_tool_call(self, event: ToolCallEvent) -> None:
        self.tool_calls.append(event)

    def on_progress(self, event: ProgressEvent) -> None:
        self.progress.append(event)

    def kinds(self) -> list[str]:
        return [e.kind for e in self.turn_events]


def make_engine(
    root: Path,
    lines: list[dict[str, Any]],
    recorder: Recorder | None = None,
    *,
    timing: Timing | None = None,
    **settings: Any,
) -> Engine:
    """An engine on `root` answering with the scripted `lines` (allow-listing nothing by default)."""
    model = write_script(root, lines)
    options: dict[str, Any] = {"model": model, "allowed_commands": [], **settings}
    return Engine([root], Settings.model_validate(options), listener=recorder, timing=timing)
