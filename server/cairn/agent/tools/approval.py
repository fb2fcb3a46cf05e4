"""Whether a shell command may run: the allowlist, then the user.

Allowlist entries are argv patterns (`cairn.models.shell_words`): an entry
with a shell operator (`;`, `&`, `|`, backquote, `$(`, `>`, `<`, newline) is
no entry (settings refuse it when they load; a rules file's is not listed).
A command matches an entry when its words start with the entry's words and
it has no shell operator at all — so "pytest" allows "pytest -q
tests/test_x.py" but not "pytest; rm -rf ~", and no command with an operator
runs without asking (`cd <folder> && <command>`, the form Cairn writes for a
suite in a subfolder, excepted). A matching command still asks when one of
its arguments points outside the workspace (`command_paths`: pytest's
`--basetemp`, `--junitxml`, `-p` plugins, ...); the reason goes into the
approval request; in a sandbox a path outside the workspace is no reason to ask
(nothing outside can be written), and the request says which sandbox the
command would run in. A command the user answered "always" to runs again
without asking when it is exactly that text (they saw it whole).
Anything else needs `ctx.approve` (the editor's prompt, or `--yes` on the
CLI); without an approver it is refused. An "always" answer runs the command
and adds it to the session's allowlist.
MCP tools the user did not allow (`allowed_tools`; a server's read-only hint
does not count) go through the same approver (`check_tool_call`); "always" allows
that tool for the rest of the session.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from cairn.agent.api import ApprovalRequest
from cairn.agent.tools.base import ToolContext, ToolFailure
from cairn.agent.tools.command_paths import path_problems
from cairn.models.shell_words import CommandWords, entry_problem, split_command
from cairn.sandbox.choice import SandboxUse


@dataclass(frozen=True)
class CommandVerdict:
    """Whether a command runs without asking; when it matched an entry but must still
    ask, `reason` says why."""

    allowed: bool
    reason: str = ""


def _same_folder(a: str, b: str) -> bool:
    return Path(a or ".") == Path(b or ".")


def matching_entry(command: str, allowed: Iterable[str]) -> CommandWords | None:
    """`command`'s words when they start with an allowlist entry's words and it has no
    shell operator; None otherwise (entries that are no argv pattern never match)."""
    try:
        words = split_command(command)
    except ValueError:
        return None
    for entry in allowed:
        if not entry.strip() or entry_problem(entry) is not None:
            continue
        pattern = split_command(entry)
        if (
            _same_folder(pattern.folder, words.folder)
            and words.argv[: len(pattern.argv)] == pattern.argv
            and not any(w.expands or w.globs for w in words.words[: len(pattern.argv)])
        ):
            return words
    return None


def is_allowlisted(command: str, allowed: Iterable[str]) -> bool:
    """True when `command` matches an allowlist entry (see `matching_entry`)."""
    return matching_entry(command, allowed) is not None


def judge_command(
    command: str,
    allowed: Iterable[str],
    folders: Sequence[Path],
    approved: Collection[str] = (),
    sandboxed: bool = False,
) -> CommandVerdict:
    """Whether `command` runs without asking: exactly a command the user approved
    "always" (`approved`), or an entry's match whose paths all stay in `folders` (in a
    sandbox: that does nothing else `path_problems` asks about)."""
    if command.strip() in {a.strip() for a in approved}:
        return CommandVerdict(True)
    words = matching_entry(command, allowed)
    if words is None:
        return CommandVerdict(False)
    problems = path_problems(words, folders, sandboxed)
    return CommandVerdict(not problems, "; ".join(problems))


def _turn_id(ctx: ToolContext) -> str:
    scope = ctx.scope
    return (scope.session.current_turn_id or "") if scope is not None else ""


async def check_command(ctx: ToolContext, command: str, sandbox: SandboxUse | None = None) -> None:
    """Return when `command` may run (in `sandbox`); raise `ToolFailure` saying why not."""
    approved = list(ctx.approved_commands)
    if ctx.scope is not None:
        approved += ctx.scope.session.meta().allowed_commands
    sandboxed = sandbox is not None and sandbox.active
    folders = ctx.workspace.folders
    verdict = judge_command(command, ctx.allowed_commands, folders, approved, sandboxed)
    if verdict.allowed:
        return
    if ctx.approve is None:
        if verdict.reason:
            raise ToolFailure(f"command not allowed without approval: {command} ({verdict.reason})")
        raise ToolFailure(
            f"command not allowed: {command} (add it to allowed_commands or approve it)"
        )
    request = ApprovalRequest(
        ctx.site, command, turn_id=_turn_id(ctx), reason=verdict.reason, sandbox=sandbox
    )
    answer = await ctx.approve(request)
    if answer == "reject":
        raise ToolFailure(f"command not approved by the user: {command}")
    if answer == "always":
        ctx.allow_always(command)


async def check_tool_call(ctx: ToolContext, tool_ref: str, action: str, how_to_allow: str) -> None:
    """Return when the MCP tool `tool_ref` may run `action` (allowed for the session, or the
    user approves it now); raise `ToolFailure` saying why not otherwise."""
    if tool_ref in ctx.allowed_commands:
        return
    if ctx.approve is None:
        raise ToolFailure(f"not allowed without approval: {action} ({how_to_allow})")
    answer = await ctx.approve(
        ApprovalRequest(ctx.site, action, tool=tool_ref, turn_id=_turn_id(ctx))
    )
    if answer == "reject":
        raise ToolFailure(f"not approved by the user: {action}")
    if answer == "always":
        ctx.allow_always(tool_ref)
