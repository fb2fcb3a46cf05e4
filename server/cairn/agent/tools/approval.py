"""Whether a shell command may run: the allowlist, then the user.

A command is allowed without asking when it equals an `allowed_commands`
entry, or starts with an entry followed by a space and arguments that
contain no shell operators (`;`, `&`, `|`, backquote, `$(`, `>`, `<`,
newline) — so "pytest" allows "pytest -q tests/test_x.py" but not
"pytest; rm -rf ~". Anything else needs `ctx.approve` (the editor's prompt,
or `--yes` on the CLI); without an approver it is refused. An "always"
answer runs the command and adds it to the session's allowlist.
MCP tools that their server does not mark read-only (and the user did not
allow) go through the same approver (`check_tool_call`); "always" allows
that tool for the rest of the session.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from cairn.agent.api import ApprovalRequest
from cairn.agent.tools.base import ToolContext, ToolFailure

_SHELL_OPERATORS = re.compile(r"[;&|`<>\n\r]|\$\(")


def is_allowlisted(command: str, allowed: Iterable[str]) -> bool:
    """Exact match, or an allowed prefix plus operator-free arguments."""
    command = command.strip()
    for entry in (a.strip() for a in allowed):
        if not entry:
            continue
        if command == entry:
            return True
        rest = command[len(entry) :]
        if command.startswith(entry) and rest[:1] == " " and not _SHELL_OPERATORS.search(rest):
            return True
    return False


def _turn_id(ctx: ToolContext) -> str:
    scope = ctx.scope
    return (scope.session.current_turn_id or "") if scope is not None else ""


async def check_command(ctx: ToolContext, command: str) -> None:
    """Return when `command` may run; raise `ToolFailure` saying why not otherwise."""
    if is_allowlisted(command, ctx.allowed_commands):
        return
    if ctx.approve is None:
        raise ToolFailure(
            f"command not allowed: {command} (add it to allowed_commands or approve it)"
        )
    answer = await ctx.approve(ApprovalRequest(ctx.site, command, turn_id=_turn_id(ctx)))
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
