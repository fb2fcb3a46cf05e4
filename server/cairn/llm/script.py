"""The scripted model's JSONL format, and which line answers which call (docs/SCRIPTED.md).

One line per model call:
`{"text": "...", "toolCalls": [{"name": "goal", "arguments": {...}}]}`, every
key optional. `arguments` may be a string: it is passed through verbatim (to
script malformed JSON). Optional keys: `"agent"` (the lane: an explore
branch's index, its trace name `explore<k>-<i>` or its text, or
"compaction"; absent = the main agent), `"reasoning"`, `"error"` (the call
fails with that provider error), `"delay"` (seconds before the first chunk)
and `"chunkDelay"` (seconds between chunks).

A call names its lane by one or more names (a branch is known by its index,
its trace name and its text); it gets the first line of the file, in file
order, that is not used yet and whose `agent` is one of those names. The
used lines are a `ScriptCursor`: one per session, saved in the session's
trace (`script.json`), so a resumed session — in a new process too —
continues its script where it stopped (a script keyed by its path and its
content: a rewritten file starts again). The cursor of the session whose turn
is running is `ACTIVE_CURSOR` (set by the turn runner; explore branches and
compaction calls started in the turn inherit it); a call outside any turn
uses the process's own cursor.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Literal, Protocol

from pydantic import ConfigDict, Field, TypeAdapter, ValidationError, field_validator

from cairn.models.base import WireModel

MAIN_LANE = "main"
COMPACTION_LANE = "compaction"
# The trace document holding a session's cursor.
CURSOR_DOC = "script.json"
CURSOR_VERSION = 2
# Hex digits of a script's content digest in its cursor key.
KEY_DIGEST_CHARS = 16

ScriptedErrorName = Literal[
    "rate_limit", "server_error", "unavailable", "timeout", "connection", "auth", "bad_request"
]


class ScriptError(Exception):
    """A script cannot answer a call: unreadable file, bad line, or no reply left."""


class ScriptedToolCall(WireModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    arguments: dict[str, Any] | str = Field(default_factory=dict)
    id: str | None = None


class ScriptLine(WireModel):
    """One scripted model reply."""

    model_config = ConfigDict(extra="forbid")

    text: str = ""
    tool_calls: list[ScriptedToolCall] = Field(default_factory=list)
    reasoning: str = ""
    agent: str = MAIN_LANE
    error: ScriptedErrorName | None = None
    delay: float = Field(default=0.0, ge=0)
    chunk_delay: float = Field(default=0.0, ge=0)

    @field_validator("agent", mode="before")
    @classmethod
    def _lane_name(cls, value: Any) -> Any:
        """Branch indexes may be written as numbers: `"agent": 0` is lane "0"."""
        if value is None or value == "":
            return MAIN_LANE
        return str(value) if isinstance(value, int) else value


_LINE = TypeAdapter(ScriptLine)


def parse_script(path: Path) -> list[tuple[int, ScriptLine]]:
    """Every reply of a script file with its line number (blank lines skipped); `ScriptError`."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ScriptError(f"scripted model {path}: cannot read: {exc.strerror or exc}") from None
    lines: list[tuple[int, ScriptLine]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            lines.append((number, _LINE.validate_json(raw)))
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "line"
            raise ScriptError(
                f"scripted model {path}: line {number}: {where}: {first['msg']}"
            ) from None
    return lines


def lane_names(agent: str | Sequence[str] | None) -> tuple[str, ...]:
    """The names a call's lane answers to; the main agent's when none are given."""
    if agent is None or isinstance(agent, str):
        return (agent,) if agent else (MAIN_LANE,)
    names = tuple(dict.fromkeys(name for name in agent if name))
    return names or (MAIN_LANE,)


class CursorStore(Protocol):
    """Where a cursor is saved: a trace's small JSON documents."""

    def read_doc(self, name: str) -> dict[str, Any] | None: ...
    def write_doc(self, name: str, data: dict[str, Any]) -> None: ...


def script_key(path: Path, lines: Sequence[tuple[int, ScriptLine]]) -> str:
    """A script's key in a cursor: its absolute path and a digest of its replies, so the
    lines used of one version of a file are not held against a rewritten one."""
    digest = hashlib.sha256()
    for number, line in lines:
        digest.update(f"{number}:{line.model_dump_json()}\n".encode())
    return f"{path}#{digest.hexdigest()[:KEY_DIGEST_CHARS]}"


class ScriptCursor:
    """The line numbers of each script (by path and content, `script_key`) a session used."""

    def __init__(self, store: CursorStore | None = None) -> None:
        self._store = store
        self._used: dict[str, set[int]] | None = None
        self._lock = threading.Lock()

    def _load(self) -> dict[str, set[int]]:
        if self._used is None:
            data = self._store.read_doc(CURSOR_DOC) if self._store is not None else None
            scripts = (data or {}).get("scripts")
            self._used = {}
            if isinstance(scripts, dict):
                for path, numbers in scripts.items():
                    if isinstance(numbers, list):
                        self._used[str(path)] = {n for n in numbers if isinstance(n, int)}
        return self._used

    def _save(self) -> None:
        if self._store is None or self._used is None:
            return
        scripts = {path: sorted(numbers) for path, numbers in sorted(self._used.items())}
        self._store.write_doc(CURSOR_DOC, {"version": CURSOR_VERSION, "scripts": scripts})

    def take(
        self, path: Path, lines: Sequence[tuple[int, ScriptLine]], lane: Sequence[str]
    ) -> tuple[ScriptLine | None, int]:
        """The lane's first unused line (now marked used and saved) and the lane's call number.

        The call number counts the lane's used lines, this call included; the line is None
        when the lane has no line left.
        """
        key = script_key(path, lines)
        with self._lock:
            used = self._load().setdefault(key, set())
            mine = [(number, line) for number, line in lines if line.agent in lane]
            call = sum(1 for number, _ in mine if number in used) + 1
            for number, line in mine:
                if number not in used:
                    used.add(number)
                    self._save()
                    return line, call
            return None, call

    def reset(self) -> None:
        """Forget every used line (the saved document is rewritten on the next call)."""
        with self._lock:
            self._used = {}


# The process's own cursor, for calls outside a session's turn.
_PROCESS_CURSOR = ScriptCursor()
ACTIVE_CURSOR: ContextVar[ScriptCursor | None] = ContextVar("cairn_script_cursor", default=None)


def current_cursor() -> ScriptCursor:
    """The running turn's session cursor, else the process's."""
    return ACTIVE_CURSOR.get() or _PROCESS_CURSOR


def reset_process_cursor() -> None:
    """Rewind the process's own cursor: every script starts again at its first line."""
    _PROCESS_CURSOR.reset()
