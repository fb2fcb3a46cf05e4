"""ACP prompt content → the turn's message, references and editor texts; history replay."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter

from cairn.acp.content import ATTACHMENT_MAX_CHARS, file_mention, prompt_input
from cairn.acp.replay import replay_updates
from cairn.acp.schema import ContentBlock
from cairn.models.messages import (
    CompactionPart,
    FilePart,
    Message,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)

BLOCKS = TypeAdapter(list[ContentBlock])
ROOT = Path("/ws")


def show(path: Path) -> str:
    return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)


def given(*blocks: dict[str, Any]) -> Any:
    return prompt_input(BLOCKS.validate_python(list(blocks)), show)


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def link(uri: str, name: str = "") -> dict[str, Any]:
    return {"type": "resource_link", "uri": uri, "name": name}


def embedded(uri: str, body: str) -> dict[str, Any]:
    return {"type": "resource", "resource": {"uri": uri, "text": body}}


@pytest.mark.parametrize(
    ("uri", "path", "lines"),
    [
        ("file:///ws/src/a%20b.py", "/ws/src/a b.py", None),
        ("file:///ws/a.py#L10:25", "/ws/a.py", (10, 25)),
        ("file:///ws/a.py#L7", "/ws/a.py", (7, 7)),
        ("/ws/a.py", "/ws/a.py", None),
        ("zed:///agent/file?path=%2Fws%2Fa.py", "/ws/a.py", None),
        ("zed:///agent/selection?path=%2Fws%2Fa.py#L3:4", "/ws/a.py", (3, 4)),
        ("zed:///agent/symbol/parse?path=%2Fws%2Fa.py#L3:9", "/ws/a.py", (3, 9)),
        ("zed:///agent/directory?path=%2Fws%2Fsrc", "/ws/src", None),
    ],
)
def test_file_uris_name_their_file_and_lines(
    uri: str, path: str, lines: tuple[int, int] | None
) -> None:
    mention = file_mention(uri)
    assert mention is not None and mention.path == Path(path) and mention.lines == lines


@pytest.mark.parametrize(
    "uri", ["https://example.com/a.py", "zed:///agent/thread/123?name=x", "zed:///agent/file"]
)
def test_other_uris_name_no_file(uri: str) -> None:
    assert file_mention(uri) is None


def test_links_become_references_and_mentions_in_place() -> None:
    prompt = given(text("Fix"), link("file:///ws/src/a.py", "a.py"), text("and"), link("/ws/b.py"))
    assert prompt.message == "Fix @src/a.py and @b.py"
    assert prompt.references == ["/ws/src/a.py", "/ws/b.py"]
    assert prompt.editor_texts == {}


def test_a_selection_names_its_lines_and_references_the_whole_file() -> None:
    prompt = given(text("Why does this fail?"), embedded("file:///ws/a.py#L10:12", "x = 1\n"))
    assert prompt.message == "Why does this fail? @a.py (lines 10-12)"
    assert prompt.references == ["/ws/a.py"]
    assert prompt.editor_texts == {}


def test_an_embedded_whole_file_carries_the_editors_text() -> None:
    prompt = given(embedded("file:///ws/a.py", "unsaved\n"), text(" is open"))
    assert prompt.message == "@a.py is open"
    assert prompt.editor_texts == {Path("/ws/a.py"): "unsaved\n"}


def test_a_file_outside_the_workspace_is_still_a_reference_for_the_guard_to_refuse() -> None:
    prompt = given(link("file:///etc/passwd"))
    assert prompt.references == ["/etc/passwd"] and prompt.message == "@/etc/passwd"


def test_non_file_resources_are_attached_and_links_kept() -> None:
    prompt = given(
        text("Compare with"),
        embedded("zed:///agent/thread/7?name=Old", "earlier talk"),
        link("https://example.com/spec", "the spec"),
    )
    assert prompt.message == (
        "Compare with [the spec](https://example.com/spec)\n\n"
        "Attached zed:///agent/thread/7?name=Old:\n```\nearlier talk\n```"
    )
    assert prompt.references == []


def test_what_cairn_cannot_read_is_left_out_with_a_note() -> None:
    prompt = given(
        text("See"),
        {"type": "image", "data": "aGk=", "mimeType": "image/png"},
        embedded("zed:///agent/rule/1", "r" * (ATTACHMENT_MAX_CHARS + 1)),
        {"type": "resource", "resource": {"uri": "file:///ws/logo.png", "blob": "aGk="}},
    )
    assert "[image image/png left out: Cairn reads text only]" in prompt.message
    assert "attachment zed:///agent/rule/1 left out" in prompt.message
    assert "r" * 100 not in prompt.message
    assert prompt.references == ["/ws/logo.png"]
    assert len(prompt.omitted) == 3


# -- replay ------------------------------------------------------------------------


_IDS = itertools.count(1)


def message(role: str, *parts: Any, **extra: Any) -> Message:
    fields = {"id": f"m{next(_IDS)}", "role": role, "parts": list(parts), **extra}
    return Message.model_validate(fields)


def locate(ref: str) -> Path | None:
    return Path("/") / ref  # inside `tmp_path` in the test below: paths are absolute already


def test_replay_is_the_conversation_with_each_call_announced_with_its_result(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    rel = str(tmp_path / "a.py").lstrip("/")
    read = ToolCallPart(call_id="c1", name="read_file", arguments={"path": rel})
    grep = ToolCallPart(call_id="c2", name="grep", arguments={"pattern": "x"})
    cut = ToolCallPart(call_id="c3", name="run_command", arguments={"command": "sleep 9"})
    history = [
        message("user", TextPart(text="look"), FilePart(path=rel, hash="h")),
        message("assistant", ReasoningPart(text="hm"), TextPart(text="ok"), read, grep),
        message("tool", ToolResultPart(call_id="c1", name="read_file", output="1\tx = 1")),
        message("tool", ToolResultPart(call_id="c2", name="grep", output="", ok=False)),
        message("system", CompactionPart(kind="summary", tokens_before=9, tokens_after=3)),
        message("system", CompactionPart(kind="goal", goal_id="1")),
        message("assistant", TextPart(text="branch words"), agent="0"),
        message("assistant", cut),
        message("user", TextPart(text="stop that")),
    ]
    updates = replay_updates(history, locate, compaction_updates=False)
    shape = [(u["sessionUpdate"], u.get("toolCallId"), u.get("status")) for u in updates]
    assert shape == [
        ("user_message_chunk", None, None),
        ("user_message_chunk", None, None),
        ("agent_thought_chunk", None, None),
        ("agent_message_chunk", None, None),
        ("tool_call", "c1", "in_progress"),
        ("tool_call_update", "c1", "completed"),
        ("tool_call", "c2", "in_progress"),
        ("tool_call_update", "c2", "failed"),
        ("tool_call", "c3", "in_progress"),
        ("tool_call_update", "c3", "failed"),
        ("user_message_chunk", None, None),
    ]
    assert updates[1]["content"]["type"] == "resource_link"
    assert updates[0]["messageId"] == history[0].id
    with_compaction = replay_updates(history, locate, compaction_updates=True)
    [compaction] = [u for u in with_compaction if u["sessionUpdate"] == "compaction_update"]
    assert compaction["status"] == "completed" and compaction["_meta"]["cairn"]["kind"] == "summary"
