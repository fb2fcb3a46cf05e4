"""The engine's listener: engine events → `session/update` notifications.

- text and reasoning → `agent_message_chunk` / `agent_thought_chunk`; the
  chunks between two tool calls share a `messageId`.
- tool calls (`on_tool_call`, with the recorded parts) → `tool_call` and
  `tool_call_update` (`updates.py`); a call the turn's end finds unfinished
  (a cancelled turn) is closed as failed.
- the goal tree → `plan` (or `plan_update`, see `plan.py`), on every change.
- context stats → `usage_update` before every model call, with the
  session's cost; the last stats are kept for the update after the turn.
- summaries and prunes → `compaction_update` (or an agent message); goal
  folds show in the plan instead.
- the engine's waits of a session (`ProgressEvent`: the map's scan, MCP
  servers starting, a retry's wait) → an italic agent message when one
  begins (and at each new retry), as a compaction's is; the map's scan while an
  engine warms up belongs to no session and is only logged.
- an MCP server's crash (restarting) or end (failed) → a `notice` to the
  sessions using it, for clients that take notices (`notices.py`); so does
  a context limit a provider stated, to its session (`limit_notice`).
- engine log lines → this process's log (stderr).

Every method returns at once and never raises (the EngineListener contract).
"""

from __future__ import annotations

import itertools
import logging
from typing import TYPE_CHECKING

from cairn.acp.notices import limit_notice, mcp_notice
from cairn.acp.plan import plan_update
from cairn.acp.replay import SHOWN_COMPACTIONS
from cairn.acp.updates import (
    chunk,
    compaction_message,
    compaction_update,
    tool_call_cancelled,
    tool_call_finished,
    tool_call_started,
    usage_update,
)

if TYPE_CHECKING:
    from cairn.acp.server import AcpServer
    from cairn.agent.api import LearnedLimit, ToolCallEvent
    from cairn.mcp.state import ServerStatus
    from cairn.models.events import CompactionEvent, GoalTreeView, TurnEvent
    from cairn.models.manifest import ContextStats
    from cairn.models.progress import ProgressEvent

logger = logging.getLogger(__name__)


class AcpListener:
    """Implements `cairn.agent.api.EngineListener` for one ACP connection."""

    def __init__(self, server: AcpServer) -> None:
        self._server = server
        self._open_calls: dict[str, set[str]] = {}
        self._message_ids: dict[str, str] = {}
        self._compactions: dict[str, str] = {}
        self._counter = itertools.count(1)
        self.last_stats: dict[str, ContextStats] = {}

    def _message_id(self, session_id: str, turn_id: str) -> str:
        current = self._message_ids.get(session_id)
        if current is None:
            current = f"{turn_id or session_id}-m{next(self._counter)}"
            self._message_ids[session_id] = current
        return current

    def on_turn_event(self, event: TurnEvent) -> None:
        try:
            sid = event.session_id
            if event.kind in ("text", "reasoning") and event.text:
                kind = "agent_message_chunk" if event.kind == "text" else "agent_thought_chunk"
                message_id = self._message_id(sid, event.turn_id)
                self._server.send(sid, chunk(kind, event.text, message_id))
            elif event.kind == "end":
                self.turn_finished(sid)
        except Exception:
            logger.exception("could not forward a turn event")

    def turn_finished(self, session_id: str) -> None:
        """Close the calls the turn left open (it was cancelled mid-call)."""
        self._message_ids.pop(session_id, None)
        for call_id in sorted(self._open_calls.pop(session_id, set())):
            self._server.bridge.terminals.pop(call_id, None)
            self._server.send(session_id, tool_call_cancelled(call_id))

    def on_tool_call(self, event: ToolCallEvent) -> None:
        try:
            sid = event.session_id
            locate = self._server.locate(sid)
            self._message_ids.pop(sid, None)
            call_id = event.call.call_id
            if event.result is None:
                self._open_calls.setdefault(sid, set()).add(call_id)
                named = self._server.client.current_schema
                self._server.send(sid, tool_call_started(event.call, locate, named))
                return
            self._open_calls.get(sid, set()).discard(call_id)
            terminal = self._server.bridge.terminals.pop(call_id, None)
            update = tool_call_finished(event.call, event.result, locate, event.edits, terminal)
            self._server.send(sid, update)
        except Exception:
            logger.exception("could not forward a tool call")

    def on_goal_tree_changed(self, view: GoalTreeView) -> None:
        try:
            markdown = self._server.client.plan is not None
            self._server.send(view.session_id, plan_update(view.tree, markdown))
        except Exception:
            logger.exception("could not forward a goal tree change")

    def on_compaction(self, event: CompactionEvent) -> None:
        try:
            if event.kind not in SHOWN_COMPACTIONS:
                return
            sid = event.session_id
            if not self._server.client.compaction_updates:
                self._message_ids.pop(sid, None)  # the model's next words are a new message
                notice = chunk(
                    "agent_message_chunk",
                    compaction_message(event),
                    f"{sid}-c{next(self._counter)}",
                )
                self._server.send(sid, notice)
                return
            if event.stage == "start":
                self._compactions[sid] = f"{sid}-c{next(self._counter)}"
            compaction_id = self._compactions.get(sid) or f"{sid}-c{next(self._counter)}"
            if event.stage != "start":
                self._compactions.pop(sid, None)
            self._server.send(sid, compaction_update(compaction_id, event))
        except Exception:
            logger.exception("could not forward a compaction event")

    def on_progress(self, event: ProgressEvent) -> None:
        try:
            sid = event.session_id
            if sid is None or event.stage == "end":
                return
            if event.stage == "report" and event.key != "retry":
                return
            self._message_ids.pop(sid, None)  # the model's next words are a new message
            text = f"{event.title}: {event.message}" if event.message else event.title
            notice = chunk(
                "agent_message_chunk", f"\n\n_{text}…_\n\n", f"{sid}-p{next(self._counter)}"
            )
            self._server.send(sid, notice)
        except Exception:
            logger.exception("could not forward progress")

    def on_context_stats(self, stats: ContextStats) -> None:
        try:
            self.last_stats[stats.session_id] = stats
            self._server.send(stats.session_id, usage_update(stats, self.cost(stats.session_id)))
        except Exception:
            logger.exception("could not forward context stats")

    def cost(self, session_id: str) -> float | None:
        """The session's cumulative cost, when the provider reported one."""
        session = self._server.sessions.get(session_id)
        if session is None:
            return None
        return session.engine.session_meta(session_id).usage.cost

    def on_mcp_status(self, status: ServerStatus) -> None:
        try:
            update = mcp_notice(status)
            if update is None:
                return
            logger.warning("%s", update["title"])
            for session in list(self._server.sessions.values()):
                uses = (
                    session.id == status.session_id
                    if status.session_id is not None
                    else status.name in session.engine.settings.mcp.servers
                )
                if uses:
                    self._server.tell(session.id, update)
        except Exception:
            logger.exception("could not forward an MCP server's status")

    def on_learned_limit(self, event: LearnedLimit) -> None:
        logger.warning("%s", event.line)
        if event.session_id in self._server.sessions:
            self._server.tell(event.session_id, limit_notice(event))

    def on_log(self, message: str) -> None:
        logger.info("%s", message)
