"""Engine records → `session/update` payloads: chunks, tool calls, usage, compaction, modes.

Pure: the same functions render a live turn (from the engine's events) and a
replayed one (`session/load`, from the recorded messages), so both look the
same in the editor. Every path sent is absolute (ACP's rule); `Locate` turns
a workspace-relative path from a tool's arguments into one, or None when it
does not resolve inside the workspace.

- tool calls: `tool_call` when a call starts (the tool's `name` only for
  clients of the current schema; `TOOL_KINDS` gives its kind:
  read / edit / search / execute / think, `other` for tools Cairn does not
  know, such as MCP tools), `tool_call_update` when it ends: `completed` or
  `failed`, the output as text (fenced where it is file or command text),
  each edit as `diff` content with the whole text before and after (no
  `oldText` for a new file; in a replay, where only the recorded patch is
  at hand, one `diff` per hunk), a `terminal` content when the command ran
  in the client's terminal, and `locations` (the file, at the first changed
  or requested line) for the editor to follow the agent.
- `usage_update`: tokens in the context the next call gets (`used`), the
  model's window (`size`) and the session's cumulative cost in USD when the
  provider reports one.
- compaction: the ID-addressed `compaction_update` for clients that
  advertise `session.compaction`, else one agent message per stage.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

from unidiff.errors import UnidiffParseError
from unidiff.patch import PatchSet

from cairn.agent.api import FileEdit
from cairn.frontends.sentences import compaction_sentence
from cairn.models.events import CompactionEvent
from cairn.models.manifest import ContextStats
from cairn.models.messages import ToolCallPart, ToolResultPart

ToolKind = Literal[
    "read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"
]
ChunkKind = Literal["user_message_chunk", "agent_message_chunk", "agent_thought_chunk"]
Locate = Callable[[str], Path | None]

TOOL_KINDS: dict[str, ToolKind] = {
    "read_file": "read",
    "list_dir": "read",
    "diagnostics": "read",
    "glob": "search",
    "grep": "search",
    "find_code": "search",
    "edit_file": "edit",
    "run_command": "execute",
    "goal": "think",
    "explore": "think",
}
# Kinds whose output is file, diff or command text, shown in a code fence.
FENCED_KINDS: frozenset[ToolKind] = frozenset({"read", "search", "execute", "edit"})
# Characters of an argument shown in a tool call's title.
TITLE_ARG_CHARS = 80
COST_CURRENCY = "USD"
EDIT_TOOL = "edit_file"


def tool_kind(name: str) -> ToolKind:
    return TOOL_KINDS.get(name, "other")


def _short(value: object, limit: int = TITLE_ARG_CHARS) -> str:
    text = " ".join(str(value).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _line_range(arguments: dict[str, Any]) -> str:
    start, end = arguments.get("start_line"), arguments.get("end_line")
    if start and end:
        return f" (lines {start}-{end})"
    if start:
        return f" (from line {start})"
    return ""


def _goal_title(arguments: dict[str, Any]) -> str:
    for verb, label in (("add", "Add goals"), ("done", "Goal done"), ("abandon", "Abandon goal")):
        if arguments.get(verb):
            return f"{label}: {_short(arguments[verb])}"
    if arguments.get("focus"):
        return f"Focus goal {_short(arguments['focus'])}"
    return "Goal"


def tool_title(name: str, arguments: dict[str, Any]) -> str:
    """What a call does, in a few words (the editor's heading for it)."""
    path = arguments.get("path")
    if name == "read_file" and path:
        return f"Read {_short(path)}{_line_range(arguments)}"
    if name == "list_dir":
        return f"List {_short(path or '.')}"
    if name == "glob":
        return f"Find files {_short(arguments.get('pattern', ''))}"
    if name == "grep":
        where = f" in {_short(path)}" if path else ""
        files = f" ({_short(arguments['glob'])})" if arguments.get("glob") else ""
        return f"Search {_short(arguments.get('pattern', ''))!r}{where}{files}"
    if name == "edit_file" and path:
        return f"{'Edit' if arguments.get('old') is not None else 'Write'} {_short(path)}"
    if name == "run_command":
        return f"Run `{_short(arguments.get('command', ''))}`"
    if name == "diagnostics":
        return f"Diagnostics of {_short(path)}" if path else "Diagnostics"
    if name == "goal":
        return _goal_title(arguments)
    if name == "explore":
        count = len(arguments.get("branches") or [])
        return f"Explore {count} approach{'es' if count != 1 else ''}"
    return name


def first_changed_line(before: str | None, after: str) -> int:
    """The 1-based line where `after` first differs from `before` (1 for a new file)."""
    old, new = (before or "").splitlines(), after.splitlines()
    for number, (a, b) in enumerate(zip(old, new, strict=False), start=1):
        if a != b:
            return number
    return min(len(old), len(new)) + 1 if before else 1


def tool_locations(
    call: ToolCallPart, locate: Locate, edits: Sequence[FileEdit] = ()
) -> list[dict[str, Any]]:
    """The files a call touches, at the line it starts at (edits: the first changed line)."""
    if edits:
        return [
            {"path": str(edit.path), "line": first_changed_line(edit.before, edit.after)}
            for edit in edits
        ]
    path = call.arguments.get("path")
    if not isinstance(path, str) or (resolved := locate(path)) is None:
        return []
    location: dict[str, Any] = {"path": str(resolved)}
    start = call.arguments.get("start_line")
    if isinstance(start, int):
        location["line"] = start
    return [location]


def fenced(text: str) -> str:
    """`text` in a Markdown code fence longer than any backtick run inside it."""
    fence = "`" * max(3, _longest_backticks(text) + 1)
    return f"{fence}\n{text}\n{fence}"


def _longest_backticks(text: str) -> int:
    best = run = 0
    for char in text:
        run = run + 1 if char == "`" else 0
        best = max(best, run)
    return best


def text_content(text: str) -> dict[str, Any]:
    return {"type": "content", "content": {"type": "text", "text": text}}


def tool_call_started(call: ToolCallPart, locate: Locate, named: bool = False) -> dict[str, Any]:
    """The `tool_call` update announcing a call (it runs at once: `in_progress`); with the
    tool's `name` when `named` (a client of the current schema: `current_schema`)."""
    update: dict[str, Any] = {
        "sessionUpdate": "tool_call",
        "toolCallId": call.call_id,
        "title": tool_title(call.name, call.arguments),
        "kind": tool_kind(call.name),
        "status": "in_progress",
        "locations": tool_locations(call, locate),
        "rawInput": call.arguments,
    }
    if named:
        update["name"] = call.name
    return update


def patch_diffs(patch: str, path: Path) -> list[dict[str, Any]]:
    """`diff` contents from a unified diff of `path`: each hunk's old and new lines.

    For a recorded edit whose texts are not at hand (a replay); [] when the text
    holds no whole unified diff (a long one is shortened in the tool output).
    """
    start = patch.find("--- ")
    if start < 0:
        return []
    try:
        text = patch[start:] if patch.endswith("\n") else patch[start:] + "\n"
        files = PatchSet(text)
    except (UnidiffParseError, ValueError):
        return []
    diffs: list[dict[str, Any]] = []
    for patched in files:
        for hunk in patched:
            diff: dict[str, Any] = {
                "type": "diff",
                "path": str(path),
                "newText": "".join(line.value for line in hunk if not line.is_removed),
            }
            if not patched.is_added_file:
                diff["oldText"] = "".join(line.value for line in hunk if not line.is_added)
            diffs.append(diff)
    return diffs


def _edit_diffs(
    call: ToolCallPart, result: ToolResultPart, edits: Sequence[FileEdit], locate: Locate
) -> list[dict[str, Any]]:
    if not result.ok:
        return []
    diffs: list[dict[str, Any]] = []
    for edit in edits:
        diff: dict[str, Any] = {"type": "diff", "path": str(edit.path), "newText": edit.after}
        if edit.before is not None:
            diff["oldText"] = edit.before
        diffs.append(diff)
    path = call.arguments.get("path")
    if not diffs and call.name == EDIT_TOOL and isinstance(path, str):
        resolved = locate(path)
        diffs = patch_diffs(result.output, resolved) if resolved is not None else []
    return diffs


def _result_content(
    call: ToolCallPart,
    result: ToolResultPart,
    edits: Sequence[FileEdit],
    terminal: str | None,
    locate: Locate,
) -> list[dict[str, Any]]:
    if terminal is not None:
        return [{"type": "terminal", "terminalId": terminal}]
    content = _edit_diffs(call, result, edits, locate)
    if content:
        return content
    shown = result.output
    if result.ok and tool_kind(call.name) in FENCED_KINDS:
        shown = fenced(shown)
    return [text_content(shown)]


def tool_call_finished(
    call: ToolCallPart,
    result: ToolResultPart,
    locate: Locate,
    edits: Sequence[FileEdit] = (),
    terminal: str | None = None,
) -> dict[str, Any]:
    """The `tool_call_update` that ends a call: status, content, locations and raw output."""
    raw: dict[str, Any] = {"ok": result.ok, **(result.data or {})}
    if result.artifact_id is not None:
        raw["artifactId"] = result.artifact_id
    return {
        "sessionUpdate": "tool_call_update",
        "toolCallId": call.call_id,
        "status": "completed" if result.ok else "failed",
        "content": _result_content(call, result, edits, terminal, locate),
        "locations": tool_locations(call, locate, edits if result.ok else ()),
        "rawOutput": json.loads(json.dumps(raw, default=str)),
    }


def tool_call_cancelled(call_id: str) -> dict[str, Any]:
    """Ends a call the turn's cancellation interrupted."""
    return {
        "sessionUpdate": "tool_call_update",
        "toolCallId": call_id,
        "status": "failed",
        "content": [text_content("cancelled by the user")],
    }


def chunk(kind: ChunkKind, text: str, message_id: str | None = None) -> dict[str, Any]:
    """A message chunk: the user's, the agent's text or its reasoning."""
    update: dict[str, Any] = {"sessionUpdate": kind, "content": {"type": "text", "text": text}}
    if message_id is not None:
        update["messageId"] = message_id
    return update


def usage_update(stats: ContextStats, cost: float | None) -> dict[str, Any]:
    """The context's size against the window, and the session's cost so far."""
    update: dict[str, Any] = {
        "sessionUpdate": "usage_update",
        "used": stats.used_input,
        "size": stats.context_window,
    }
    if cost is not None:
        update["cost"] = {"amount": cost, "currency": COST_CURRENCY}
    return update


def _compaction_meta(event: CompactionEvent) -> dict[str, Any]:
    meta: dict[str, Any] = {"kind": event.kind, "tokensBefore": event.tokens_before}
    if event.tokens_after is not None:
        meta["tokensAfter"] = event.tokens_after
    return {"cairn": meta}


def compaction_update(compaction_id: str, event: CompactionEvent) -> dict[str, Any]:
    """The `compaction_update` of one compaction's stage (the same id for start and end)."""
    status = {"start": "in_progress", "done": "completed", "failed": "failed"}[event.stage]
    update: dict[str, Any] = {
        "sessionUpdate": "compaction_update",
        "compactionId": compaction_id,
        "status": status,
        "_meta": _compaction_meta(event),
    }
    if event.stage == "failed":
        update["error"] = event.error or "compaction failed"
    return update


def compaction_message(event: CompactionEvent) -> str:
    """The agent message standing in for `compaction_update` with clients that lack it."""
    return f"\n\n_{compaction_sentence(event)}_\n\n"
