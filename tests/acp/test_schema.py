"""Every payload shape `cairn acp` sends, checked against the official ACP v1 JSON schema.

The schemas are the ones `@agentclientprotocol/sdk` 2.4.0 ships (`schema.json`
for the stable protocol, `schema.unstable.json` for `plan_update` and
`session/fork`), so this test fails when a mapping drifts from the protocol
even where the end-to-end test's client happens not to look.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from cairn.acp.capabilities import initialize_result
from cairn.acp.client import permission_options
from cairn.acp.notices import mcp_notice, notice
from cairn.acp.plan import modes_state, plan_update
from cairn.acp.prompt import turn_usage
from cairn.acp.replay import replay_updates
from cairn.acp.trust import trust_options
from cairn.acp.updates import (
    chunk,
    compaction_update,
    tool_call_cancelled,
    tool_call_finished,
    tool_call_started,
    usage_update,
)
from cairn.agent.api import FileEdit
from cairn.mcp.state import ServerStatus
from cairn.models.events import CompactionEvent, TokenUsage
from cairn.models.goals import Goal, GoalTree
from cairn.models.manifest import ContextStats
from cairn.models.messages import (
    CompactionPart,
    FilePart,
    Message,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)


def validator(schemas: Path, definition: str, unstable: bool = False) -> Draft202012Validator:
    name = "schema.unstable.json" if unstable else "schema.json"
    schema = json.loads((schemas / name).read_text(encoding="utf-8"))
    root = {"$schema": schema["$schema"], "$ref": f"#/$defs/{definition}", "$defs": schema["$defs"]}
    return Draft202012Validator(root)


def check(schemas: Path, definition: str, value: Any, unstable: bool = False) -> None:
    errors = [e.message for e in validator(schemas, definition, unstable).iter_errors(value)]
    assert errors == [], f"{definition}: {errors}"


def locate(ref: str) -> Path | None:
    return Path("/ws") / ref


def tree() -> GoalTree:
    return GoalTree(
        mission="m",
        current_id="1",
        goals=[
            Goal(id="1", description="a", status="in_progress"),
            Goal(id="2", description="b", status="abandoned", summary="no"),
        ],
    )


def sent_updates() -> list[dict[str, Any]]:
    read = ToolCallPart(call_id="c1", name="read_file", arguments={"path": "a.py", "start_line": 2})
    edit = ToolCallPart(call_id="c2", name="edit_file", arguments={"path": "a.py", "new": "x"})
    done = ToolResultPart(call_id="c1", name="read_file", output="1\tx", data={"hash": "h"})
    failed = ToolResultPart(call_id="c2", name="edit_file", output="error: no", ok=False)
    stats = ContextStats(
        session_id="s",
        context_window=100,
        max_output_tokens=1,
        tool_schema_tokens=0,
        safety_margin=0,
        available_input=99,
        used_input=5,
    )
    start = CompactionEvent(session_id="s", stage="start", kind="summary", tokens_before=9)
    history = [
        Message(id="u", role="user", parts=[TextPart(text="hi"), FilePart(path="/", hash="h")]),
        Message(id="a", role="assistant", parts=[TextPart(text="ok"), read]),
        Message(id="t", role="tool", parts=[done]),
        Message(id="c", role="system", parts=[CompactionPart(kind="summary")]),
    ]
    return [
        tool_call_started(read, locate),
        tool_call_finished(read, done, locate),
        tool_call_finished(edit, failed, locate),
        tool_call_finished(
            edit,
            ToolResultPart(call_id="c2", name="edit_file", output="edited"),
            locate,
            [FileEdit(Path("/ws/a.py"), "old\n", "x"), FileEdit(Path("/ws/n.py"), None, "n\n")],
        ),
        tool_call_finished(read, done, locate, terminal="t1"),
        tool_call_cancelled("c1"),
        plan_update(tree(), markdown=False),
        usage_update(stats, None),
        usage_update(stats, 0.5),
        compaction_update("k", start),
        compaction_update("k", start.model_copy(update={"stage": "failed", "error": "e"})),
        chunk("agent_message_chunk", "t", "m1"),
        chunk("agent_thought_chunk", "t"),
        {"sessionUpdate": "session_info_update", "title": "t", "updatedAt": "2026-01-01T00:00:00Z"},
        {"sessionUpdate": "tool_call_update", "toolCallId": "c1", "status": "in_progress"},
        *replay_updates(history, locate, compaction_updates=True),
    ]


@pytest.mark.parametrize("index", range(len(sent_updates())))
def test_session_updates_are_valid_session_notifications(sdk_schemas: Path, index: int) -> None:
    update = sent_updates()[index]
    check(sdk_schemas, "SessionNotification", {"sessionId": "s", "update": update})


def test_markdown_plans_are_valid_unstable_plan_updates(sdk_schemas: Path) -> None:
    update = plan_update(tree(), markdown=True)
    check(sdk_schemas, "SessionNotification", {"sessionId": "s", "update": update}, unstable=True)


def test_answers_and_requests_match_the_schema(sdk_schemas: Path) -> None:
    check(sdk_schemas, "InitializeResponse", initialize_result(1))
    check(sdk_schemas, "NewSessionResponse", {"sessionId": "s", "modes": modes_state("build")})
    check(sdk_schemas, "LoadSessionResponse", {"modes": modes_state("review")})
    check(sdk_schemas, "PromptResponse", {"stopReason": "max_turn_requests", "_meta": {}})
    check(
        sdk_schemas,
        "RequestPermissionRequest",
        {
            "sessionId": "s",
            "toolCall": {
                "toolCallId": "c",
                "title": "Run `x`",
                "kind": "execute",
                "status": "pending",
            },
            "options": permission_options("x"),
        },
    )
    check(
        sdk_schemas,
        "ListSessionsResponse",
        {"sessions": [{"sessionId": "s", "cwd": "/ws", "title": None, "updatedAt": "2026-01-01"}]},
    )
    check(
        sdk_schemas, "ForkSessionResponse", {"sessionId": "s", "modes": modes_state("plan")}, True
    )


def test_the_check_rejects_what_the_protocol_does_not_allow(sdk_schemas: Path) -> None:
    wrong = {**tool_call_cancelled("c1"), "status": "cancelled"}  # not a ToolCallStatus
    notification = {"sessionId": "s", "update": wrong}
    assert list(validator(sdk_schemas, "SessionNotification").iter_errors(notification))
    markdown = {"sessionId": "s", "update": plan_update(tree(), markdown=True)}
    assert list(validator(sdk_schemas, "SessionNotification").iter_errors(markdown))


def test_notices_the_trust_question_and_the_turns_usage_match_the_schema(
    sdk_schemas: Path,
) -> None:
    failed = ServerStatus(
        name="fx",
        transport="stdio",
        target="fx",
        origin="settings",
        state="restarting",
        reason="exited with status 7",
        tools=(),
        exit="exited with status 7",
        stderr=("boom",),
        restarts=1,
    )
    crash = mcp_notice(failed)
    assert crash is not None and crash["severity"] == "warning"
    for update in (crash, notice("warning", "cairn.toml's mcp is ignored")):
        check(sdk_schemas, "SessionNotification", {"sessionId": "s", "update": update})
    question = {"toolCallId": "cairn-trust-1", "title": "Trust /ws?", "kind": "other"}
    request = {"sessionId": "s", "toolCall": question, "options": trust_options(Path("/ws"))}
    check(sdk_schemas, "RequestPermissionRequest", request)
    answer = {"stopReason": "end_turn", "usage": turn_usage(TokenUsage(input_tokens=5))}
    check(sdk_schemas, "PromptResponse", answer, unstable=True)
