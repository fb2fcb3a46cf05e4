"""The engine's listener: engine events → `cairn/*` notifications, progress and logs.

`cairn/turnEvent`, `cairn/goalTreeChanged` (every change, the model's too),
`cairn/compaction` (+ a `$/progress` bar and a `window/logMessage` line),
the engine's waits (`ProgressEvent`: the map's scan, MCP servers starting, a
retry's wait) → a `$/progress` bar each,
`cairn/contextStatsChanged`, `cairn/mcpStatus` (an MCP server's status
changed: that server and the whole report, + a `window/logMessage` line for
a start, crash or failure) and `window/logMessage` for engine logs. Every
method returns at once and never raises (the EngineListener contract).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from lsprotocol import types

from cairn.frontends.sentences import compaction_sentence
from cairn.lsp.methods import (
    COMPACTION,
    CONTEXT_STATS_CHANGED,
    GOAL_TREE_CHANGED,
    MCP_STATUS,
    TURN_EVENT,
)
from cairn.lsp.progress import ProgressBar

if TYPE_CHECKING:
    from cairn.agent.api import ToolCallEvent
    from cairn.lsp.server import CairnServer
    from cairn.mcp import ServerStatus
    from cairn.models.events import CompactionEvent, GoalTreeView, TurnEvent
    from cairn.models.manifest import ContextStats
    from cairn.models.progress import ProgressEvent

logger = logging.getLogger(__name__)


class LspListener:
    """Implements `cairn.agent.api.EngineListener` for one server."""

    def __init__(self, server: CairnServer) -> None:
        self._server = server
        self._compaction_bars: dict[str, ProgressBar] = {}
        self._wait_bars: dict[str, ProgressBar] = {}

    def on_turn_event(self, event: TurnEvent) -> None:
        try:
            self._server.send_notification(TURN_EVENT, event.wire())
            self._server.call_on_loop(lambda: self._server.turns.on_event(event))
        except Exception:
            logger.exception("could not forward a turn event")

    def on_goal_tree_changed(self, view: GoalTreeView) -> None:
        try:
            self._server.send_notification(GOAL_TREE_CHANGED, view.wire())
        except Exception:
            logger.exception("could not forward a goal tree change")

    def on_compaction(self, event: CompactionEvent) -> None:
        try:
            self._server.send_notification(COMPACTION, event.wire())
            self._server.log_to_client(f"cairn: compaction: {compaction_sentence(event)}")
            self._server.call_on_loop(lambda: self._compaction_progress(event))
        except Exception:
            logger.exception("could not forward a compaction event")

    def _compaction_progress(self, event: CompactionEvent) -> None:
        key = event.session_id
        if event.stage == "start":
            bar = ProgressBar.start(self._server, f"Cairn: {compaction_sentence(event)}")
            self._compaction_bars[key] = bar
            return
        bar = self._compaction_bars.pop(key, None)
        if bar is not None:
            bar.end(compaction_sentence(event))

    def on_context_stats(self, stats: ContextStats) -> None:
        try:
            self._server.send_notification(CONTEXT_STATS_CHANGED, stats.wire())
        except Exception:
            logger.exception("could not forward context stats")

    def on_mcp_status(self, status: ServerStatus) -> None:
        from cairn.mcp.state import status_sentence
        from cairn.mcp.view import server_view
        from cairn.models.mcp_status import McpStatusEvent

        try:
            engine = self._server.host.ready
            if engine is None:
                return
            report = engine.mcp_report(status.session_id)
            event = McpStatusEvent(server=server_view(status, report.model), report=report)
            self._server.send_notification(MCP_STATUS, event.wire())
            sentence = status_sentence(status)
            if sentence is not None:
                self._server.log_to_client(sentence, types.MessageType.Log)
        except Exception:
            logger.exception("could not forward an MCP server's status")

    def on_log(self, message: str) -> None:
        try:
            self._server.log_to_client(message, types.MessageType.Log)
        except Exception:
            logger.exception("could not forward a log line")

    def on_tool_call(self, event: ToolCallEvent) -> None:
        """Tool calls reach the editor as `cairn/turnEvent` toolStart / toolEnd."""
        return None

    def on_progress(self, event: ProgressEvent) -> None:
        try:
            self._server.call_on_loop(lambda: self._wait_progress(event))
        except Exception:
            logger.exception("could not forward progress")

    def _wait_progress(self, event: ProgressEvent) -> None:
        """A wait (the map's scan, MCP servers starting, a retry) as one `$/progress` bar."""
        key = f"{event.key}:{event.session_id or ''}"
        if event.stage == "begin":
            unfinished = self._wait_bars.pop(key, None)
            if unfinished is not None:
                unfinished.end()
            title = f"Cairn: {event.title}"
            self._wait_bars[key] = ProgressBar.start(self._server, title, message=event.message)
        elif event.stage == "report" and (bar := self._wait_bars.get(key)) is not None:
            bar.report(event.message or "")
        elif event.stage == "end" and (bar := self._wait_bars.pop(key, None)) is not None:
            bar.end(event.message)
