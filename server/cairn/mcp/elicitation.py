"""An MCP server asking the user for input (MCP elicitation), routed to the front end's asker.

A server may send `elicitation/create` while it works on a call: a form of
flat fields (`cairn.mcp.forms`) or a URL to open. Cairn declares the
capability only when its front end can reach the user (`Elicitor`: a
terminal in `cairn run`, the ACP client that declares `elicitation`);
without one the SDK refuses the request, as the spec has it. The question
is the server's, so it is untrusted: it is shown with the server's name,
and nothing is sent back without the user's answer — no default is
accepted for them. `ElicitationRoute` belongs to one server's connection:
it knows which session's call is running there (the question goes to that
session; with none, to the session the server belongs to, if any) and
turns the SDK's request into an `ElicitationRequest` and the front end's
`ElicitationAnswer` into the SDK's result. A form Cairn cannot show, a URL
the front end cannot show, and an answer that does not fit the form are
errors naming the problem, sent to the server.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from cairn.mcp.forms import FormError, FormField, Value, checked_content, form_fields

if TYPE_CHECKING:
    import mcp_types
    from mcp.client.session import ClientRequestContext, ElicitationFnT

logger = logging.getLogger(__name__)

Action = Literal["accept", "decline", "cancel"]


@dataclass(frozen=True)
class Caller:
    """Who a call on a server is for: a session (None: no session), and the model's tool
    call in it (None: not a tool call, e.g. a resource read)."""

    session_id: str | None = None
    call_id: str | None = None


NO_CALLER = Caller()


@dataclass(frozen=True)
class ElicitationRequest:
    """What a server asks: its `message`, and the form's `fields` or (`url` set) a URL to open.
    `session_id`: the session whose call it came during (None: not during a call);
    `tool_call_id`: that call's id in the session, when it was the model's tool call."""

    server: str
    session_id: str | None
    message: str
    fields: tuple[FormField, ...] = ()
    url: str | None = None
    elicitation_id: str | None = None
    # The requested schema as the server sent it (a client that renders forms gets it).
    schema: dict[str, Any] | None = None
    tool_call_id: str | None = None

    @property
    def mode(self) -> Literal["form", "url"]:
        return "url" if self.url is not None else "form"


@dataclass(frozen=True)
class ElicitationAnswer:
    """The user's answer: accept (with the form's values), decline, or cancel (dismissed)."""

    action: Action
    content: dict[str, Value] | None = None


DECLINED = ElicitationAnswer("decline")
CANCELLED = ElicitationAnswer("cancel")

# A front end's way to ask the user (see the module docstring).
Elicitor = Callable[[ElicitationRequest], Awaitable[ElicitationAnswer]]


class ElicitationError(Exception):
    """A question the front end cannot show (the message says why); sent to the server."""


def elicitation_request(
    server: str, session_id: str | None, params: dict[str, Any], tool_call_id: str | None = None
) -> ElicitationRequest:
    """The request from `elicitation/create` params (the wire's shape); `FormError` for a form
    that cannot be shown."""
    message = str(params.get("message") or "")
    if params.get("mode") == "url":
        url = params.get("url")
        if not isinstance(url, str) or not url:
            raise FormError("the URL request has no URL")
        elicitation_id = str(params.get("elicitationId") or "")
        return ElicitationRequest(
            server,
            session_id,
            message,
            url=url,
            elicitation_id=elicitation_id,
            tool_call_id=tool_call_id,
        )
    schema = params.get("requestedSchema")
    if not isinstance(schema, dict):
        raise FormError("the form has no requestedSchema")
    fields = form_fields(schema)
    return ElicitationRequest(
        server, session_id, message, fields, schema=schema, tool_call_id=tool_call_id
    )


def checked_answer(request: ElicitationRequest, answer: ElicitationAnswer) -> ElicitationAnswer:
    """`answer` with its content checked against the form (`FormError` when it does not fit);
    a declined or cancelled answer, and an accepted URL, carry no content."""
    if answer.action != "accept" or request.mode == "url":
        return ElicitationAnswer(answer.action)
    return ElicitationAnswer("accept", checked_content(request.fields, answer.content or {}))


class ElicitationRoute:
    """The questions of one server's connection (see the module docstring)."""

    def __init__(self, server: str, session_id: str | None, elicitor: Elicitor | None) -> None:
        self.server = server
        self.session_id = session_id
        self.elicitor = elicitor
        # The callers of the calls running on the server now, oldest first.
        self._calling: list[Caller] = []

    @contextlib.contextmanager
    def during(self, caller: Caller) -> Iterator[None]:
        """Mark a call for `caller` as running on the server."""
        self._calling.append(caller)
        try:
            yield
        finally:
            self._calling.remove(caller)

    def asking(self) -> Caller:
        """Who a question goes to: the latest call's caller with a session, else the server's
        own session."""
        for caller in reversed(self._calling):
            if caller.session_id is not None:
                return caller
        return Caller(self.session_id)

    @property
    def callback(self) -> ElicitationFnT | None:
        """The SDK's elicitation callback (None without an elicitor: not declared)."""
        return self._answer if self.elicitor is not None else None

    async def _answer(
        self, context: ClientRequestContext, params: mcp_types.ElicitRequestParams
    ) -> mcp_types.ElicitResult | mcp_types.ErrorData:
        import mcp_types

        assert self.elicitor is not None
        wire = params.model_dump(mode="json", by_alias=True, exclude_none=True)
        try:
            caller = self.asking()
            request = elicitation_request(self.server, caller.session_id, wire, caller.call_id)
            answer = checked_answer(request, await self.elicitor(request))
        except (FormError, ElicitationError) as exc:
            logger.warning("mcp %s: elicitation refused: %s", self.server, exc)
            return mcp_types.ErrorData(code=mcp_types.INVALID_PARAMS, message=str(exc))
        content: dict[str, Value | None] | None = None
        if answer.content is not None:
            content = dict(answer.content)
        return mcp_types.ElicitResult(action=answer.action, content=content)
