"""`client-vscode/src/sentences.ts`: the sentence templates users read, from `cairn.frontends.sentences`.

The webview fills the same templates as the CLI, the language server and the
ACP agent (`fillSentence`: each `{name}` slot replaced, the rule of Python's
`sentences.fill`), so a compaction or an approval reads the same everywhere.
"""

from __future__ import annotations

from collections.abc import Iterable

from cairn.frontends.sentences import (
    APPROVAL_BUTTONS,
    APPROVAL_CHOICES,
    APPROVAL_QUESTION,
    APPROVAL_REASON,
    APPROVAL_VERBS,
    COMPACTION_SENTENCES,
    NO_REASON,
    SLOT,
)
from tools.contracts.typescript import literal


def _record(name: str, key_type: str, templates: Iterable[tuple[str, str]]) -> str:
    entries = "\n".join(f"  {key}: {literal(text)}," for key, text in templates)
    return f"export const {name}: Readonly<Record<{key_type}, string>> = {{\n{entries}\n}};"


def sentences_ts(header: str) -> str:
    """The generated module's text."""
    stages = " | ".join(literal(key) for key in COMPACTION_SENTENCES)
    approvals = " | ".join(literal(key) for key in APPROVAL_CHOICES)
    subjects = " | ".join(literal(key) for key in APPROVAL_VERBS)
    return f"""{header}

export type CompactionStage = {stages};
export type ApprovalChoice = {approvals};
export type ApprovalSubject = {subjects};

/** One sentence per compaction stage; slots: kind, before, after, reason. */
{_record("COMPACTION_SENTENCES", "CompactionStage", COMPACTION_SENTENCES.items())}
/** The reason shown when a failed compaction gives none. */
export const NO_REASON = {literal(NO_REASON)};

/** The answers to an approval request as ACP permission options; slot: command. */
{_record("APPROVAL_CHOICES", "ApprovalChoice", APPROVAL_CHOICES.items())}
/** The answers to an approval request as the editor's buttons (the chat's card). */
{_record("APPROVAL_BUTTONS", "ApprovalChoice", APPROVAL_BUTTONS.items())}
/** The verb of what an approval asks: a command is run, an MCP tool called. */
{_record("APPROVAL_VERBS", "ApprovalSubject", APPROVAL_VERBS.items())}
/** What an approval asks; slot: verb. */
export const APPROVAL_QUESTION = {literal(APPROVAL_QUESTION)};
/** Why a command the allowlist matches still asks; slot: reason. */
export const APPROVAL_REASON = {literal(APPROVAL_REASON)};

const SLOT = new RegExp({literal(SLOT.pattern)}, 'g');

/** `template` with each `{{name}}` slot replaced by `values[name]` (unknown slots are kept). */
export function fillSentence(template: string, values: Readonly<Record<string, string>>): string {{
  return template.replace(SLOT, (slot: string, name: string) => values[name] ?? slot);
}}
"""
