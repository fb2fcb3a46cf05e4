"""How a tool call reads in turn events: its first line, its arguments, its detail capped.

One definition for the live events the tool runner sends (`cairn.agent.turn.tooling`)
and the same events rebuilt from the trace (`cairn.agent.sessions.transcript`), so
a replayed transcript shows what the editor saw.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

# Tool arguments and outputs sent to the editor in turn events are cut to this length.
MAX_EVENT_DETAIL_CHARS = 16_000


def first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""


def arguments_text(arguments: Mapping[str, Any] | None, raw: str = "") -> str | None:
    """A toolStart event's text: the call's arguments as JSON (shortened when very long);
    the raw text the model sent when it is not a JSON object."""
    if arguments is None:
        return event_detail(raw) if raw else None
    return event_detail(json.dumps(arguments, ensure_ascii=False))


def event_detail(text: str) -> str:
    """`text`, or its head and a note when longer than `MAX_EVENT_DETAIL_CHARS`."""
    if len(text) <= MAX_EVENT_DETAIL_CHARS:
        return text
    dropped = len(text) - MAX_EVENT_DETAIL_CHARS
    return f"{text[:MAX_EVENT_DETAIL_CHARS]}\n[… {dropped} more characters in the trace]"
