"""An MCP server's question as ACP `elicitation/create`: the params, the answer read back, and
what is refused (an undeclared mode, a question with no session to ask in)."""

from __future__ import annotations

from typing import Any

import pytest

from cairn.acp.elicitation import ClientElicitor, answer_of, elicitation_params
from cairn.acp.schema import ClientCapabilities
from cairn.acp.server import AcpServer
from cairn.mcp.elicitation import ElicitationAnswer, ElicitationError, elicitation_request

SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
FORM = elicitation_request(
    "srv", "s-1", {"message": "Who?", "requestedSchema": SCHEMA}, tool_call_id="call-9"
)
URL = elicitation_request(
    "srv", None, {"mode": "url", "message": "Sign in", "url": "https://e.x", "elicitationId": "7"}
)


def test_params_name_the_server_and_carry_the_form_or_the_url() -> None:
    assert elicitation_params(FORM, "s-1") == {
        "sessionId": "s-1",
        "message": "The MCP server srv asks: Who?",
        "mode": "form",
        "toolCallId": "call-9",
        "requestedSchema": SCHEMA,
    }
    # Asked in another session than the call's: the call's id means nothing there.
    assert "toolCallId" not in elicitation_params(FORM, "s-other")
    assert elicitation_params(URL, "s-2") == {
        "sessionId": "s-2",
        "message": "The MCP server srv asks: Sign in",
        "mode": "url",
        "url": "https://e.x",
        "elicitationId": "7",
    }


@pytest.mark.parametrize(
    ("response", "answer"),
    [
        (
            {"action": "accept", "content": {"name": "A"}},
            ElicitationAnswer("accept", {"name": "A"}),
        ),
        ({"action": "accept"}, ElicitationAnswer("accept", {})),
        ({"action": "decline"}, ElicitationAnswer("decline")),
        ({"action": "cancel"}, ElicitationAnswer("cancel")),
        ({"action": "_later"}, ElicitationAnswer("cancel")),
        (None, ElicitationAnswer("cancel")),
    ],
)
def test_the_clients_answer_is_read_and_anything_else_cancels(
    response: Any, answer: ElicitationAnswer
) -> None:
    assert answer_of(response) == answer


def server_with(capabilities: dict[str, Any]) -> AcpServer:
    server = AcpServer()
    server.client = ClientCapabilities.model_validate(capabilities)
    return server


def test_the_capability_declares_which_questions_the_client_shows() -> None:
    assert not server_with({}).client.elicits
    assert server_with({"elicitation": {"form": {}}}).client.elicits
    assert server_with({"elicitation": {"url": {}}}).client.elicits
    assert not server_with({"elicitation": {}}).client.elicits


async def test_an_undeclared_mode_and_a_question_with_nobody_to_ask_are_refused() -> None:
    form_only = ClientElicitor(server_with({"elicitation": {"form": {}}}))
    with pytest.raises(ElicitationError, match="does not show url questions"):
        await form_only(URL)
    with pytest.raises(ElicitationError, match="no client is connected"):
        await form_only(FORM)
    both = server_with({"elicitation": {"form": {}, "url": {}}})
    both.conn = object()  # type: ignore[assignment]  # never reached: no session to ask in
    with pytest.raises(ElicitationError, match="no one session is running a prompt"):
        await ClientElicitor(both)(URL)
