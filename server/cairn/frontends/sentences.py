"""The sentences users read about compaction and approvals, written once for every surface.

The CLI (`cairn run`), the language server (its log line, progress bar and
approval prompt), the ACP agent (its stand-in agent message and permission
options) and the extension's chat webview all show these. Each is a template
with `{name}` slots, so the webview gets the same text through the generated
contracts (`python -m tools.gen_contracts` writes
`client-vscode/src/sentences.ts` from the constants here) and fills it with
its own number format; Python fills it with `fill`.

- compaction, one sentence per stage: started, done, failed with its reason
  (a full compaction that would free almost nothing fails "stalled",
  `cairn.compaction.policy`);
- approvals: what Cairn asks (`approval_question`: "Cairn wants to run: …",
  the verb `call` for an MCP tool) and why (`APPROVAL_REASON`, when a command
  the allowlist matches still asks); the editor's three buttons
  (`APPROVAL_BUTTONS`: the language server's prompt and the chat's card,
  whose answer is the button's title) and the ACP permission options
  (`APPROVAL_CHOICES`, whose "always" names what it allows, as an ACP
  client shows the options apart from the call).

A retry's sentence ("…; retrying in 2.0 s (request 2)") is the engine's
(`cairn.agent.turn.loop`): it is the text of the `retry` turn event every
surface shows as it comes, so it cannot be written above the engine.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from cairn.models.events import CompactionEvent

CompactionStage = Literal["start", "done", "failed"]
COMPACTION_SENTENCES: dict[CompactionStage, str] = {
    "start": "Compacting the context ({kind}, {before} tokens)…",
    "done": "Context compacted ({kind}): {before} → {after} tokens.",
    "failed": "Compaction ({kind}) failed: {reason}.",
}
NO_REASON = "no reason given"

Approval = Literal["once", "always", "reject"]
APPROVAL_CHOICES: dict[Approval, str] = {
    "once": "Allow once",
    "always": "Always allow `{command}`",
    "reject": "Reject",
}
APPROVAL_BUTTONS: dict[Approval, str] = {
    "once": "Run",
    "always": "Always allow in this session",
    "reject": "Reject",
}
# What is asked: a command is run, an MCP tool called.
ApprovalSubject = Literal["command", "tool"]
APPROVAL_VERBS: dict[ApprovalSubject, str] = {"command": "run", "tool": "call"}
APPROVAL_QUESTION = "Cairn wants to {verb}"
APPROVAL_REASON = "asked because {reason}"
SLOT = re.compile(r"\{(\w+)\}")


def fill(template: str, **values: object) -> str:
    """`template` with each `{name}` replaced by `values[name]` (the same rule as the webview)."""
    return SLOT.sub(lambda slot: str(values.get(slot.group(1), slot.group(0))), template)


def tokens(count: int) -> str:
    """A token count as Python surfaces print it: `12,345`."""
    return f"{count:,}"


def compaction_sentence(event: CompactionEvent) -> str:
    """The one sentence of a compaction event."""
    after = event.tokens_after if event.tokens_after is not None else event.tokens_before
    return fill(
        COMPACTION_SENTENCES[event.stage],
        kind=event.kind,
        before=tokens(event.tokens_before),
        after=tokens(after),
        reason=event.error or NO_REASON,
    )


def approval_choice(approval: Approval, command: str = "") -> str:
    """The label of one answer to an approval request."""
    return fill(APPROVAL_CHOICES[approval], command=command)


if TYPE_CHECKING:
    from cairn.sandbox.choice import SandboxUse

# Whether a command the user is asked about would run in a sandbox (`cairn.sandbox`): the
# terminal prompt, the language server's approval (the VS Code card) and the ACP permission
# title all end with this sentence.
SANDBOX_SENTENCES: dict[str, str] = {
    "sandboxed": "It runs sandboxed ({kind}): it can write only in the workspace, no network.",
    "network": "It runs sandboxed ({kind}): it can write only in the workspace; network allowed.",
    "unsandboxed": "It runs without a sandbox ({why}), with your rights.",
}


def sandbox_sentence(sandbox: SandboxUse | None) -> str:
    """The sentence saying where an asked-about command would run ("" for an MCP tool call)."""
    if sandbox is None:
        return ""
    if not sandbox.active:
        return fill(SANDBOX_SENTENCES["unsandboxed"], why=sandbox.why_not)
    key = "network" if sandbox.network else "sandboxed"
    return fill(SANDBOX_SENTENCES[key], kind=sandbox.kind)


def sandbox_suffix(sandbox: SandboxUse | None) -> str:
    """` <sandbox sentence>` after an approval's question; empty for an MCP tool call."""
    return f" {sandbox_sentence(sandbox)}" if sandbox else ""


def approval_verb(tool: str | None) -> str:
    """`run` for a command, `call` for an MCP tool (`tool`: its name; None for a command)."""
    return APPROVAL_VERBS["tool" if tool else "command"]


def approval_reason(reason: str) -> str:
    """` (asked because …)` after what is asked; empty without a reason."""
    return f" ({fill(APPROVAL_REASON, reason=reason)})" if reason else ""


def approval_question(
    command: str, tool: str | None, reason: str = "", sandbox: SandboxUse | None = None
) -> str:
    """`Cairn wants to run: <command> (asked because <reason>)` (`call` for an MCP tool),
    then where a command would run (`sandbox_sentence`)."""
    question = f"{fill(APPROVAL_QUESTION, verb=approval_verb(tool))}: {command}"
    return question + approval_reason(reason) + sandbox_suffix(sandbox)
