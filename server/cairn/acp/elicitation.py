"""An MCP server's question to the user, asked through the ACP client (`elicitation/create`).

Only for a client that declares `elicitation` (`form`, `url` or both: the
engine gets no elicitor otherwise, so MCP servers are not told Cairn can
ask). A form goes as `mode: "form"` with the server's requested schema, a
URL as `mode: "url"` with its `elicitationId`; both name the server in the
message, since the question is the server's, not Cairn's, and carry the
`toolCallId` of the model's call the server was serving (the client can show
the question on that call). The question goes
to the session whose call the server was serving (else the one prompt
running; with none or several, nobody is asked: an error for the server). A
mode the client did not declare is an error the server reads. The client's
answer is read as accept (with its content, checked against the form by
the MCP side), decline, or cancel; an error answer or an unknown action is a
cancel (nothing is sent for the user that they did not give).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from cairn.frontends.faults import RpcError
from cairn.mcp.elicitation import (
    CANCELLED,
    DECLINED,
    ElicitationAnswer,
    ElicitationError,
    ElicitationRequest,
)

if TYPE_CHECKING:
    from cairn.acp.server import AcpServer

logger = logging.getLogger(__name__)

ELICITATION_CREATE = "elicitation/create"


def asked_message(request: ElicitationRequest) -> str:
    """The message the user reads: the server's, under its name."""
    return f"The MCP server {request.server} asks: {request.message}".rstrip()


def elicitation_params(request: ElicitationRequest, session_id: str) -> dict[str, Any]:
    """The `elicitation/create` params of `request`, in `session_id`."""
    params: dict[str, Any] = {
        "sessionId": session_id,
        "message": asked_message(request),
        "mode": request.mode,
    }
    if request.tool_call_id and session_id == request.session_id:
        params["toolCallId"] = request.tool_call_id
    if request.url is not None:
        params["url"] = request.url
        params["elicitationId"] = request.elicitation_id or ""
    else:
        params["requestedSchema"] = request.schema or {"type": "object", "properties": {}}
    return params


def answer_of(response: Any) -> ElicitationAnswer:
    """The user's answer from the client's response (cancel when it cannot be read)."""
    action = response.get("action") if isinstance(response, dict) else None
    if action == "accept":
        content = response.get("content")
        return ElicitationAnswer("accept", content if isinstance(content, dict) else {})
    if action == "decline":
        return DECLINED
    if action != "cancel":
        logger.warning("elicitation answer not understood (%r): cancelled", response)
    return CANCELLED


class ClientElicitor:
    """The engine's `Elicitor` for one ACP connection (see the module docstring)."""

    def __init__(self, server: AcpServer) -> None:
        self._server = server

    def _session(self, request: ElicitationRequest) -> str:
        server = self._server
        if request.session_id is not None and request.session_id in server.sessions:
            return request.session_id
        running = [sid for sid in server.sessions if server.turns.running(sid)]
        if len(running) != 1:
            raise ElicitationError(
                f"the MCP server {request.server} asked outside a call, and no one session "
                "is running a prompt to ask in"
            )
        return running[0]

    async def __call__(self, request: ElicitationRequest) -> ElicitationAnswer:
        declared = self._server.client.elicitation
        if declared is None or getattr(declared, request.mode) is None:
            raise ElicitationError(f"the client does not show {request.mode} questions")
        conn = self._server.conn
        if conn is None:
            raise ElicitationError("no client is connected")
        params = elicitation_params(request, self._session(request))
        try:
            response = await conn.request(ELICITATION_CREATE, params)
        except RpcError as error:
            logger.warning("elicitation failed (%s): cancelled", error.message)
            return CANCELLED
        return answer_of(response)
