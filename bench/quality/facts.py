"""Fact detection of the context-quality bench: is a planted fact in what the model received?

A request is read as the model reads it (`request_lines`): every message's
text, and every tool call as one line `name {arguments}`. A `Fact` has a
kind, the number of session messages that had to exist for it to be known
(`known_after`), and a detector:
- `marker`: a unique word (constraints, goal summaries and abandon reasons,
  tool-output facts, rules) appears anywhere;
- `changed`: a changed file's path on a line that also says it changed
  (`CHANGE_WORDS`: an `edit_file` call, "patch", "changed", …), or under a
  heading line that does;
- `last_status`: the latest run of a command (a test or not) is known: that run's own
  result (`$ command` then `exit code N`) is shown, or the last line about
  the command with a status word (lines saying "last"/"latest" win) has the
  right status and not the wrong one. A line is about a command when it
  states it exactly, as the ledger writes it: the line's subject (after a
  list bullet or a `$ ` prompt) is the command, or the command stands in
  backquotes — so a line about `pytest -q tests/test_retry.py` is not one
  about `pytest -q tests`, and neither is a line that names the command only
  as what superseded another. A status is a test's passed/failed word or an
  exit code (`exit 0` is passed).
Nested rules are expected only when a file of their folder was touched in
the measured call's turn (before the call) or in the turn before it
(`RuleScope`: a follow-up edits there again before touching anything);
everything else from `known_after` on.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from cairn.models.messages import Message, ToolCallPart, ToolResultPart

Kind = Literal["constraint", "goal", "ledger", "tool", "rule"]
KINDS: tuple[Kind, ...] = ("ledger", "constraint", "goal", "rule", "tool")
Detector = Literal["marker", "changed", "last_status"]
CHANGE_WORDS = ("edit_file", "patch", "changed", "edited", "modified", "created", "wrote")
PASSED = re.compile(r"\b(passed|pass|ok|succeeded|exit(?: code)?[ =:]*0)\b", re.IGNORECASE)
FAILED = re.compile(r"\b(failed|fail|failing|error|exit(?: code)?[ =:]*[1-9]\d*)\b", re.IGNORECASE)
# How `run_command` starts its result: the command, then its exit code.
RAW_RESULT = re.compile(r"^exit code (\d+)")
# The line `request_lines` puts before each tool result: this tag and the call id.
RESULT_TAG = "[bench: result of"
LATEST_WORDS = ("last", "latest")
HEADING = re.compile(r"^\s*(#+ .*|.*:\s*)$")
# What may stand before a line's subject: a list bullet, a shell prompt, a backquote.
SUBJECT_LEAD = re.compile(r"^\s*(?:[-*]\s+|\$\s+)?`?")
# What may follow a command that is a line's subject (anything but more of its words).
SUBJECT_END = re.compile(r"^(?:$|[`:,;)]|\s+(?:→|—|-\s|\())")
# Tools whose `path` argument puts a folder's files "in play" for its rules.
TOUCHING_TOOLS = ("read_file", "edit_file", "grep", "list_dir")


@dataclass(frozen=True)
class Fact:
    """One planted fact and how to find it (see the module docstring)."""

    kind: Kind
    label: str
    detector: Detector
    needle: str
    known_after: int = 0
    # For last_status: "passed" or "failed" (exit 0 or not); for nested rules: their folder.
    detail: str = ""
    # For last_status: the tool call of the latest run.
    call_id: str = ""


def _content(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        return "\n".join(
            str(p.get("text", "")) for p in content if isinstance(p, Mapping) and "text" in p
        )
    return ""


def request_lines(messages: Sequence[Mapping[str, Any]]) -> list[str]:
    """The request as lines of text: message contents, then `name {arguments}` per tool call."""
    lines: list[str] = []
    for message in messages:
        if message.get("role") == "tool":
            lines.append(f"{RESULT_TAG} {message.get('tool_call_id', '')}]")
        lines += _content(message.get("content")).splitlines()
        for call in message.get("tool_calls") or []:
            function = call.get("function") or {}
            lines.append(f"{function.get('name', '')} {function.get('arguments', '')}")
        lines.append("")  # a message ends any heading of its own
    return lines


def _changed(lines: Sequence[str], path: str) -> bool:
    heading = ""
    for line in lines:
        if not line.strip():
            heading = ""
        elif HEADING.match(line) and path not in line:
            heading = line.lower()
        if path in line:
            low = line.lower()
            if any(w in low for w in CHANGE_WORDS) or any(w in heading for w in CHANGE_WORDS):
                return True
    return False


def _raw_status(lines: Sequence[str], fact: Fact) -> str | None:
    """The status shown by the latest run's own result, if it is in the request."""
    tag = f"{RESULT_TAG} {fact.call_id}]"
    for index, line in enumerate(lines):
        if line == tag and index + 2 < len(lines) and lines[index + 1] == f"$ {fact.needle}":
            code = RAW_RESULT.match(lines[index + 2])
            if code:
                return "passed" if code.group(1) == "0" else "failed"
    return None


def about(line: str, command: str) -> str | None:
    """The rest of `line` when it is about exactly `command` (see the module docstring)."""
    lead = SUBJECT_LEAD.match(line)
    start = lead.end() if lead else 0
    if line.startswith(command, start) and SUBJECT_END.match(line[start + len(command) :]):
        return line[start + len(command) :]
    quoted = f"`{command}`"
    return line.replace(quoted, "") if quoted in line else None


def _stated_status(lines: Sequence[str], command: str) -> str | None:
    """The status of the last line about `command` with a status word ("last" lines first)."""
    stated: list[tuple[bool, str]] = []
    for line in lines:
        rest = about(line, command)
        if rest is None:
            continue
        passed, failed = PASSED.search(rest), FAILED.search(rest)
        if bool(passed) != bool(failed):
            latest = any(w in rest.lower() for w in LATEST_WORDS)
            stated.append((latest, "passed" if passed else "failed"))
    preferred = [s for latest, s in stated if latest] or [s for _, s in stated]
    return preferred[-1] if preferred else None


def _last_status(lines: Sequence[str], fact: Fact) -> bool:
    raw = _raw_status(lines, fact)
    if raw is not None:
        return raw == fact.detail
    return _stated_status(lines, fact.needle) == fact.detail


def present(fact: Fact, lines: Sequence[str]) -> bool:
    """Whether `fact` is in a request read as `lines`."""
    text = "\n".join(lines)
    if fact.detector == "marker":
        return fact.needle in text
    if fact.detector == "changed":
        return _changed(lines, fact.needle)
    return _last_status(lines, fact)


# -- ledger facts from the records ----------------------------------------------------


def _results(messages: Sequence[Message]) -> list[tuple[int, ToolResultPart]]:
    return [
        (index, part)
        for index, message in enumerate(messages)
        for part in message.parts
        if isinstance(part, ToolResultPart)
    ]


def ledger_facts(messages: Sequence[Message], upto: int) -> list[Fact]:
    """The ledger as the records know it after the first `upto` messages.

    Each changed file (first change), and each command's latest status (a test's
    passed/failed, another command's exit code)."""
    changed: dict[str, int] = {}
    runs: dict[str, tuple[int, str, str, str]] = {}
    for index, part in _results(messages[:upto]):
        data = part.data or {}
        if part.name == "edit_file" and part.ok and "path" in data:
            changed.setdefault(str(data["path"]), index + 1)
        elif part.name == "run_command" and "command" in data and data.get("exit_code") is not None:
            code = data["exit_code"]
            status = "passed" if code == 0 else "failed"
            shown = status if data.get("test") else f"exit {code}"
            runs[str(data["command"])] = (index + 1, status, shown, part.call_id)
    facts = [Fact("ledger", f"changed {p}", "changed", p, at) for p, at in changed.items()]
    facts += [
        Fact("ledger", f"{c}: {shown}", "last_status", c, at, s, call)
        for c, (at, s, shown, call) in runs.items()
    ]
    return facts


@dataclass(frozen=True)
class RuleScope:
    """Folders touched per user turn, by message index: which nested rules apply at a call."""

    touched: list[tuple[int, int, str]]  # (message index, turn number, path)

    @staticmethod
    def of(messages: Sequence[Message]) -> RuleScope:
        out: list[tuple[int, int, str]] = []
        turn = -1
        for index, message in enumerate(messages):
            if message.role == "user" and message.text():
                turn += 1
            for part in message.parts:
                if isinstance(part, ToolCallPart) and part.name in TOUCHING_TOOLS:
                    path = str(part.arguments.get("path") or "")
                    if path:
                        out.append((index, turn, path))
        return RuleScope(out)

    def applies(self, folder: str, upto: int, turn: int) -> bool:
        """A file under `folder` was touched in `turn` before message `upto`, or in the
        turn before."""
        prefix = folder.rstrip("/") + "/"
        return any(
            (t == turn - 1 or (t == turn and i < upto)) and (p == folder or p.startswith(prefix))
            for i, t, p in self.touched
        )


def turn_of(messages: Sequence[Message], upto: int) -> int:
    """The user turn (0-based) the first `upto` messages end in."""
    return sum(1 for m in messages[:upto] if m.role == "user" and m.text()) - 1
