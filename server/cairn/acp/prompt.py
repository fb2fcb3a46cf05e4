"""`session/prompt` (one turn) and `session/cancel`.

The prompt's content becomes the turn's message and references
(`content.py`); the whole-file texts the client embedded that differ from
the disk (unsaved edits) are shown to the engine as open buffers for the
turn (read, like every buffer, through the path guard), and closed after it. The turn runs in its own task in the session's
mode; `session/cancel` cancels it, and the prompt then answers `cancelled`
(the partial output is recorded, the session stays usable; the cancel path
the language server shares: `cairn.frontends.turns`). One prompt at a time
per session. A root whose trust is undecided is asked about first
(`trust.py`), and the turn runs under the answer.

Finish reasons → stop reasons: `stop` → `end_turn`, `stepLimit` →
`max_turn_requests`, `cancelled` → `cancelled`; an `error` (the model
failed, or sent malformed tool calls twice) is a JSON-RPC error naming it.
The answer carries the turn's tokens (`usage`: total, input, output).
After the turn: a `usage_update` with the session's cost, and a
`session_info_update` when the session got its title.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cairn.acp.content import prompt_input
from cairn.acp.handling import bind
from cairn.acp.rpc import Handler
from cairn.acp.schema import PromptParams, SessionParams
from cairn.acp.updates import usage_update
from cairn.files.reading import read_text_bounded
from cairn.frontends.codes import INTERNAL_ERROR
from cairn.frontends.faults import RpcError
from cairn.frontends.turns import TurnAsk

if TYPE_CHECKING:
    from cairn.acp.server import AcpServer, AcpSession
    from cairn.files.workspace import Workspace
    from cairn.models.events import TokenUsage, TurnResult

logger = logging.getLogger(__name__)

PROMPT = "session/prompt"
STOP_REASONS = {"stop": "end_turn", "stepLimit": "max_turn_requests", "cancelled": "cancelled"}


def open_editor_texts(workspace: Workspace, texts: dict[Path, str]) -> list[Path]:
    """Show the engine the client's texts of workspace files that differ from the disk (unsaved
    edits); the paths opened. A path that is not a readable regular file is left alone (the
    path guard reports it as a reference)."""
    opened: list[Path] = []
    for raw, text in texts.items():
        path = raw.resolve()
        if path in workspace.buffers or workspace.folder_of(path) is None:
            continue
        try:
            on_disk = read_text_bounded(path)
        except OSError:
            continue
        if on_disk != text:
            workspace.open_buffer(path, text)
            opened.append(path)
    return opened


def turn_usage(usage: TokenUsage) -> dict[str, int]:
    """The turn's tokens as the prompt answer's `usage` (ACP's end-turn usage, unstable: an
    optional field, so every client gets it; those without it ignore it)."""
    return {
        "totalTokens": usage.input_tokens + usage.output_tokens,
        "inputTokens": usage.input_tokens,
        "outputTokens": usage.output_tokens,
    }


class PromptHandlers:
    def __init__(self, server: AcpServer) -> None:
        self.server = server

    async def prompt(self, params: PromptParams) -> dict[str, Any]:
        session = self.server.session(params.session_id)
        await self.server.trust.settle(session)  # a root's first use asks (trust.py)
        turns = self.server.turns
        turns.refuse_second(PROMPT, session.id)
        engine = session.engine
        given = prompt_input(params.prompt, engine.workspace.relative)
        for note in given.omitted:
            logger.info("prompt content left out: %s", note)
        opened = open_editor_texts(engine.workspace, given.editor_texts)
        ask = TurnAsk(given.message, mode=session.mode, references=given.references)
        try:
            result = await turns.finish(session.id, turns.start(PROMPT, engine, session.id, ask))
        finally:
            for path in opened:
                engine.workspace.close_buffer(path)
            self.server.listener.turn_finished(session.id)
            self._after_turn(session)
        return {"stopReason": "cancelled"} if result is None else self._answer(result)

    def _after_turn(self, session: AcpSession) -> None:
        stats = self.server.listener.last_stats.get(session.id)
        if stats is not None:
            self.server.send(session.id, usage_update(stats, self.server.listener.cost(session.id)))
        meta = session.engine.session_meta(session.id)
        if meta.title and meta.title != session.title:
            session.title = meta.title
            update = {
                "sessionUpdate": "session_info_update",
                "title": meta.title,
                "updatedAt": meta.updated_at.isoformat(),
            }
            self.server.send(session.id, update)

    def _answer(self, result: TurnResult) -> dict[str, Any]:
        if result.finish_reason == "error":
            raise RpcError(
                INTERNAL_ERROR,
                f"{PROMPT}: {result.error or 'the turn failed'}",
                {"sessionId": result.session_id, "turnId": result.turn_id},
            )
        usage = result.usage
        return {
            "stopReason": STOP_REASONS[result.finish_reason],
            "usage": turn_usage(usage),
            "_meta": {
                "cairn": {
                    "turnId": result.turn_id,
                    "inputTokens": usage.input_tokens,
                    "outputTokens": usage.output_tokens,
                }
            },
        }

    async def cancel(self, params: SessionParams) -> None:
        if params.session_id in self.server.sessions and self.server.turns.cancel(
            params.session_id
        ):
            logger.info("cancelling the prompt of session %s", params.session_id)


def requests(server: AcpServer) -> dict[str, Handler]:
    handlers = PromptHandlers(server)
    return {PROMPT: bind(PROMPT, PromptParams, handlers.prompt)}


def notifications(server: AcpServer) -> dict[str, Handler]:
    handlers = PromptHandlers(server)
    return {"session/cancel": bind("session/cancel", SessionParams, handlers.cancel)}
