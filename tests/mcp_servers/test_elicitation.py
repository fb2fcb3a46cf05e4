"""MCP servers asking the user (elicitation), with a registry server and the SDK fixture.

`@modelcontextprotocol/server-everything` offers its elicitation tools only to
a client that declares the capability: Cairn declares it only when its front
end can ask someone (an elicitor). Its form holds every field kind the spec
allows (text with formats, numbers with bounds, yes/no, single and multiple
choices, titled and legacy-titled), and its URL tool a URL. The fixture
server (Python SDK, MCP 2026-07-28) asks through an `InputRequiredResult`,
which the SDK's client answers on a retry through the same elicitor.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import mcp_types

from cairn.mcp import McpHub
from cairn.mcp.elicitation import DECLINED, ElicitationAnswer, ElicitationRequest, Elicitor
from cairn.settings import Settings, SettingsRef
from tests.fakes.mcp_fixture import fixture_server

FORM_TOOL = "trigger-elicitation-request"
URL_TOOL = "trigger-url-elicitation"


def asking_hub(root: Path, servers: dict[str, Any], elicitor: Elicitor | None) -> McpHub:
    settings = Settings.model_validate({"mcp": {"servers": servers}})
    return McpHub(SettingsRef(settings), root, elicitor=elicitor)


class Recorder:
    """An elicitor that records what it is asked and gives the answers it was told."""

    def __init__(self, *answers: ElicitationAnswer) -> None:
        self.answers = list(answers)
        self.asked: list[ElicitationRequest] = []

    async def __call__(self, request: ElicitationRequest) -> ElicitationAnswer:
        self.asked.append(request)
        return self.answers.pop(0)


def texts(result: mcp_types.CallToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, mcp_types.TextContent))


async def test_without_an_elicitor_the_capability_is_not_declared(
    tmp_path: Path, everything: dict[str, Any]
) -> None:
    hub = asking_hub(tmp_path, {"everything": everything}, None)
    try:
        [status] = (await hub.catalog()).servers
        assert status.state == "ready", status.reason
        names = {spec.tool for spec in status.tools}
        assert "echo" in names and FORM_TOOL not in names and URL_TOOL not in names
    finally:
        await hub.aclose()


async def test_a_registry_servers_form_reaches_the_user_and_their_answer_the_server(
    tmp_path: Path, everything: dict[str, Any]
) -> None:
    answer = {
        "name": "Ada Lovelace",
        "check": True,
        "integer": 7,
        "untitledMultipleSelectEnum": ["Piano", "Drums"],
        "titledSingleSelectEnum": "hero-3",
        "legacyTitledEnum": "pet-2",
        "unasked": "dropped",
    }
    asker = Recorder(ElicitationAnswer("accept", answer), DECLINED)
    hub = asking_hub(tmp_path, {"everything": everything}, asker)
    try:
        [status] = (await hub.catalog("s-1")).servers
        assert FORM_TOOL in {spec.tool for spec in status.tools}
        result = await hub.call_tool("s-1", "everything", FORM_TOOL, {})
        [request] = asker.asked
        assert request.server == "everything" and request.session_id == "s-1"
        assert request.mode == "form" and "Please provide inputs" in request.message
        fields = {f.name: f for f in request.fields}
        assert fields["name"].required and fields["name"].kind == "string"
        assert fields["email"].format == "email" and fields["check"].kind == "boolean"
        assert (fields["integer"].minimum, fields["integer"].maximum) == (1, 100)
        assert fields["integer"].default == 42
        multiple = fields["untitledMultipleSelectEnum"]
        assert multiple.kind == "choices" and (multiple.min_length, multiple.max_length) == (1, 3)
        assert fields["titledSingleSelectEnum"].options[2] == ("hero-3", "Wonder Woman")
        assert fields["legacyTitledEnum"].options[1] == ("pet-2", "Dogs")
        text = texts(result)
        assert "User provided the requested information" in text
        raw = json.loads(text.split("Raw result:", 1)[1])
        assert raw["action"] == "accept"
        assert raw["content"] == {k: v for k, v in answer.items() if k != "unasked"}
        declined = await hub.call_tool("s-1", "everything", FORM_TOOL, {})
        assert "User declined" in texts(declined)
    finally:
        await hub.aclose()


async def test_an_answer_that_does_not_fit_the_form_is_an_error_for_the_server(
    tmp_path: Path, everything: dict[str, Any]
) -> None:
    asker = Recorder(ElicitationAnswer("accept", {"name": "Ada", "integer": 1000}))
    hub = asking_hub(tmp_path, {"everything": everything}, asker)
    try:
        result = await hub.call_tool(None, "everything", FORM_TOOL, {})
        assert result.is_error
        assert "Integer: 1000 is above the maximum 100" in texts(result)
    finally:
        await hub.aclose()


async def test_a_url_question_shows_the_url_and_sends_only_the_action(
    tmp_path: Path, everything: dict[str, Any]
) -> None:
    asker = Recorder(ElicitationAnswer("accept", {"secret": "never sent"}))
    hub = asking_hub(tmp_path, {"everything": everything}, asker)
    url = "https://example.com/authorize?x=1"
    try:
        result = await hub.call_tool(None, "everything", URL_TOOL, {"url": url})
        [request] = asker.asked
        assert request.mode == "url" and request.url == url and request.elicitation_id
        assert not request.fields
        assert "accept" in texts(result) and "never sent" not in texts(result)
    finally:
        await hub.aclose()


async def test_a_2026_server_asks_through_input_required_results(tmp_path: Path) -> None:
    asker = Recorder(
        ElicitationAnswer("accept", {"name": "Ada", "size": "large", "count": 2}),
        ElicitationAnswer("cancel"),
    )
    hub = asking_hub(tmp_path, {"fixture": fixture_server("--ask")}, asker)
    try:
        [status] = (await hub.catalog("s-2")).servers
        assert status.protocol == "2026-07-28"
        ordered = await hub.call_tool("s-2", "fixture", "order", {})
        accepted = json.loads(texts(ordered).removeprefix("accept "))
        assert accepted == {"name": "Ada", "size": "large", "count": 2, "gift": False}
        form = asker.asked[0]
        assert [f.name for f in form.fields] == ["name", "size", "count", "gift"]
        assert form.fields[1].options == (("small", "small"), ("large", "large"))
        assert form.session_id == "s-2"
        assert texts(await hub.call_tool(None, "fixture", "order", {})) == "cancel"
        assert asker.asked[1].session_id is None
    finally:
        await hub.aclose()
