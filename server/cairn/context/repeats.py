"""Tool results the history need not show twice (pure; `cairn.context.shown_messages` applies it).

Two repeats cost tokens on every later call of a session and tell the model
nothing new:
- a `goal` result is the change in one line, then the whole plan as it was
  then; the plan as it is now ends every call's context (the tail, as the
  harness rules say), so the history shows only that first line
  (`goal_history_text`);
- a read-only tool (`REREAD_TOOLS`) called again with the same arguments
  that returned exactly the same text as an earlier result still shown in
  the history: the later one is a stub naming that earlier call
  (`RepeatIndex`). The earlier copy stays as it was (the cached prefix is
  untouched); the stub is decided from the visible history alone, so once
  the earlier copy is folded, pruned or summarised away, the later result
  is shown whole again (those are cache breaks anyway).
The trace keeps every output whole; only what the model is shown changes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from cairn.context.excerpt import ARTIFACT_REF_PREFIX
from cairn.files.text import content_hash

GOAL_TOOL = "goal"
# Tools whose output depends only on the workspace and their arguments.
REREAD_TOOLS: frozenset[str] = frozenset({"read_file", "grep", "glob_files", "list_dir"})

RepeatKey = tuple[str, str, str]


def goal_history_text(output: str) -> str:
    """What the history shows of a successful `goal` result: its first line (the change)."""
    return output.partition("\n")[0]


def repeat_key(name: str, arguments: dict[str, Any], output: str) -> RepeatKey | None:
    """What makes two results the same answer to the same question (None: never a repeat)."""
    if name not in REREAD_TOOLS:
        return None
    return (name, json.dumps(arguments, sort_keys=True, default=str), content_hash(output))


def repeat_stub(name: str, earlier_call_id: str, artifact_id: str | None) -> str:
    """The later copy of a repeated result: where the same text already is."""
    again = (
        f'; read_file("{ARTIFACT_REF_PREFIX}{artifact_id}") shows it again' if artifact_id else ""
    )
    return (
        f"[unchanged: the same {name} output as call {earlier_call_id} above, "
        f"still shown earlier in this conversation{again}]"
    )


@dataclass
class RepeatIndex:
    """The first shown copy of each read-only result, in conversation order."""

    first: dict[RepeatKey, str] = field(default_factory=dict)

    def shown(self, name: str, arguments: dict[str, Any], output: str, call_id: str) -> str | None:
        """Record a result being shown; the call id of an earlier identical copy, if any."""
        key = repeat_key(name, arguments, output)
        if key is None:
            return None
        earlier = self.first.get(key)
        if earlier is None:
            self.first[key] = call_id
        return earlier
