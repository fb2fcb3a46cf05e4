"""Listener plumbing: a no-op listener and a guard that keeps a broken listener harmless.

`EngineListener` (in `cairn.agent.api`) must never raise; `SafeListener`
enforces that, logging the error instead, so an editor that went away or a
buggy terminal printer cannot end a turn. A listener that lacks one of the
methods (one written before it existed) simply does not get those events;
one without `on_mcp_status` (`McpStatusListener`) gets an MCP server's
status change as an `on_log` line instead, when it is one worth a line, and
one without `on_learned_limit` (`LimitListener`) a learned limit's line.
"""

from __future__ import annotations

import logging

from cairn.agent.api import EngineListener, LearnedLimit, ToolCallEvent
from cairn.mcp.state import ServerStatus, status_sentence
from cairn.models.events import CompactionEvent, GoalTreeView, TurnEvent
from cairn.models.manifest import ContextStats
from cairn.models.progress import ProgressEvent

logger = logging.getLogger(__name__)


class NullListener:
    """Drops every event (the engine's default)."""

    def on_turn_event(self, event: TurnEvent) -> None:
        return None

    def on_goal_tree_changed(self, view: GoalTreeView) -> None:
        return None

    def on_compaction(self, event: CompactionEvent) -> None:
        return None

    def on_context_stats(self, stats: ContextStats) -> None:
        return None

    def on_log(self, message: str) -> None:
        return None

    def on_tool_call(self, event: ToolCallEvent) -> None:
        return None

    def on_progress(self, event: ProgressEvent) -> None:
        return None


class SafeListener:
    """Forwards to `inner`, logging (never raising) whatever the listener raises."""

    def __init__(self, inner: EngineListener | None) -> None:
        self.inner: EngineListener = inner if inner is not None else NullListener()

    def _guard(self, name: str, *args: object) -> None:
        method = getattr(self.inner, name, None)
        if method is None:
            return
        try:
            method(*args)
        except Exception:
            logger.exception("listener %s failed", name)

    def on_turn_event(self, event: TurnEvent) -> None:
        self._guard("on_turn_event", event)

    def on_goal_tree_changed(self, view: GoalTreeView) -> None:
        self._guard("on_goal_tree_changed", view)

    def on_compaction(self, event: CompactionEvent) -> None:
        self._guard("on_compaction", event)

    def on_context_stats(self, stats: ContextStats) -> None:
        self._guard("on_context_stats", stats)

    def on_log(self, message: str) -> None:
        self._guard("on_log", message)

    def on_tool_call(self, event: ToolCallEvent) -> None:
        self._guard("on_tool_call", event)

    def on_progress(self, event: ProgressEvent) -> None:
        self._guard("on_progress", event)

    def on_mcp_status(self, status: ServerStatus) -> None:
        if getattr(self.inner, "on_mcp_status", None) is not None:
            self._guard("on_mcp_status", status)
            return
        sentence = status_sentence(status)
        if sentence is not None:
            self._guard("on_log", sentence)

    def on_learned_limit(self, event: LearnedLimit) -> None:
        if getattr(self.inner, "on_learned_limit", None) is not None:
            self._guard("on_learned_limit", event)
            return
        self._guard("on_log", event.line)
