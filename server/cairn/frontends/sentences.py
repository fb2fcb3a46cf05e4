"""The sentences users read about compaction and approvals, written once for every surface.

The CLI (`cairn run`), the language server (its log line and progress bar),
the ACP agent (its stand-in agent message) and the extension's chat webview
all show these. Each is a template with `{name}` slots, so the webview gets
the same text through the generated contracts (`python -m tools.gen_contracts`
writes `client-vscode/src/sentences.ts` from the constants here) and fills it
with its own number format; Python fills it with `fill`.

- compaction, one sentence per stage: started, done, failed with its reason
  (a full compaction that would free almost nothing fails "stalled",
  `cairn.compaction.policy`);
- approvals: the three answers to "may the agent run this command?".
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
