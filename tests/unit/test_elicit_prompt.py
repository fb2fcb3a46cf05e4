"""An MCP server's question at the terminal (`cairn run`): shown safely, asked field by field,
re-asked when an answer does not fit, cancelled after too many tries."""

from __future__ import annotations

from cairn.commands.elicit_prompt import TRIES, field_prompt, question, terminal_elicitor
from cairn.mcp.elicitation import ElicitationAnswer, ElicitationRequest, elicitation_request

SCHEMA = {
    "properties": {
        "name": {"type": "string", "title": "Name", "description": "who\x1b[2J"},
        "count": {"type": "integer", "minimum": 1, "maximum": 5, "default": 2},
        "size": {"type": "string", "enum": ["s", "l"], "enumNames": ["Small", "Large"]},
        "note": {"type": "string"},
    },
    "required": ["name"],
}


class Typist:
    """Types the given lines, one per prompt, and keeps the prompts it saw."""

    def __init__(self, *lines: str) -> None:
        self.lines = list(lines)
        self.prompts: list[str] = []

    async def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        return self.lines.pop(0)


def form(message: str = "Order?") -> ElicitationRequest:
    return elicitation_request("shop\r", "s", {"message": message, "requestedSchema": SCHEMA})


async def test_a_form_is_answered_field_by_field_with_defaults_and_retries() -> None:
    typist = Typist("y", "", "Ada", "9", "", "Large", "")
    answer = await terminal_elicitor(typist)(form())
    assert answer == ElicitationAnswer("accept", {"name": "Ada", "count": 2, "size": "l"})
    first = typist.prompts[0]
    assert first.startswith("The MCP server shop\\r asks: Order?")
    assert "[y] answer / [n]o, decline / [C]ancel" in first
    assert "Name is required" in typist.prompts[2]
    assert "above the maximum 5" in typist.prompts[4]


async def test_escape_sequences_from_the_server_are_shown_as_text() -> None:
    request = form("Run `x`\x1b]52;c;Zm9v\x07")
    assert "\x1b" not in question(request)
    assert "\\x1b]52;c;Zm9v\\x07" in question(request)
    name = request.fields[0]
    assert "\x1b" not in field_prompt(name) and "(required)" in field_prompt(name)
    assert "1) Small 2) Large" in field_prompt(request.fields[2])
    assert "a whole number, 1 to 5" in field_prompt(request.fields[1])
    gift = elicitation_request(
        "s",
        None,
        {
            "message": "",
            "requestedSchema": {"properties": {"g": {"type": "boolean", "default": False}}},
        },
    ).fields[0]
    assert field_prompt(gift) == "  g (yes/no) [default: no]: "


async def test_decline_cancel_and_too_many_wrong_answers() -> None:
    assert (await terminal_elicitor(Typist("n"))(form())).action == "decline"
    assert (await terminal_elicitor(Typist(""))(form())).action == "cancel"
    wrong = Typist("yes", *([""] * TRIES))
    assert (await terminal_elicitor(wrong)(form())).action == "cancel"


async def test_a_url_is_shown_never_opened_and_only_the_action_returned() -> None:
    request = elicitation_request(
        "auth",
        None,
        {"mode": "url", "message": "Sign in", "url": "https://e.x/a", "elicitationId": "1"},
    )
    typist = Typist("y")
    assert await terminal_elicitor(typist)(request) == ElicitationAnswer("accept")
    assert "open https://e.x/a (Cairn does not open it)" in typist.prompts[0]
